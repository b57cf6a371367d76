#include "culpritmarks.h"

#include "timelinegeometry.h"
#include "timelinescene.h"

#include "timeline/report/diagnosis.h"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cstdlib>

namespace syncline::ui {

namespace {

constexpr int64_t kMatchNs = 1000; // a collective beginning within 1 µs of the arrival is it
constexpr int kMaxWalk = 64;       // events looked at backwards from the arrival, per thread

// The collective event of `worker` beginning at global t: its row and name.
CulpritMark findEvent(const TimelineScene &scene, int worker, int64_t t)
{
    CulpritMark mark;
    mark.timeNs = t;
    const ClockMode mode = scene.clockMode();
    const Timeline &tl = scene.timeline();
    int64_t bestGap = kMatchNs + 1;
    const auto [first, last] = scene.modelsOf(worker);
    for (int mi = first; mi < last; ++mi) {
        const TrackModel &m = scene.model(mi);
        int i = m.lastIndex(t + kMatchNs, mode);
        for (int steps = 0; i >= 0 && steps < kMaxWalk; --i, ++steps) {
            const int64_t s = m.startTime(i, mode);
            if (s < t - kMatchNs)
                break;
            const NameKind *kind = tl.kindOf(m.nameId(i));
            const int64_t gap = std::abs(s - t);
            if (kind && kind->collective && gap < bestGap) {
                bestGap = gap;
                mark.model = mi;
                mark.depth = m.depth(i);
                mark.nameId = m.nameId(i);
            }
        }
    }
    return mark;
}

} // namespace

CulpritMarks CulpritMarks::build(const TimelineScene &scene, const Diagnosis &d)
{
    CulpritMarks c;
    c.m_mode = d.mode;
    const Timeline &tl = scene.timeline();
    const size_t workers = tl.workers.size();
    c.m_marks.resize(workers);
    c.m_culprit.assign(workers, 0);
    for (size_t k : d.culprits) {
        if (k >= d.ranks.size())
            continue;
        for (size_t w = 0; w < workers; ++w)
            if (tl.workers[w].info.rank == d.ranks[k].rank)
                c.m_culprit[w] = 1;
    }
    // Marks for the culprits only: every rank is last somewhere now and then, and marks on all
    // of them would say nothing.
    for (size_t w = 0; w < workers && w < d.lastArrivals.size(); ++w) {
        if (!c.m_culprit[w])
            continue;
        std::vector<int64_t> times = d.lastArrivals[w];
        std::sort(times.begin(), times.end());
        c.m_marks[w].reserve(times.size());
        for (int64_t t : times)
            c.m_marks[w].push_back(findEvent(scene, int(w), t));
    }
    return c;
}

const std::vector<CulpritMark> &CulpritMarks::marks(int worker) const
{
    static const std::vector<CulpritMark> none;
    return size_t(worker) < m_marks.size() ? m_marks[size_t(worker)] : none;
}

size_t CulpritMarks::markCount() const
{
    size_t n = 0;
    for (const auto &m : m_marks)
        n += m.size();
    return n;
}

std::vector<PlacedCulpritMark> CulpritMarks::place(const TimelineScene &scene,
                                                   const GeometryRequest &req)
{
    std::vector<PlacedCulpritMark> out;
    const CulpritMarks &c = scene.culpritMarks();
    const TimeScale scale = req.scale();
    if (c.empty() || c.mode() != scene.clockMode() || !scale.valid())
        return out;
    const RowLayout &layout = scene.layout();
    const auto [firstRow, lastRow] = layout.rowsIn(req.top, req.top + req.height);
    for (size_t ri = firstRow; ri < lastRow; ++ri) {
        const LayoutRow &r = layout.rows()[ri];
        if (r.kind == LayoutRow::CounterRow)
            continue;
        const std::vector<CulpritMark> &marks = c.marks(r.worker);
        if (marks.empty())
            continue;
        const auto lo =
            std::lower_bound(marks.begin(), marks.end(), req.rangeStart,
                             [](const CulpritMark &m, int64_t t) { return m.timeNs < t; });
        const auto hi =
            std::upper_bound(lo, marks.end(), req.rangeEnd,
                             [](int64_t t, const CulpritMark &m) { return t < m.timeNs; });
        if (lo == hi || double(hi - lo) * kMinSpacingPx > req.width)
            continue; // none here, or too dense to tell apart at this zoom
        const bool header = r.kind == LayoutRow::GroupHeader;
        for (auto it = lo; it != hi; ++it) {
            const bool onRow = header ? (r.collapsed || it->model < 0)
                                      : (it->model == r.model && it->depth == r.depth);
            if (!onRow)
                continue;
            out.push_back({QPointF(scale.x(it->timeNs), r.y - req.top), r.worker,
                           size_t(it - marks.begin())});
        }
    }
    return out;
}

void CulpritMarks::paint(QPainter &p, const std::vector<PlacedCulpritMark> &marks)
{
    if (marks.empty())
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(QColor(0x7a, 0x0c, 0x0c), 0.8));
    p.setBrush(QColor(0xe0, 0x1e, 0x1e));
    for (const PlacedCulpritMark &m : marks) {
        const QPointF top = m.tip; // the triangle points down into the row from its top edge
        const QPointF pts[3] = {top + QPointF(-kSizePx, 0), top + QPointF(kSizePx, 0),
                                top + QPointF(0, kSizePx * 1.4)};
        p.drawConvexPolygon(pts, 3);
    }
    p.restore();
}

QString CulpritMarks::tooltipAt(const TimelineScene &scene, const GeometryRequest &req, QPointF pos)
{
    for (const PlacedCulpritMark &m : place(scene, req)) {
        if (std::abs(pos.x() - m.tip.x()) > kSizePx + 1 || pos.y() < m.tip.y() - 1 ||
            pos.y() > m.tip.y() + kSizePx * 1.4 + 1)
            continue;
        const CulpritMark &mark = scene.culpritMarks().marks(m.worker)[m.index];
        const QString name =
            mark.model >= 0 ? scene.displayName(mark.nameId) : QStringLiteral("a collective");
        return QCoreApplication::translate("CulpritMarks",
                                           "%1 was last to arrive at %2: the others waited")
            .arg(QString::fromStdString(scene.timeline().workers[size_t(m.worker)].label()), name);
    }
    return {};
}

} // namespace syncline::ui
