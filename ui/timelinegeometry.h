// Timeline geometry — a plain function from (scene, visible range, viewport) to the rectangles
// the view paints, grouped by colour, with level of detail; and hit-testing on the same rules.
// paintEvent only replays a TimelineGeometry (TimelinePainter); nothing here touches a widget.
//
// Level of detail, per visible row (one depth of one thread), cost O(px · log n), not O(n):
//   1. binary-search the row for the first event ending after the range start;
//   2. an event at least kFoldPx wide is emitted as its own rectangle;
//   3. otherwise gather the window of events starting within kFoldPx of it (a galloping search),
//      and fold the window into an "N events" block, merging blocks that touch (< 1 px apart).
//   Each step advances at least kFoldPx px, so a row costs at most width / kFoldPx steps.
//   Example: 1 M events of 10 ns over 10 ms on 1000 px → each 3 px window holds ~3000 events;
//   the row becomes one block "1000000 events" after ~333 searches.
// Coordinates: x in px from the left of the event area, x = double(t - rangeStart) · pxPerNs
// (int64 difference first, never float absolute times); y in px from the viewport top
// (content y - request.top). Rectangles are clipped to [-2, width + 2] horizontally.
// Threading: computeGeometry/hitTest are pure functions of their inputs (const scene).
#pragma once

#include "timelinescene.h"

#include <QColor>
#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <vector>

namespace syncline::ui {

constexpr double kFoldPx = 3.0;      // narrower events are folded into blocks
constexpr double kLabelMinPx = 28.0; // wider events get a label

struct GeometryRequest
{
    int64_t rangeStart = 0;
    int64_t rangeEnd = 1;
    double width = 1;  // event-area width in px
    double top = 0;    // content y at the viewport top
    double height = 1; // viewport height in px
    bool operator==(const GeometryRequest &) const = default;
    double pxPerNs() const { return width / double(rangeEnd - rangeStart); }
};

struct ColourBatch
{
    int colourIndex = 0;
    bool dimmed = false;
    std::vector<QRectF> rects;
};

struct FoldBlock
{
    QRectF rect;
    int64_t count = 0;
};

struct EventLabel
{
    QRectF rect;
    uint32_t nameId = 0;
    bool dimmed = false;
};

struct TimelineGeometry
{
    GeometryRequest request;
    uint64_t revision = 0;
    std::vector<ColourBatch> batches; // non-empty batches only
    std::vector<FoldBlock> folds;
    std::vector<EventLabel> labels;
    std::vector<QRectF> openRects;    // events with no end (drawn hatched to the end of data)
    std::vector<QRectF> overdueRects; // red outline
    std::vector<QPointF> instants;    // centre of an instant marker
    QRectF selectedRect;              // null when no selected event is visible
    int64_t eventsDrawn = 0;          // individual rectangles emitted
    int64_t eventsFolded = 0;         // events represented by fold blocks
    size_t primitiveCount() const;    // everything the painter draws (bounded by pixels)
};

TimelineGeometry computeGeometry(const TimelineScene &scene, const GeometryRequest &request);

// The event under `pos` (viewport px, event-area coordinates) with ±1 px tolerance: walks out
// from the first event of the row ending after the cursor time and returns the nearest one.
EventRef hitTest(const TimelineScene &scene, const GeometryRequest &request, QPointF pos);

// Caches the last geometry per (request, scene revision).
class GeometryCache
{
public:
    const TimelineGeometry &get(const TimelineScene &scene, const GeometryRequest &request);
    void invalidate() { m_valid = false; }
    int computeCount() const { return m_computes; }

private:
    TimelineGeometry m_geometry;
    bool m_valid = false;
    int m_computes = 0;
};

} // namespace syncline::ui
