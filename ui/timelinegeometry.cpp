#include "timelinegeometry.h"

#include <algorithm>
#include <cmath>

namespace syncline::ui {

namespace {

// Maps local ↔ global along one row with a segment cursor: the row walks forward in time, so
// finding the segment is amortised O(1) instead of a binary search per call. Same formula as
// ClockMap (global = globalStart + d + round((slope - 1)·d)); used for drawing only — hit-testing
// and the details use the model's exact mapping.
class MapCursor
{
public:
    explicit MapCursor(const sync::ClockMap &map) : m_segs(map.segments()) {}

    int64_t toGlobal(int64_t local)
    {
        if (m_segs.empty())
            return local;
        while (m_i + 1 < m_segs.size() && m_segs[m_i + 1].localStart <= local)
            ++m_i;
        while (m_i > 0 && m_segs[m_i].localStart > local)
            --m_i;
        const sync::ClockSegment &s = m_segs[m_i];
        const int64_t d = local - s.localStart;
        return s.globalStart + d + int64_t(std::llround((s.slope - 1.0) * double(d)));
    }
    int64_t toLocal(int64_t global)
    {
        if (m_segs.empty())
            return global;
        while (m_i + 1 < m_segs.size() && m_segs[m_i + 1].globalStart <= global)
            ++m_i;
        while (m_i > 0 && m_segs[m_i].globalStart > global)
            --m_i;
        const sync::ClockSegment &s = m_segs[m_i];
        return s.localStart + int64_t(std::llround(double(global - s.globalStart) / s.slope));
    }

private:
    const std::vector<sync::ClockSegment> &m_segs;
    size_t m_i = 0;
};

class RowBuilder
{
public:
    RowBuilder(const TimelineScene &scene, const GeometryRequest &req, TimelineGeometry &out,
               std::vector<int> &batchOf, std::vector<int> &foldBatchOf)
        : m_scene(scene), m_req(req), m_out(out), m_batchOf(batchOf), m_foldBatchOf(foldBatchOf),
          m_scale(req.scale())
    {
    }

    void build(int modelIndex, int depth, double y, double h);
    void buildSummary(int worker, double y, double h);

private:
    double xOfLocal(int64_t local) { return m_scale.x(m_cursor->toGlobal(local)); }
    void emitEvent(uint32_t e, double x0, double x1);
    void addFold(double x0, double x1, size_t p, size_t q);
    void flushFold();
    void addWaitShares(FoldBlock &fold);
    void waitAt(int column, int64_t *local, int64_t *waitNs);
    void addSegment(double x0, double x1, uint32_t name, bool dimmed);
    void flushSegment();
    void addMark(double x0, double x1);
    void flushMark();

    const TimelineScene &m_scene;
    const GeometryRequest &m_req;
    TimelineGeometry &m_out;
    std::vector<int> &m_batchOf;
    std::vector<int> &m_foldBatchOf;
    TimeScale m_scale;
    const TrackModel *m_model = nullptr;
    const sync::ClockMap *m_map = nullptr;
    MapCursor *m_cursor = nullptr;
    int m_modelIndex = 0;
    double m_y = 0;
    double m_h = 0;
    bool m_foldOpen = false;
    double m_foldX0 = 0;
    double m_foldX1 = 0;
    int64_t m_foldCount = 0;
    int m_depth = 0;
    std::vector<std::pair<uint32_t, double>> m_tally; // the open block: px per window name
    bool m_segOpen = false;
    double m_segX0 = 0;
    double m_segX1 = 0;
    int m_segColour = 0;
    bool m_segDimmed = false;
    uint32_t m_segName = 0;
    bool m_summary = false; // building a collapsed group's summary (labels on long segments)
    bool m_markOpen = false;
    double m_markX0 = 0;
    double m_markX1 = 0;
    // Per px column boundary of the current model: local time and wait ns before it, computed
    // once per model however many of its rows fold there (they all show the thread's share).
    int m_waitModel = -1;
    size_t m_waitHint = 0;
    std::vector<char> m_haveWaitAt;
    std::vector<int64_t> m_localAt;
    std::vector<int64_t> m_waitNsAt;
};

QRectF clipped(double x0, double x1, double y, double h, double width)
{
    x0 = std::max(x0, -2.0);
    x1 = std::min(x1, width + 2.0);
    return QRectF(x0, y, std::max(x1 - x0, 1.0), h);
}

void RowBuilder::emitEvent(uint32_t e, double x0, double x1)
{
    const EventTrack &t = m_model->track();
    const uint32_t name = t.nameId[e];
    if (!m_scene.nameVisible(name))
        return;
    const uint16_t flags = t.flags[e];
    const bool dimmed = !m_scene.eventMatches(m_modelIndex, int(e));
    if (flags & EventInstant) {
        m_out.instants.emplace_back(x0, m_y + m_h / 2);
        ++m_out.eventsDrawn;
        return;
    }
    // A 1 px gap on the right separates neighbours once there is room for it.
    const double w = x1 - x0;
    QRectF r = clipped(x0, w >= 5 ? x1 - 1 : x1, m_y, m_h, m_req.width);
    const int colour = m_scene.colours().colourIndex(name);
    const size_t key = size_t(colour * 2 + (dimmed ? 1 : 0));
    if (m_batchOf[key] < 0) {
        m_batchOf[key] = int(m_out.batches.size());
        m_out.batches.push_back({colour, dimmed, {}});
    }
    m_out.batches[size_t(m_batchOf[key])].rects.push_back(r);
    ++m_out.eventsDrawn;
    if (flags & EventOpen)
        m_out.openRects.push_back(r);
    if (flags & EventOverdue)
        m_out.overdueRects.push_back(r);
    if (r.width() >= kLabelMinPx)
        m_out.labels.push_back({r, name, dimmed});
    const EventRef sel = m_scene.selected();
    if (sel.model == m_modelIndex && sel.index == int(e))
        m_out.selectedRect = r;
}

// One fold window: events [p, q) of the row between x0 and x1. Its colour is the window's
// dominant name; it joins the open block when they touch.
void RowBuilder::addFold(double x0, double x1, size_t p, size_t q)
{
    const int64_t n = int64_t(q - p);
    if (!(m_foldOpen && x0 <= m_foldX1 + 1.0)) {
        flushFold();
        m_foldOpen = true;
        m_foldX0 = x0;
        m_foldX1 = x1;
        m_foldCount = n;
    } else {
        m_foldX1 = std::max(m_foldX1, x1);
        m_foldCount += n;
    }
    uint32_t name = 0;
    if (!dominantName(m_scene, m_modelIndex, m_depth, p, q, &name))
        return;
    const bool matched = m_scene.searchActive() && m_scene.matchIn(m_modelIndex, m_depth, p, q);
    addSegment(x0, TimeScale::visibleEnd(x0, x1), name, m_scene.searchActive() && !matched);
    if (matched)
        addMark(x0, TimeScale::visibleEnd(x0, x1));
    const double w = std::max(x1 - x0, 1.0);
    auto it = std::find_if(m_tally.begin(), m_tally.end(),
                           [name](const auto &e) { return e.first == name; });
    if (it != m_tally.end())
        it->second += w;
    else if (m_tally.size() < 16)
        m_tally.emplace_back(name, w);
}

void RowBuilder::flushFold()
{
    flushSegment();
    flushMark();
    if (!m_foldOpen)
        return;
    m_foldOpen = false;
    m_out.eventsFolded += m_foldCount;
    if (m_tally.empty())
        return; // nothing visible in it (name filter)
    const auto best =
        std::max_element(m_tally.begin(), m_tally.end(),
                         [](const auto &a, const auto &b) { return a.second < b.second; });
    FoldBlock fold;
    fold.rect = clipped(m_foldX0, TimeScale::visibleEnd(m_foldX0, m_foldX1), m_y, m_h, m_req.width);
    fold.count = m_foldCount;
    fold.nameId = best->first;
    if (m_model->hasWaits())
        addWaitShares(fold);
    m_out.folds.push_back(std::move(fold));
    m_tally.clear();
}

void RowBuilder::waitAt(int column, int64_t *local, int64_t *waitNs)
{
    if (m_waitModel != m_modelIndex) {
        m_waitModel = m_modelIndex;
        m_waitHint = 0;
        m_haveWaitAt.assign(size_t(std::ceil(m_req.width)) + 1, 0);
        m_localAt.resize(m_haveWaitAt.size());
        m_waitNsAt.resize(m_haveWaitAt.size());
    }
    const size_t c = size_t(column);
    if (!m_haveWaitAt[c]) {
        m_localAt[c] = m_cursor->toLocal(m_scale.timeAt(column));
        m_waitNsAt[c] = m_model->waitNsBefore(m_localAt[c], m_waitHint);
        m_haveWaitAt[c] = 1;
    }
    *local = m_localAt[c];
    *waitNs = m_waitNsAt[c];
}

// Per px column under the block: the wait share of the column's time (local ns through the
// row's clock map), and a bar of that share of the row height from the bottom, merged with its
// neighbours while the rounded height stays the same. One galloping search per column boundary,
// shared by the thread's rows.
void RowBuilder::addWaitShares(FoldBlock &fold)
{
    const int c0 = int(std::floor(std::max(m_foldX0, 0.0)));
    const int c1 = int(std::ceil(std::min(TimeScale::visibleEnd(m_foldX0, m_foldX1), m_req.width)));
    if (c1 <= c0)
        return;
    fold.firstColumn = c0;
    fold.waitShares.resize(size_t(c1 - c0));
    int64_t a = 0, waitA = 0;
    waitAt(c0, &a, &waitA);
    double barX0 = c0, barH = 0;
    const auto flushBar = [&](double x1) {
        if (barH > 0)
            m_out.waitRects.push_back(QRectF(barX0, m_y + m_h - barH, x1 - barX0, barH));
    };
    for (int c = c0; c < c1; ++c) {
        int64_t b = 0, waitB = 0;
        waitAt(c + 1, &b, &waitB);
        const float share = b > a ? float(double(waitB - waitA) / double(b - a)) : 0.f;
        fold.waitShares[size_t(c - c0)] = share;
        const double h = std::round(double(share) * m_h);
        if (h != barH) {
            flushBar(c);
            barX0 = c;
            barH = h;
        }
        a = b;
        waitA = waitB;
    }
    flushBar(c1);
}

void RowBuilder::addSegment(double x0, double x1, uint32_t name, bool dimmed)
{
    const int colour = m_scene.colours().colourIndex(name);
    if (m_segOpen && colour == m_segColour && dimmed == m_segDimmed && x0 <= m_segX1 + 1.0) {
        m_segX1 = std::max(m_segX1, x1);
        return;
    }
    flushSegment();
    m_segOpen = true;
    m_segX0 = x0;
    m_segX1 = x1;
    m_segColour = colour;
    m_segDimmed = dimmed;
    m_segName = name;
}

void RowBuilder::flushSegment()
{
    if (!m_segOpen)
        return;
    m_segOpen = false;
    const QRectF r = clipped(m_segX0, m_segX1, m_y, m_h, m_req.width);
    const size_t key = size_t(m_segColour * 2 + (m_segDimmed ? 1 : 0));
    if (m_foldBatchOf[key] < 0) {
        m_foldBatchOf[key] = int(m_out.foldBatches.size());
        m_out.foldBatches.push_back({m_segColour, m_segDimmed, {}});
    }
    m_out.foldBatches[size_t(m_foldBatchOf[key])].rects.push_back(r);
    if (m_summary && r.width() >= 2 * kLabelMinPx)
        m_out.labels.push_back({r, m_segName, m_segDimmed});
}

void RowBuilder::addMark(double x0, double x1)
{
    if (m_markOpen && x0 <= m_markX1 + 1.0) {
        m_markX1 = std::max(m_markX1, x1);
        return;
    }
    flushMark();
    m_markOpen = true;
    m_markX0 = x0;
    m_markX1 = x1;
}

void RowBuilder::flushMark()
{
    if (!m_markOpen)
        return;
    m_markOpen = false;
    m_out.matchMarks.push_back(clipped(m_markX0, m_markX1, m_y, m_h, m_req.width));
}

// A collapsed group: per pixel, the innermost visible event of any of the worker's threads.
void RowBuilder::buildSummary(int worker, double y, double h)
{
    m_y = y;
    m_h = h;
    m_summary = true;
    const bool search = m_scene.searchActive();
    for (int x = 0; x < int(std::ceil(m_req.width)); ++x) {
        const int64_t t = m_scale.timeAt(x + 0.5); // the column's centre
        const EventRef ref = innermostAt(m_scene, worker, t);
        if (!ref.valid()) {
            flushSegment();
            flushMark();
            continue;
        }
        const uint32_t name = m_scene.model(ref.model).nameId(ref.index);
        const bool lit = !search || m_scene.eventMatches(ref.model, ref.index);
        addSegment(x, x + 1, name, !lit);
        if (search && lit)
            addMark(x, x + 1);
        else
            flushMark();
    }
    flushSegment();
    flushMark();
    m_summary = false;
}

void RowBuilder::build(int modelIndex, int depth, double y, double h)
{
    m_model = &m_scene.model(modelIndex);
    m_modelIndex = modelIndex;
    if (depth >= m_model->depthCount())
        return;
    m_map = &m_model->map(m_scene.clockMode());
    MapCursor cursor(*m_map);
    m_cursor = &cursor;
    m_y = y;
    m_h = h;
    m_depth = depth;
    m_foldOpen = false;
    m_tally.clear();
    const std::vector<uint32_t> &row = m_model->depthRow(depth);
    const std::vector<int64_t> &st = m_model->track().localStart;
    const std::vector<int64_t> &en = m_model->track().localEnd;
    size_t p = m_model->rowLowerBound(depth, m_map->toLocal(m_req.rangeStart) - 1);
    const size_t hi = m_model->rowUpperBound(depth, m_map->toLocal(m_req.rangeEnd) + 1);
    while (p < hi) {
        const uint32_t e = row[p];
        const double x0 = xOfLocal(st[e]);
        const double x1 = xOfLocal(en[e]);
        if (x1 - x0 >= kFoldPx) {
            flushFold();
            emitEvent(e, x0, x1);
            ++p;
            continue;
        }
        // The window: every event starting before pixel x0 + kFoldPx.
        const int64_t limitLocal = cursor.toLocal(m_scale.timeAt(x0 + kFoldPx));
        size_t q = std::min(hi, m_model->rowSeekStart(depth, p + 1, limitLocal));
        if (q - p > 1) {
            const uint32_t last = row[q - 1];
            if (xOfLocal(en[last]) - xOfLocal(st[last]) >= kFoldPx)
                --q; // a wide event closes the window; it is emitted on its own next
        }
        if (q - p == 1 && !(m_foldOpen && x0 <= m_foldX1 + 1.0)) {
            flushFold();
            emitEvent(e, x0, TimeScale::visibleEnd(x0, x1));
        } else {
            addFold(x0, xOfLocal(en[row[q - 1]]), p, q);
        }
        p = q;
    }
    flushFold();
}

} // namespace

size_t TimelineGeometry::primitiveCount() const
{
    size_t n =
        folds.size() + labels.size() + openRects.size() + overdueRects.size() + instants.size();
    for (const ColourBatch &b : batches)
        n += b.rects.size();
    for (const ColourBatch &b : foldBatches)
        n += b.rects.size();
    return n + matchMarks.size() + waitRects.size() + links.arrows.size() +
           links.highlights.size() + culpritMarks.size();
}

TimelineGeometry computeGeometry(const TimelineScene &scene, const GeometryRequest &request)
{
    TimelineGeometry out;
    out.request = request;
    out.revision = scene.revision();
    if (!request.scale().valid())
        return out;
    std::vector<int> batchOf(size_t(scene.colours().colourCount() * 2), -1);
    std::vector<int> foldBatchOf(batchOf.size(), -1);
    RowBuilder builder(scene, request, out, batchOf, foldBatchOf);
    const RowLayout &layout = scene.layout();
    const auto [first, last] = layout.rowsIn(request.top, request.top + request.height);
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = layout.rows()[i];
        const double y = r.y - request.top;
        if (r.kind == LayoutRow::EventRow)
            builder.build(r.model, r.depth, y + 1, r.height - 2);
        else if (r.collapsed && r.model >= 0)
            builder.buildSummary(r.worker, y + 5, r.height - 8); // all its threads
    }
    out.links = LinkPainter::compute(
        scene, {request.rangeStart, request.rangeEnd, request.width, request.top, request.height});
    out.culpritMarks = CulpritMarks::place(scene, request);
    return out;
}

bool dominantName(const TimelineScene &scene, int model, int depth, size_t p, size_t q,
                  uint32_t *nameId)
{
    const TrackModel &m = scene.model(model);
    const std::vector<uint32_t> &row = m.depthRow(depth);
    const EventTrack &t = m.track();
    q = std::min(q, row.size());
    if (p >= q)
        return false;
    // Small windows: exact local ns per visible name (first seen wins a tie).
    auto exact = [&](size_t from, size_t to) {
        std::pair<uint32_t, int64_t> best{0, -1};
        std::vector<std::pair<uint32_t, int64_t>> sum;
        for (size_t k = from; k < to; ++k) {
            const uint32_t e = row[k];
            if (!scene.nameVisible(t.nameId[e]))
                continue;
            const int64_t d = std::max<int64_t>(0, t.localEnd[e] - t.localStart[e]);
            auto it = std::find_if(sum.begin(), sum.end(),
                                   [&](const auto &s) { return s.first == t.nameId[e]; });
            if (it == sum.end())
                it = sum.insert(sum.end(), {t.nameId[e], 0});
            it->second += d;
        }
        for (const auto &s : sum)
            if (s.second > best.second)
                best = s;
        if (best.second >= 0)
            *nameId = best.first;
        return best.second >= 0;
    };
    if (q - p <= kExactFold)
        return exact(p, q);
    // Larger ones: the complete 64-event buckets inside the window, each its dominant name and
    // that name's time (TrackModel::bucketNames, computed once at indexing); the name with the
    // most time wins, the first on a tie. The edges' partial buckets are left out (a window
    // this large holds at least one complete bucket). Buckets whose dominant name the filter
    // hides are skipped.
    const std::vector<TrackModel::BucketName> &buckets = m.bucketNames(depth);
    const size_t bs = TrackModel::bucketSize();
    const size_t k0 = (p + bs - 1) / bs, k1 = std::min(q / bs, buckets.size());
    std::pair<uint32_t, double> hits[8];
    int distinct = 0;
    for (size_t k = k0; k < k1; ++k) {
        const uint32_t name = buckets[k].nameId;
        if (!scene.nameVisible(name))
            continue;
        int j = 0;
        while (j < distinct && hits[j].first != name)
            ++j;
        if (j == distinct) {
            if (distinct == 8)
                continue; // more than 8 names: the first 8 seen compete
            hits[distinct++] = {name, 0};
        }
        hits[j].second += double(buckets[k].ns);
    }
    if (distinct == 0)
        return exact(p, p + kExactFold); // nothing visible in the buckets: the first events
    int best = 0;
    for (int j = 1; j < distinct; ++j)
        if (hits[j].second > hits[best].second)
            best = j;
    *nameId = hits[best].first;
    return true;
}

EventRef innermostAt(const TimelineScene &scene, int worker, int64_t globalT)
{
    EventRef best;
    int bestDepth = -1;
    const auto [first, last] = scene.modelsOf(worker);
    for (int mi = first; mi < last; ++mi) {
        const TrackModel &m = scene.model(mi);
        const int64_t local = m.map(scene.clockMode()).toLocal(globalT);
        const EventTrack &t = m.track();
        for (int d = 0; d < m.depthCount(); ++d) {
            const std::vector<uint32_t> &row = m.depthRow(d);
            const size_t pos = m.rowLowerBound(d, local);
            if (pos >= row.size() || t.localStart[row[pos]] > local)
                break; // nothing here, so nothing deeper either (perfect nesting)
            const uint32_t e = row[pos];
            if (t.localEnd[e] < local)
                break;
            if ((t.flags[e] & EventInstant) || !scene.nameVisible(t.nameId[e]))
                continue; // a hidden parent: its visible children still count
            if (d > bestDepth) {
                bestDepth = d;
                best = {mi, int(e)};
            }
        }
    }
    return best;
}

EventRef hitTest(const TimelineScene &scene, const GeometryRequest &request, QPointF pos)
{
    const RowLayout &layout = scene.layout();
    const int rowIndex = layout.rowAt(pos.y() + request.top);
    const TimeScale scale = request.scale();
    if (rowIndex < 0 || !scale.valid())
        return {};
    const LayoutRow &r = layout.rows()[size_t(rowIndex)];
    if (r.model < 0 || (r.kind == LayoutRow::GroupHeader && !r.collapsed))
        return {};
    if (r.kind == LayoutRow::GroupHeader)
        return innermostAt(scene, r.worker, scale.timeAt(pos.x()));
    const TrackModel &m = scene.model(r.model);
    const int depth = r.depth;
    if (depth >= m.depthCount())
        return {};
    const int64_t tol = std::max<int64_t>(1, scale.ns(1.0) + 1); // the ±1 px tolerance
    const int64_t tNs = scale.timeAt(pos.x());
    const sync::ClockMap &map = m.map(scene.clockMode());
    const std::vector<uint32_t> &row = m.depthRow(depth);
    const std::vector<int64_t> &st = m.track().localStart;
    const int64_t hiLocal = map.toLocal(tNs + tol);
    EventRef best;
    double bestDist = 1.0 + 1e-9;
    size_t p = m.rowLowerBound(depth, map.toLocal(tNs - tol) - 1);
    for (size_t k = p; k < row.size() && k < p + 256 && st[row[k]] <= hiLocal; ++k) {
        const int e = int(row[k]);
        if (!scene.nameVisible(m.nameId(e)))
            continue;
        // Distance in px from the cursor to the event's [start, end] span (0 inside it).
        const double x0 = scale.x(m.startTime(e, scene.clockMode()));
        const double x1 = TimeScale::visibleEnd(x0, scale.x(m.endTime(e, scene.clockMode())));
        const double dist = pos.x() < x0 ? x0 - pos.x() : pos.x() > x1 ? pos.x() - x1 : 0.0;
        if (dist < bestDist) {
            bestDist = dist;
            best = {r.model, e};
            if (dist == 0.0)
                break;
        }
    }
    return best;
}

const TimelineGeometry &GeometryCache::get(const TimelineScene &scene,
                                           const GeometryRequest &request)
{
    if (!m_valid || !(m_geometry.request == request) || m_geometry.revision != scene.revision()) {
        m_geometry = computeGeometry(scene, request);
        m_valid = true;
        ++m_computes;
    }
    return m_geometry;
}

} // namespace syncline::ui
