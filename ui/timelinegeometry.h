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
//   Folds keep the information: each window is painted in the colour of the name
//   covering most of its time (dominantName: exact up to kExactFold events — consecutive
//   entries of the row — else from the row's 64-event bucket summaries inside the window, each
//   bucket's dominant name weighing its time: TrackModel::bucketNames, a compact array built
//   once at indexing), so a block is a strip of the colours of what it holds, merged where
//   neighbours agree; a block of one name is one colour.
//   Example: a window of 3000 events = 46 complete buckets, 30 dominated by forward (40 µs
//   each) and 16 by all_reduce (400 µs each) → all_reduce (6.4 ms against 1.2 ms).
//   A block also shows, per px column, the share of the column's time its thread spent waiting
//   (collectives at any depth): FoldBlock::waitShares, painted as bars up from the block's
//   bottom (waitRects, equal heights merged, so at most one per column). Each column boundary is
//   one TrackModel::waitNsBefore (per-thread running sums of wait time, galloping forward from
//   the previous boundary), computed once per thread and frame: every folded row of a thread
//   shows the same share (the thread's, not the row's), so it appears at whatever depth folding
//   starts at that zoom, and a straggler's row (little wait) and its victims' (much wait) differ
//   at whole-job zoom.
//   Example: steps of 100 ns, each [compute 80 ns][allreduce 20 ns], at 100 ns/px → 0.2 per
//   column; at 50 ns/px → 0, 0.4, 0, 0.4, … (20 ns of each other 50 ns).
//   With a find pattern, a window holding a match (TimelineScene::matchIn, O(log matches)) is
//   lit and gets a match mark; the others are dimmed.
// Collapsed groups show a summary of all their threads: per pixel the innermost visible event at
// that time (innermostAt), merged into runs of one colour — the same rule as the overview strip.
// Coordinates: x in px from the left of the event area, by the request's TimeScale (scale(): x of
// a time, time of an x, the 1 px minimum of a drawn span); y in px from the viewport top
// (content y - request.top). Rectangles are clipped to [-2, width + 2] horizontally.
// Threading: computeGeometry/hitTest are pure functions of their inputs (const scene).
#pragma once

#include "linkpainter.h"
#include "timelinescene.h"
#include "timescale.h"

#include <QColor>
#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <vector>

namespace syncline::ui {

constexpr double kFoldPx = 3.0;      // narrower events are folded into blocks
constexpr double kLabelMinPx = 28.0; // wider events get a label
constexpr size_t kExactFold = 128;   // fold windows of at most this many events: exact per name

struct GeometryRequest
{
    int64_t rangeStart = 0;
    int64_t rangeEnd = 1;
    double width = 1;  // event-area width in px
    double top = 0;    // content y at the viewport top
    double height = 1; // viewport height in px
    bool operator==(const GeometryRequest &) const = default;
    TimeScale scale() const { return TimeScale(rangeStart, rangeEnd, width); }
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
    uint32_t nameId = 0; // the name covering most of the block (by its windows' px)
    // Threads that wait at all: per px column c = firstColumn + i, i < size, the share (0–1) of
    // global time [c, c + 1) px the thread spent in waits (any depth); else empty.
    int firstColumn = 0;
    std::vector<float> waitShares;
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
    std::vector<ColourBatch> foldBatches; // the colours inside folds and collapsed summaries
    std::vector<QRectF> matchMarks;       // find matches inside folds / summaries
    std::vector<QRectF> waitRects;        // wait-share bars inside folds (ViewStyle::wait)
    std::vector<EventLabel> labels;
    std::vector<QRectF> openRects;    // events with no end (drawn hatched to the end of data)
    std::vector<QRectF> overdueRects; // red outline
    std::vector<QPointF> instants;    // centre of an instant marker
    QRectF selectedRect;              // null when no selected event is visible
    LinkGeometry links;               // message/flow arrows and collective highlights
    std::vector<PlacedCulpritMark> culpritMarks; // last arrivals at collectives (CulpritMarks)
    int64_t eventsDrawn = 0;                     // individual rectangles emitted
    int64_t eventsFolded = 0;                    // events represented by fold blocks
    size_t primitiveCount() const;               // everything the painter draws (bounded by pixels)
};

TimelineGeometry computeGeometry(const TimelineScene &scene, const GeometryRequest &request);

// The name covering most of the time of events [p, q) of model m's depth row d, visible names
// only (see the header comment); false when none is visible.
bool dominantName(const TimelineScene &scene, int model, int depth, size_t p, size_t q,
                  uint32_t *nameId);
// The innermost (deepest) visible, non-instant event of `worker` containing global time t, over
// all its threads (the first thread wins a tie); invalid when none. What a collapsed group and
// the overview strip show at t.
EventRef innermostAt(const TimelineScene &scene, int worker, int64_t globalT);

// The event under `pos` (viewport px, event-area coordinates) with ±1 px tolerance: walks out
// from the first event of the row ending after the cursor time and returns the nearest one.
// On a collapsed group header: innermostAt the cursor time (what the summary draws there).
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
