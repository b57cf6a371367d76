#include "linktext.h"

#include "linkpainter.h"
#include "timeformat.h"

#include <algorithm>
#include <vector>

namespace syncline::ui {

namespace {

QString trackLabel(const TimelineScene &scene, uint32_t worker, uint32_t track)
{
    const Worker &w = scene.timeline().workers[worker];
    const EventTrack &t = w.tracks[track];
    const QString thread = t.threadName.empty()
                               ? QStringLiteral("tid %1").arg(t.tid)
                               : QString::fromStdString(t.threadName).toHtmlEscaped();
    return QStringLiteral("rank %1 · %2").arg(w.info.rank).arg(thread);
}

QString signedDuration(int64_t ns)
{
    return (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + formatDuration(ns < 0 ? -ns : ns);
}

} // namespace

QString linkDetailsHtml(const TimelineScene &scene, const EventRef &ref, int maxLinks)
{
    if (!ref.valid() || scene.linkIndex().size() == 0)
        return {};
    std::vector<size_t> out, in;
    size_t total = 0;
    LinkPainter::linksOf(scene, ref, &out, &in, size_t(maxLinks), &total);
    if (total == 0)
        return {};
    const LinkIndex &idx = scene.linkIndex();
    const ClockMode mode = scene.clockMode();
    QString html =
        QStringLiteral("<p><b>Links</b> <span style='color:gray'>(%1)</span><br>").arg(total);
    auto kind = [](const MessageLink &l) {
        return l.kind == MessageLink::Flow ? QStringLiteral("flow") : QStringLiteral("msg");
    };
    for (size_t k : out) {
        const MessageLink l = idx.link(k);
        html += QStringLiteral("→ <a href='link:%1:to'>%2</a> <span style='color:gray'>%3, "
                               "arrives %4</span><br>")
                    .arg(k)
                    .arg(trackLabel(scene, l.toWorker, l.toTrack), kind(l),
                         signedDuration(idx.toNs(k, mode) - idx.fromNs(k, mode)));
    }
    for (size_t k : in) {
        const MessageLink l = idx.link(k);
        html += QStringLiteral("← <a href='link:%1:from'>%2</a> <span style='color:gray'>%3, "
                               "sent %4</span><br>")
                    .arg(k)
                    .arg(trackLabel(scene, l.fromWorker, l.fromTrack), kind(l),
                         signedDuration(idx.fromNs(k, mode) - idx.toNs(k, mode)));
    }
    if (total > out.size() + in.size())
        html += QStringLiteral("… %1 more").arg(total - out.size() - in.size());
    return html + QStringLiteral("</p>");
}

QString spreadHtml(const TimelineScene &scene, const CollectiveSpread &s)
{
    if (s.members.empty())
        return {};
    const auto &lb = s.members[size_t(s.lastBegin)], &fb = s.members[size_t(s.firstBegin)];
    const auto &le = s.members[size_t(s.lastEnd)], &fe = s.members[size_t(s.firstEnd)];
    QString html = QStringLiteral("<p><b>Collective instance</b> %1 #%2 on %3 ranks<br>")
                       .arg(scene.displayName(s.nameId).toHtmlEscaped())
                       .arg(s.instance)
                       .arg(s.members.size());
    html += QStringLiteral("begin spread <b>%1</b> (rank %2 began last: everyone waited for "
                           "rank %2; first: rank %3)<br>")
                .arg(formatDuration(s.beginSpreadNs()))
                .arg(lb.rank)
                .arg(fb.rank);
    html += QStringLiteral("end spread <b>%1</b> (rank %2 ended last, rank %3 first)<br>")
                .arg(formatDuration(s.endSpreadNs()))
                .arg(le.rank)
                .arg(fe.rank);
    // Latest begin first: the rank everyone waited for heads the list.
    std::vector<const CollectiveSpread::Member *> late;
    for (const CollectiveSpread::Member &m : s.members)
        late.push_back(&m);
    std::stable_sort(late.begin(), late.end(),
                     [](const auto *a, const auto *b) { return a->beginNs > b->beginNs; });
    for (const CollectiveSpread::Member *mp : late) {
        const CollectiveSpread::Member &m = *mp;
        html +=
            QStringLiteral("<a href='event:%1:%2'>rank %3</a> <span style='color:gray'>begins "
                           "%4, ends %5</span><br>")
                .arg(m.ref.model)
                .arg(m.ref.index)
                .arg(m.rank)
                .arg(signedDuration(m.beginNs - fb.beginNs), signedDuration(m.endNs - fe.endNs));
    }
    return html + QStringLiteral("</p>");
}

} // namespace syncline::ui
