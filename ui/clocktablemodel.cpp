#include "clocktablemodel.h"

#include "timeformat.h"

#include <QColor>
#include <QStringList>

namespace syncline::ui {

ClockTableModel::ClockTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void ClockTableModel::setTimeline(std::shared_ptr<const Timeline> timeline)
{
    beginResetModel();
    m_timeline = std::move(timeline);
    endResetModel();
}

int ClockTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_timeline ? 0 : int(m_timeline->workers.size());
}

int ClockTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
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
            return formatDuration(c.offsetNs, 6);
        case Drift:
            return QString::number(c.driftPpm, 'f', 3);
        case Bound:
            return c.boundNs > 0 ? QStringLiteral("±") + formatDuration(c.boundNs) : tr("none");
        case Band:
            return c.bandNs > 0 ? QStringLiteral("±") + formatDuration(c.bandNs) : tr("—");
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
            return qlonglong(c.offsetNs);
        case Drift:
            return c.driftPpm;
        case Bound:
            return qlonglong(c.boundNs);
        case Band:
            return qlonglong(c.bandNs);
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
        return tr("Offset");
    case Drift:
        return tr("Drift (ppm)");
    case Bound:
        return tr("Bound");
    case Band:
        return tr("Band (95 %)");
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
