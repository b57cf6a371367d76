// CulpritMarks — where a culprit (Diagnosis::culprits) was the last to arrive at a collective
// (Diagnosis::lastArrivals; other ranks' last arrivals are not marked): a small red triangle at the top of the collective's row at the arrival time, and the culprit
// workers (Diagnosis::culprits, by rank) whose group headers get a "culprit" badge. The tooltip
// of a mark: "last to arrive at <collective>: the others waited".
// Marks are drawn only when the view is zoomed in enough to tell them apart: a worker whose
// marks in the visible range are on average closer than kMinSpacingPx gets none (at whole-job
// zoom the heat map and the step graph say it better).
// Invariants: times are global ns in mode(); per worker the marks are sorted by time; a mark's
// (model, depth) is its collective event's row (model −1 when the event was not found: it is
// drawn on the worker's header). The marks belong to one scene (its model indices).
// Cost: build O(marks · log events) once per diagnosis; place O(visible rows · (log marks +
// marks on screen)).
// Threading: plain value; GUI thread (or any single thread).
#pragma once

#include "timeline/model/clockmode.h"

#include <QPointF>
#include <QString>

#include <cstdint>
#include <vector>

class QPainter;

namespace syncline {
struct Diagnosis;
}

namespace syncline::ui {

class TimelineScene;
struct GeometryRequest;
struct ViewStyle;

struct CulpritMark
{
    int64_t timeNs = 0;
    int model = -1;
    int depth = 0;
    uint32_t nameId = 0;
};

struct PlacedCulpritMark
{
    QPointF tip; // px in the event area, y from the viewport top
    int worker = 0;
    size_t index = 0; // into marks(worker)
};

class CulpritMarks
{
public:
    static constexpr double kMinSpacingPx = 6.0;
    static constexpr double kSizePx = 5.0; // the triangle's half width (and its height)

    static CulpritMarks build(const TimelineScene &scene, const Diagnosis &diagnosis);
    bool empty() const { return m_marks.empty(); }
    ClockMode mode() const { return m_mode; }
    const std::vector<CulpritMark> &marks(int worker) const;
    bool isCulprit(int worker) const
    {
        return size_t(worker) < m_culprit.size() && m_culprit[size_t(worker)];
    }
    size_t markCount() const;

    // The marks to draw for this request (none for a scene in another clock mode).
    static std::vector<PlacedCulpritMark> place(const TimelineScene &scene,
                                                const GeometryRequest &request);
    static void paint(QPainter &p, const std::vector<PlacedCulpritMark> &marks);
    // The tooltip of the mark under pos (±kSizePx), "" when none.
    static QString tooltipAt(const TimelineScene &scene, const GeometryRequest &request,
                             QPointF pos);

private:
    std::vector<std::vector<CulpritMark>> m_marks; // per worker
    std::vector<uint8_t> m_culprit;                // per worker
    ClockMode m_mode = ClockMode::Corrected;
};

} // namespace syncline::ui
