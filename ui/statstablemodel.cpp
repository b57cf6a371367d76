#include "statstablemodel.h"

#include "timeformat.h"

namespace syncline::ui {

StatsTableModel::StatsTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void StatsTableModel::setRows(std::shared_ptr<const Timeline> timeline,
                              const std::vector<StatsRow> &rows)
{
    beginResetModel();
    m_timeline = std::move(timeline);
    m_rows.clear();
    m_hasRuns = false;
    if (m_timeline) {
        for (const StatsRow &r : rows)
            if (!r.rank) {
                m_rows.push_back(r);
                m_hasRuns = m_hasRuns || !r.run.empty();
            }
    }
    endResetModel();
}

int StatsTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int StatsTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StatsTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const StatsRow &r = m_rows[size_t(index.row())];
    if (role == NameIdRole)
        return uint(r.nameId);
    if (role == RunRole)
        return QString::fromStdString(r.run);
    if (index.column() == Run) {
        if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole)
            return QString::fromStdString(r.run);
        return {};
    }
    const int64_t values[] = {0, r.count, r.totalNs, r.meanNs, r.p50Ns, r.p95Ns, r.p99Ns, r.maxNs};
    if (index.column() == Name) {
        if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole) {
            const std::string_view n = m_timeline->names.name(r.nameId);
            return QString::fromUtf8(n.data(), qsizetype(n.size()));
        }
        return {};
    }
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == Count ? QStringLiteral("%L1").arg(r.count)
                                       : formatDuration(values[index.column()]);
    case SortRole:
        return qlonglong(values[index.column()]);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return QStringLiteral("%1 ns").arg(values[index.column()]);
    default:
        return {};
    }
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Mean:
        return tr("Mean");
    case P50:
        return tr("p50");
    case P95:
        return tr("p95");
    case P99:
        return tr("p99");
    case Max:
        return tr("Max");
    case Run:
        return tr("Run");
    default:
        return {};
    }
}

} // namespace syncline::ui
