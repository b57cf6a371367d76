#include "clocktablemodel.h"

#include "timeformat.h"

#include <QColor>
#include <QStringList>

#include <cstdlib>

namespace syncline::ui {

ClockTableModel::ClockTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ClockTableModel::setTimeline(std::shared_ptr<const Timeline> timeline)
{
    beginResetModel();
    m_timeline = std::move(timeline);
    m_relOffset.clear();
    if (m_timeline && !m_timeline->workers.empty()) {
        // At the job's first corrected instant T: correction(w) = T − raw global time of the
        // local instant that corrects to T (what the engine moved w's wall clock by).
        const int64_t t = m_timeline->range(ClockMode::Corrected).begin;
        auto correction = [&](const syncline::Worker &w) {
            const int64_t local = w.map(ClockMode::Corrected).toLocal(t);
            return t - w.map(ClockMode::Raw).toGlobal(local);
        };
        const int64_t ref = correction(m_timeline->workers.front());
        for (const syncline::Worker &w : m_timeline->workers)
            m_relOffset.push_back(correction(w) - ref);
    }
    endResetModel();
}

int64_t ClockTableModel::relativeOffsetNs(int row) const
{
    return row >= 0 && size_t(row) < m_relOffset.size() ? m_relOffset[size_t(row)] : 0;
}

double ClockTableModel::relativeDriftPpm(int row) const
{
    if (!m_timeline || row < 0 || size_t(row) >= m_timeline->workers.size())
        return 0;
    // The corrected map's slope undoes the clock's rate: a clock 40 ppm fast gets drift −40.
    // Shown as the clock's own rate against the reference's (+ = runs faster), like the offset.
    return -(m_timeline->workers[size_t(row)].clock.driftPpm -
             m_timeline->workers.front().clock.driftPpm);
}

int ClockTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_timeline ? 0 : int(m_timeline->workers.size());
}

int ClockTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ClockTableModel::signedDuration(int64_t ns)
{
    if (ns == 0)
        return QStringLiteral("0");
    return (ns < 0 ? QStringLiteral("−") : QStringLiteral("+")) + formatDuration(std::abs(ns));
}

QString ClockTableModel::wallText(const WallClockStatus &s)
{
    switch (s.verdict) {
    case sync::WallVerdict::Consistent:
        return tr("%1 in ±%2%3")
            .arg(signedDuration(s.offsetNs), formatDuration(s.bandNs),
                 s.used ? tr(" · used") : QString());
    case sync::WallVerdict::Outside:
        return tr("%1 outside ±%2").arg(signedDuration(s.offsetNs), formatDuration(s.bandNs));
    case sync::WallVerdict::NoConsensus:
        return tr("%1, no consensus").arg(signedDuration(s.offsetNs));
    case sync::WallVerdict::NoBand:
    case sync::WallVerdict::NoAnchor:
        break;
    }
    return QStringLiteral("—");
}

QString ClockTableModel::flagsText(uint32_t f)
{
    QStringList out;
    if (f & sync::SegExtrapolated)
        out << QStringLiteral("extrapolated");
    if (f & sync::SegStepDetected)
        out << QStringLiteral("clock step");
    if (f & sync::SegFewSamples)
        out << QStringLiteral("few samples");
    if (f & sync::SegRepaired)
        out << QStringLiteral("repaired");
    if (f & sync::SegAligned)
        out << QStringLiteral("aligned");
    if (f & sync::SegOtherReference)
        out << QStringLiteral("other time server");
    return out.join(QStringLiteral(", "));
}

QVariant ClockTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const syncline::Worker &w = m_timeline->workers[size_t(index.row())];
    const sync::WorkerClockResult &c = w.clock;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Worker:
            return QString::fromStdString(w.label());
        case Method:
            return QString::fromLatin1(sync::methodName(c.method));
        case Offset:
            if (index.row() == 0)
                return role == Qt::ToolTipRole ? tr("the reference: other rows are relative to it")
                                               : tr("reference");
            if (role == Qt::ToolTipRole)
                return tr("this worker's clock runs %1 %2 the reference worker's (its wall clock, "
                          "corrected); raw global − local: %3 ns")
                    .arg(formatDuration(std::abs(relativeOffsetNs(index.row())), 6))
                    .arg(relativeOffsetNs(index.row()) > 0 ? tr("behind") : tr("ahead of"))
                    .arg(c.offsetNs);
            return signedDuration(-relativeOffsetNs(index.row()));
        case Drift:
            if (index.row() == 0)
                return tr("reference");
            return QString::asprintf("%+.3f ppm", relativeDriftPpm(index.row()));
        case Bound:
            return c.boundNs > 0 ? QStringLiteral("±") + formatDuration(c.boundNs) : tr("none");
        case Band:
            return c.bandNs > 0 ? QStringLiteral("±") + formatDuration(c.bandNs) : tr("—");
        case Wall:
            if (role == Qt::ToolTipRole)
                return QString::fromStdString(w.wall.reason);
            return wallText(w.wall);
        case Samples:
            return c.sampleCount;
        case Domain:
            return c.domain;
        case Flags:
            return flagsText(c.flags);
        default:
            return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Worker:
            return w.info.rank;
        case Method:
            return int(c.method);
        case Offset:
            return qlonglong(-relativeOffsetNs(index.row()));
        case Drift:
            return relativeDriftPpm(index.row());
        case Bound:
            return qlonglong(c.boundNs);
        case Band:
            return qlonglong(c.bandNs);
        case Wall:
            return qlonglong(w.wall.offsetNs);
        case Samples:
            return c.sampleCount;
        case Domain:
            return c.domain;
        case Flags:
            return c.flags;
        default:
            return {};
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Method &&
        c.method == sync::ClockMethod::None)
        return QColor(0xd93025);
    if (role == Qt::ForegroundRole && index.column() == Wall &&
        (w.wall.verdict == sync::WallVerdict::Outside ||
         w.wall.verdict == sync::WallVerdict::NoConsensus))
        return QColor(0xd93025);
    if (role == Qt::TextAlignmentRole && index.column() >= Offset && index.column() <= Domain)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ClockTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Worker:
        return tr("Worker");
    case Method:
        return tr("Method");
    case Offset:
        return tr("Offset vs ref");
    case Drift:
        return tr("Drift vs ref");
    case Bound:
        return tr("Bound");
    case Band:
        return tr("Band (95 %)");
    case Wall:
        return tr("Wall");
    case Samples:
        return tr("Samples");
    case Domain:
        return tr("Clock domain");
    case Flags:
        return tr("Flags");
    default:
        return {};
    }
}

} // namespace syncline::ui
