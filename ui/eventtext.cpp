#include "eventtext.h"

#include "timeformat.h"

#include "timeline/report/argstree.h"

#include <QStringList>

namespace syncline::ui {

namespace {

QString esc(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString row(const QString &key, const QString &value)
{
    return QStringLiteral("<tr><td style='color:gray;padding-right:8px'>%1</td><td>%2</td></tr>")
        .arg(key, value);
}

QString link(const TimelineScene &scene, int model, int index)
{
    const TrackModel &m = scene.model(model);
    return QStringLiteral("<a href='event:%1:%2'>%3</a> <span style='color:gray'>%4</span>")
        .arg(model)
        .arg(index)
        .arg(scene.displayName(m.nameId(index)).toHtmlEscaped())
        .arg(formatDuration(m.duration(index, scene.clockMode())));
}

// Full precision: seconds with all nine decimals, thousands of ns grouped ("1.234 567 890 s").
QString exactSeconds(int64_t ns)
{
    const QString sign = ns < 0 ? QStringLiteral("−") : QString();
    const uint64_t mag = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const QString frac =
        QStringLiteral("%1").arg(qulonglong(mag % 1000000000u), 9, 10, QLatin1Char('0'));
    return QStringLiteral("%1%2.%3 %4 %5 s")
        .arg(sign)
        .arg(qulonglong(mag / 1000000000u))
        .arg(frac.left(3), frac.mid(3, 3), frac.mid(6, 3));
}

QString summaryRows(const TimelineScene &scene, const EventDetails &d)
{
    QString html;
    html += row(QStringLiteral("worker"), esc(d.workerLabel));
    html += row(QStringLiteral("thread"),
                QString::fromStdString(EventTrack::labelOf(d.threadName, d.tid)).toHtmlEscaped());
    html += row(QStringLiteral("start"), exactSeconds(d.startNs - scene.originNs()));
    html += row(QStringLiteral("end"), exactSeconds(d.endNs - scene.originNs()));
    QString dur = formatDuration(d.endNs - d.startNs) +
                  QStringLiteral(" (%L1 ns)").arg(qlonglong(d.endNs - d.startNs));
    if (d.flags & EventOpen)
        dur += QStringLiteral(" <b>(open: no end recorded, drawn to end of data)</b>");
    html += row(QStringLiteral("duration"), dur);
    html += row(QStringLiteral("local clock"),
                QStringLiteral("%L1 → %L2 ns (the worker's own raw readings)")
                    .arg(qlonglong(d.localStartNs))
                    .arg(qlonglong(d.localEndNs)));
    html += row(QStringLiteral("depth"), QString::number(d.depth));
    const QString flags = flagsText(d.flags);
    if (!flags.isEmpty())
        html += row(QStringLiteral("flags"), flags);
    html += row(QStringLiteral("clock"), clockText(d).toHtmlEscaped());
    return html;
}

// The args as a key/value tree (ArgsTree): one row per member, nested members indented under
// their key; the raw text when it is not a JSON object.
QString argsHtml(const std::string &args)
{
    if (args.empty())
        return {};
    const std::vector<ArgsRow> rows = argsTree(args);
    if (rows.empty())
        return QStringLiteral("<p><b>Args</b><br><code>%1</code></p>").arg(esc(args));
    QString html = QStringLiteral("<p><b>Args</b></p><table>");
    for (const ArgsRow &r : rows)
        html += QStringLiteral("<tr><td style='padding-left:%1px;padding-right:8px;color:gray'>"
                               "%2</td><td>%3</td></tr>")
                    .arg(4 + 14 * r.depth)
                    .arg(esc(r.key), r.container ? QString() : esc(r.value));
    return html + QStringLiteral("</table>");
}

} // namespace

QString flagsText(uint16_t flags)
{
    QStringList out;
    if (flags & EventOpen)
        out << QStringLiteral("open");
    if (flags & EventOverdue)
        out << QStringLiteral("overdue");
    if (flags & EventInstant)
        out << QStringLiteral("instant");
    if (flags & EventInterval)
        out << QStringLiteral("complete (X)");
    return out.join(QStringLiteral(", "));
}

QString clockText(const EventDetails &d)
{
    if (d.rawClock)
        return QStringLiteral("raw clock (no correction applied)");
    QString s = QStringLiteral("%1 applied").arg(formatDuration(d.correctionNs));
    if (d.boundNs > 0)
        s += QStringLiteral(", bound ±%1").arg(formatDuration(d.boundNs));
    else
        s += QStringLiteral(", no guaranteed bound");
    if (d.bandNs > 0)
        s += QStringLiteral(", band ±%1").arg(formatDuration(d.bandNs));
    QStringList flags;
    if (d.segmentFlags & sync::SegExtrapolated)
        flags << QStringLiteral("extrapolated");
    if (d.segmentFlags & sync::SegStepDetected)
        flags << QStringLiteral("clock step");
    if (d.segmentFlags & sync::SegFewSamples)
        flags << QStringLiteral("few samples");
    if (d.segmentFlags & sync::SegRepaired)
        flags << QStringLiteral("causality-repaired");
    if (d.segmentFlags & sync::SegAligned)
        flags << QStringLiteral("aligned on collectives");
    if (d.segmentFlags & sync::SegOtherReference)
        flags << QStringLiteral("synced to another time server");
    if (!flags.isEmpty())
        s += QStringLiteral(" [") + flags.join(QStringLiteral(", ")) + QStringLiteral("]");
    return s;
}

QString eventTooltipHtml(const TimelineScene &scene, const EventRef &ref)
{
    if (!ref.valid())
        return {};
    // Compact (Details has the rest): name and duration, where, and the clock's bound.
    const EventDetails d = scene.model(ref.model).details(ref.index, scene.clockMode());
    QString dur = (d.flags & EventInstant) ? QStringLiteral("instant")
                                           : formatDuration(d.endNs - d.startNs);
    if (d.flags & EventOpen)
        dur += QStringLiteral(" (open)");
    QString thread = QString::fromStdString(d.threadName).toHtmlEscaped();
    thread = thread.isEmpty() ? QString::number(d.tid)
                              : QStringLiteral("%1 (%2)").arg(thread).arg(d.tid);
    return QStringLiteral("<p style='white-space:pre'><b>%1</b>  %2<br>%3 · %4<br>"
                          "<span style='color:gray'>%5</span></p>")
        .arg(esc(d.name), dur, esc(d.workerLabel), thread, clockText(d).toHtmlEscaped());
}

QString eventDetailsHtml(const TimelineScene &scene, const EventRef &ref, int maxChildren)
{
    if (!ref.valid())
        return QStringLiteral("<p style='color:gray'>Click an event to see its details.</p>");
    const TrackModel &m = scene.model(ref.model);
    const EventDetails d = m.details(ref.index, scene.clockMode());
    QString html =
        QStringLiteral("<h3>%1</h3><table>%2</table>").arg(esc(d.name), summaryRows(scene, d)) +
        argsHtml(d.args);
    html += QStringLiteral("<p><b>Parents</b><br>");
    int p = d.parent;
    if (p < 0)
        html += QStringLiteral("<span style='color:gray'>(root)</span>");
    for (int level = 0; p >= 0; p = m.parentIndex(p), ++level)
        html +=
            QString(level * 2, QChar(0x00a0)) + link(scene, ref.model, p) + QStringLiteral("<br>");
    html += QStringLiteral("</p><p><b>Children</b><br>");
    const std::vector<int> kids = m.children(ref.index);
    if (kids.empty())
        html += QStringLiteral("<span style='color:gray'>(none)</span>");
    for (size_t i = 0; i < kids.size() && int(i) < maxChildren; ++i)
        html += link(scene, ref.model, kids[i]) + QStringLiteral("<br>");
    if (int(kids.size()) > maxChildren)
        html += QStringLiteral("… %1 more").arg(kids.size() - size_t(maxChildren));
    html += QStringLiteral("</p>");
    return html;
}

} // namespace syncline::ui
