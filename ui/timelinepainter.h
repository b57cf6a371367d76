// TimelinePainter — replays a TimelineGeometry and draws the chrome around it (ruler with
// adaptive ticks, row bands, the label gutter, the cursor and selection, a legend). The view,
// the image exporter and the benchmark all draw through here, so what is exported is what the
// view shows.
//
// Invariants: nothing here iterates over events; the cost follows the geometry's primitive
// count and the number of visible rows. Times in ns, positions in px; the ruler places ticks at
// multiples of a {1,2,5}·10^k step counted from the display origin (int64 maths).
// Threading: any thread that owns the QPainter's device (QImage painting works off the GUI
// thread; fonts need a QGuiApplication).
#pragma once

#include "timelinegeometry.h"
#include "viewstyle.h"

#include <QPainter>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <vector>

namespace syncline::ui {

struct RulerTick
{
    int64_t time = 0; // global ns
    double x = 0;     // px from the event-area left
    bool major = false;
};

// Where each part goes on the target device.
struct FrameRects
{
    QRectF ruler;  // above the events, same x span as `events`
    QRectF gutter; // labels, left of the events
    QRectF events;
};

struct FrameOptions
{
    bool wallClock = false; // ruler shows wall-clock time instead of time since the origin
    double cursorX = -1;    // event-area px; < 0 = none
    int64_t selectionStart = -1;
    int64_t selectionEnd = -1;
    int64_t selectionEvents = -1; // events begun in the selection (the ruler says so); < 0 none
};

class TimelinePainter
{
public:
    // Ticks at least `minSpacingPx` apart; every fifth-ish (at 5× or 10× the step) is major.
    static std::vector<RulerTick> rulerTicks(int64_t rangeStart, int64_t rangeEnd, int64_t origin,
                                             double width, double minSpacingPx, int64_t *stepNs);
    // The `origin` the ruler's ticks count from: the display origin, or with wall-clock labels
    // a time near rangeStart whose wall clock is a multiple of the tick step (round wall times).
    static int64_t tickOrigin(const TimelineScene &scene, bool wallClock, int64_t rangeStart,
                              int64_t rangeEnd, double width, double minSpacingPx);

    static void paintFrame(QPainter &p, const FrameRects &rects, const TimelineScene &scene,
                           const TimelineGeometry &geometry, const ViewStyle &style,
                           const FrameOptions &options);
    static void paintRowBands(QPainter &p, const QRectF &area, const TimelineScene &scene,
                              double top, const ViewStyle &style);
    static void paintEvents(QPainter &p, const TimelineGeometry &g, const TimelineScene &scene,
                            const ViewStyle &style);
    static void paintGutter(QPainter &p, const QRectF &area, const TimelineScene &scene, double top,
                            const ViewStyle &style);
    static void paintRuler(QPainter &p, const QRectF &area, const TimelineScene &scene,
                           int64_t rangeStart, int64_t rangeEnd, const ViewStyle &style,
                           const FrameOptions &options);
    // Colour swatches with names, left to right, as many as fit.
    static void paintLegend(QPainter &p, const QRectF &area, const TimelineScene &scene,
                            const std::vector<uint32_t> &nameIds, const ViewStyle &style);
    static QColor textColourOn(const QColor &fill);
    // A group header's background: tinted for a crashed or silent worker (WorkerStatus).
    static QColor headerFill(const TimelineScene &scene, int worker, const ViewStyle &style);
    static double paintHeaderBadges(QPainter &p, const QRectF &row, const TimelineScene &scene,
                                    int worker, const ViewStyle &style, double labelWidth);
    // Where the ruler writes the selected range's duration: at least the text's width, centred
    // on the selection, inside `area` (never clipped: "114 ms" is never drawn as "14 ms").
    static QRectF selectionLabelRect(const QRectF &selection, double textWidth, const QRectF &area);
};

} // namespace syncline::ui
