// LinkPainter — the arrows of message pairs and flows (LinkIndex) between their tracks, and the
// outlines of the highlighted collective instance, as a plain geometry function plus a painter
// that only replays it (TimelineGeometry::links is cached with the rest of the frame).
//
// Cost bounded by pixels, not links: per visible track pair, the send times are walked in
// columns (one binary search a column), each column drawing one arrow that stands for every
// link sent in it (count). What a frame pays for is mostly ink — a 1 px line costs ~50 ns a
// pixel in Qt's raster engine, so 600 arrows of 200 px cost more than the events — so the
// columns are sized from an ink budget: a pair gets kInkPx / (pairs · its arrows' length)
// arrows (its tracks' distance and typical latency on screen), at least kMinPerPair, at most
// kMaxArrows / pairs; columns are never narrower than kColumnPx. A pair sparser than its columns
// draws every link. Sends more than a view width off screen are walked in columns that grow
// with the distance (half of it), so a few long links cost a few steps.
// Example: 1 M messages on 24 pairs at whole-job zoom on 1700 px, arrows ~200 px long → 24 × 12
// arrows (140 px columns), each standing for ~3500 messages, after ~300 binary searches.
// An arrow for one link goes from the send's time on the row of the innermost event there (the
// track's first row when none; the header of a collapsed worker) to the receive's; one that
// stands for several joins the middles of the two tracks. The selected event's own links (an
// endpoint inside it and in none of its children) are always drawn, highlighted.
// Threading: compute() is a pure function of the scene; paint() on the painter's thread.
#pragma once

#include "timelinescene.h"
#include "timescale.h"
#include "viewstyle.h"

#include <QPainter>
#include <QPointF>
#include <QRectF>

#include <cstdint>
#include <limits>
#include <vector>

namespace syncline::ui {

struct LinkArrow
{
    QPointF from, to;
    int64_t count = 1; // links this arrow stands for
    bool selected = false;
    size_t link = 0; // the first link it stands for (index into Timeline::links)
};

struct LinkGeometry
{
    std::vector<LinkArrow> arrows;
    std::vector<QRectF> highlights; // the highlighted collective instance on every rank
    int64_t linksShown = 0;         // links the arrows stand for
    bool thinned = false;           // some arrows stand for more than one link
};

struct LinkRequest
{
    int64_t rangeStart = 0, rangeEnd = 1;
    double width = 1, top = 0, height = 1;
    TimeScale scale() const { return TimeScale(rangeStart, rangeEnd, width); }
};

class LinkPainter
{
public:
    static constexpr int kMaxArrows = 600;
    static constexpr double kColumnPx = 4;
    static constexpr double kInkPx = 60000; // px of arrow lines a frame (see the header)
    static constexpr int kMinPerPair = 8;
    static constexpr int kMaxSelectedLinks = 200;

    static LinkGeometry compute(const TimelineScene &scene, const LinkRequest &request);
    static void paint(QPainter &p, const LinkGeometry &g, const ViewStyle &style);
    // The y (viewport px) where a link ends on model m at local time t; NaN when the row is
    // hidden (rank filter).
    static double yAt(const TimelineScene &scene, int model, int64_t localT, double top);
    // The innermost event of model m containing local time t (invalid ref when none).
    static EventRef eventAt(const TimelineScene &scene, int model, int64_t localT);
    // The links of `ref` (endpoints inside it and in none of its children): outgoing, incoming,
    // at most `max` of each; with `total`, also how many there are in all. fromNs/toNs (global)
    // narrow the search to the part of the event in that range.
    static void linksOf(const TimelineScene &scene, const EventRef &ref, std::vector<size_t> *out,
                        std::vector<size_t> *in, size_t max, size_t *total = nullptr,
                        int64_t fromNs = std::numeric_limits<int64_t>::min(),
                        int64_t toNs = std::numeric_limits<int64_t>::max());
};

} // namespace syncline::ui
