#include "linkpainter.h"

#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::ui {

namespace {

int modelOf(const TimelineScene &scene, uint32_t worker, uint32_t track)
{
    return scene.modelsOf(int(worker)).first + int(track);
}

// The content-y range [top, bottom) of model m's rows (its header when collapsed); empty when
// hidden.
std::pair<double, double> modelSpan(const TimelineScene &scene, int m)
{
    const RowLayout &layout = scene.layout();
    const int w = int(scene.model(m).worker());
    if (scene.isCollapsed(w)) {
        const int h = layout.headerOf(w);
        if (h < 0)
            return {0, 0};
        const LayoutRow &r = layout.rows()[size_t(h)];
        return {r.y, r.y + r.height};
    }
    const int first = layout.rowOf(m, 0);
    if (first < 0)
        return {0, 0};
    const int last = layout.rowOf(m, std::max(0, scene.model(m).depthCount() - 1));
    const LayoutRow &a = layout.rows()[size_t(first)];
    const LayoutRow &b = layout.rows()[size_t(last < 0 ? first : last)];
    return {a.y, b.y + b.height};
}

} // namespace

EventRef LinkPainter::eventAt(const TimelineScene &scene, int m, int64_t localT)
{
    const TrackModel &tm = scene.model(m);
    const EventTrack &t = tm.track();
    for (int d = tm.depthCount() - 1; d >= 0; --d) {
        const std::vector<uint32_t> &row = tm.depthRow(d);
        const size_t p = tm.rowLowerBound(d, localT);
        if (p < row.size() && t.localStart[row[p]] <= localT && !(t.flags[row[p]] & EventInstant))
            return {m, int(row[p])};
    }
    return {};
}

double LinkPainter::yAt(const TimelineScene &scene, int m, int64_t localT, double top)
{
    const RowLayout &layout = scene.layout();
    const int w = int(scene.model(m).worker());
    int row = -1;
    if (scene.isCollapsed(w)) {
        row = layout.headerOf(w);
    } else {
        const EventRef e = eventAt(scene, m, localT);
        row = layout.rowOf(m, e.valid() ? scene.model(m).depth(e.index) : 0);
    }
    if (row < 0)
        return std::numeric_limits<double>::quiet_NaN();
    const LayoutRow &r = layout.rows()[size_t(row)];
    return r.y - top + r.height / 2;
}

void LinkPainter::linksOf(const TimelineScene &scene, const EventRef &ref, std::vector<size_t> *out,
                          std::vector<size_t> *in, size_t max, size_t *total, int64_t fromNs,
                          int64_t toNs)
{
    if (!ref.valid())
        return;
    const TrackModel &tm = scene.model(ref.model);
    const EventTrack &t = tm.track();
    const size_t i = size_t(ref.index);
    int64_t a = t.localStart[i], b = t.localEnd[i];
    const sync::ClockMap &map = tm.map(scene.clockMode());
    if (fromNs != std::numeric_limits<int64_t>::min())
        a = std::max(a, map.toLocal(fromNs));
    if (toNs != std::numeric_limits<int64_t>::max())
        b = std::min(b, map.toLocal(toNs));
    if (b < a)
        return;
    // Every endpoint in the event's span whose innermost event is this one (an endpoint inside a
    // child belongs to the child): one search per endpoint, no walk over the children.
    // Without `total`, the scan stops once `max` of each kind are found.
    const size_t scan = total ? std::numeric_limits<size_t>::max() : 4 * max;
    std::vector<size_t> o, n;
    scene.linkIndex().endpointsIn(uint32_t(tm.worker()), uint32_t(tm.trackIndex()), a, b,
                                  scene.clockMode(), scan, &o, &n);
    const LinkIndex &idx = scene.linkIndex();
    auto mine = [&](int64_t localT) { return eventAt(scene, ref.model, localT) == ref; };
    size_t count = 0;
    for (size_t k : o)
        if (mine(idx.ends(k).fromLocal) && ++count && out && out->size() < max)
            out->push_back(k);
    for (size_t k : n)
        if (mine(idx.ends(k).toLocal) && ++count && in && in->size() < max)
            in->push_back(k);
    if (total)
        *total = count;
}

LinkGeometry LinkPainter::compute(const TimelineScene &scene, const LinkRequest &req)
{
    LinkGeometry g;
    const ClockMode mode = scene.clockMode();
    const TimeScale scale = req.scale();
    auto x = [&](int64_t t) { return scale.x(t); };
    // The highlighted collective instance.
    for (const EventRef &h : scene.highlighted()) {
        const TrackModel &tm = scene.model(h.model);
        const int w = int(tm.worker());
        const int row = scene.isCollapsed(w) ? scene.layout().headerOf(w)
                                             : scene.layout().rowOf(h.model, tm.depth(h.index));
        if (row < 0)
            continue;
        const LayoutRow &r = scene.layout().rows()[size_t(row)];
        const double x0 = x(tm.startTime(h.index, mode)), x1 = x(tm.endTime(h.index, mode));
        if (x1 < -2 || x0 > req.width + 2 || r.y - req.top > req.height ||
            r.y + r.height - req.top < 0)
            continue;
        g.highlights.push_back(
            QRectF(x0, r.y - req.top, TimeScale::visibleEnd(x0, x1) - x0, r.height));
    }
    if (!scene.linksVisible())
        return g;
    const LinkIndex &idx = scene.linkIndex();
    // A single link ends on the row of its events; an arrow standing for many (thinned) on the
    // middle of its tracks (its links end on various rows; no search per end).
    auto centre = [&](int m) {
        const auto [a, b] = modelSpan(scene, m);
        return b > a ? (a + b) / 2 - req.top : std::numeric_limits<double>::quiet_NaN();
    };
    auto arrow = [&](size_t k, int64_t count, bool selected) {
        const MessageLink l = idx.link(k);
        const int fm = modelOf(scene, l.fromWorker, l.fromTrack);
        const int tm = modelOf(scene, l.toWorker, l.toTrack);
        const double y0 = count > 1 ? centre(fm) : yAt(scene, fm, l.fromLocal, req.top);
        const double y1 = count > 1 ? centre(tm) : yAt(scene, tm, l.toLocal, req.top);
        if (std::isnan(y0) || std::isnan(y1))
            return;
        LinkArrow a;
        a.from = QPointF(x(idx.fromNs(k, mode)), y0);
        a.to = QPointF(x(idx.toNs(k, mode)), y1);
        a.count = count;
        a.selected = selected;
        a.link = k;
        g.arrows.push_back(a);
        g.linksShown += count;
        g.thinned = g.thinned || count > 1;
    };
    // The selected event's own links first: always drawn.
    if (scene.selected().valid()) {
        std::vector<size_t> out, in;
        // Only what can be on screen: endpoints inside the view (a few hundred at most).
        linksOf(scene, scene.selected(), &out, &in, kMaxSelectedLinks, nullptr, req.rangeStart,
                req.rangeEnd);
        for (size_t k : out)
            arrow(k, 1, true);
        for (size_t k : in)
            arrow(k, 1, true);
    }
    // Visible pairs: both tracks shown, not both entirely above or below the viewport.
    std::vector<const LinkIndex::Pair *> pairs;
    for (const LinkIndex::Pair &p : idx.pairs()) {
        const auto [a0, a1] = modelSpan(scene, modelOf(scene, p.fromWorker, p.fromTrack));
        const auto [b0, b1] = modelSpan(scene, modelOf(scene, p.toWorker, p.toTrack));
        if (a1 <= a0 || b1 <= b0)
            continue;
        const double top = req.top, bottom = req.top + req.height;
        if ((a1 < top && b1 < top) || (a0 > bottom && b0 > bottom))
            continue;
        pairs.push_back(&p);
    }
    if (pairs.empty())
        return g;
    // Each pair's share of the ink: its arrows are about as long as the distance between its
    // tracks and its typical latency on screen; long arrows get wider columns.
    auto columnsOf = [&](const LinkIndex::Pair &p) {
        const double dy = std::abs(centre(modelOf(scene, p.fromWorker, p.fromTrack)) -
                                   centre(modelOf(scene, p.toWorker, p.toTrack)));
        const int s = mode == ClockMode::Raw ? 1 : 0;
        const double dx = std::min(
            req.width, std::abs(scale.px(double(p.minDelta[s]) / 2 + double(p.maxDelta[s]) / 2)));
        const double len = std::max(8.0, std::hypot(dx, dy));
        const double quota = std::clamp(kInkPx / (len * double(pairs.size())), double(kMinPerPair),
                                        double(kMaxArrows) / double(pairs.size()));
        const double columnPx = std::max(kColumnPx, req.width / std::max(1.0, quota));
        return std::max<int64_t>(1, scale.ns(columnPx));
    };
    const int64_t t0 = req.rangeStart, t1 = req.rangeEnd;
    int budget = kMaxArrows;
    for (const LinkIndex::Pair *p : pairs) {
        const int64_t columnNs = columnsOf(*p);
        auto [k, last] = idx.candidates(*p, t0, t1, mode);
        while (k < last && budget > 0) {
            const int64_t s = idx.fromNs(*p, k, mode);
            // Off-screen sends: columns grow with the distance (a few steps for long links).
            // Within a view width of the edges, columns as on screen.
            int64_t step = columnNs;
            if (t0 - s > t1 - t0)
                step = std::max(step, (t0 - s) / 2);
            else if (s - t1 > t1 - t0)
                step = std::max(step, (s - t1) / 2);
            const int64_t columnEnd =
                s < t0 || s > t1 ? s + step : t0 + ((s - t0) / columnNs + 1) * columnNs;
            const size_t next = std::max(k + 1, idx.seek(*p, k + 1, columnEnd, mode));
            if (idx.meets(*p, k, t0, t1, mode)) {
                arrow(k, int64_t(next - k), false);
                --budget;
            }
            k = next;
        }
    }
    return g;
}

void LinkPainter::paint(QPainter &p, const LinkGeometry &g, const ViewStyle &style)
{
    if (g.highlights.empty() && g.arrows.empty())
        return;
    p.save();
    if (!g.highlights.empty()) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(0xe0, 0x8a, 0x00), 2));
        for (const QRectF &r : g.highlights)
            p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    // Thin cosmetic lines in one call per kind (a wide or antialiased pen costs ~10x a frame's
    // worth at a thousand arrows); heads only when there are few arrows.
    // Opaque (pre-mixed with the background): blending every pixel of long lines is the cost.
    const QColor ink = style.dark ? QColor(230, 230, 235) : QColor(40, 44, 52);
    const double k = g.thinned ? 0.5 : 0.8;
    const QColor bg = style.background;
    const QColor normal(int(ink.red() * k + bg.red() * (1 - k)),
                        int(ink.green() * k + bg.green() * (1 - k)),
                        int(ink.blue() * k + bg.blue() * (1 - k)));
    const bool heads = g.arrows.size() <= 300;
    std::vector<QLineF> lines, selected;
    lines.reserve(g.arrows.size());
    for (const LinkArrow &a : g.arrows)
        (a.selected ? selected : lines).emplace_back(a.from, a.to);
    p.setRenderHint(QPainter::Antialiasing, heads);
    p.setPen(QPen(normal, 0));
    p.drawLines(lines.data(), int(lines.size()));
    p.setPen(QPen(style.selection, 2));
    p.drawLines(selected.data(), int(selected.size()));
    for (const LinkArrow &a : g.arrows) {
        if (!heads && !a.selected)
            continue;
        const QPointF d = a.to - a.from;
        const double len = std::hypot(d.x(), d.y());
        if (len < 6)
            continue;
        const QPointF u = d / len, n(-u.y(), u.x());
        const QPointF b = a.to - u * 7.0;
        const QPointF head[3] = {a.to, b + n * 3.0, b - n * 3.0};
        p.setPen(Qt::NoPen);
        p.setBrush(a.selected ? style.selection : normal);
        p.drawPolygon(head, 3);
    }
    p.restore();
}

} // namespace syncline::ui
