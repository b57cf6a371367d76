#include "comparetablemodel.h"

#include "timeformat.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

CompareTableModel::CompareTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void CompareTableModel::setResult(std::shared_ptr<const CompareResult> result, bool perRank)
{
    beginResetModel();
    m_result = std::move(result);
    m_rows.clear();
    if (m_result) {
        // Name groups (the all-ranks row, then its per-rank rows) in Compare's order, then by
        // |impact per step| of the all-ranks row, stably.
        std::vector<std::vector<const CompareRow *>> groups;
        for (const CompareRow &r : m_result->rows) {
            if (!r.rank || groups.empty())
                groups.emplace_back();
            if (perRank || !r.rank)
                groups.back().push_back(&r);
        }
        auto impact = [](const std::vector<const CompareRow *> &g) {
            return g.empty() ? 0 : std::llabs(g.front()->impactNs());
        };
        std::stable_sort(groups.begin(), groups.end(),
                         [&](const auto &x, const auto &y) { return impact(x) > impact(y); });
        for (const auto &g : groups)
            m_rows.insert(m_rows.end(), g.begin(), g.end());
    }
    endResetModel();
}

bool CompareTableModel::hasOneRunRows() const
{
    return std::any_of(m_rows.begin(), m_rows.end(),
                       [](const CompareRow *r) { return r->in != CompareRow::In::Both; });
}

int CompareTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CompareTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString signedDuration(int64_t ns)
{
    return (ns > 0 ? QStringLiteral("+") : QString()) + formatDuration(ns);
}

} // namespace

QVariant CompareTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const CompareRow &r = *m_rows[size_t(index.row())];
    const double ratio = CompareRow::ratio(r.a.totalNs, r.b.totalNs);
    if (role == NameRole)
        return QString::fromStdString(r.name);
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(r.name);
        case Rank:
            return r.rank ? *r.rank : -1;
        case In:
            return int(r.in);
        case Impact:
            return qlonglong(std::llabs(r.impactNs()));
        case CountA:
            return qlonglong(r.a.count);
        case CountB:
            return qlonglong(r.b.count);
        case TotalA:
            return qlonglong(r.a.totalNs);
        case TotalB:
            return qlonglong(r.b.totalNs);
        case DeltaTotal:
            return qlonglong(std::llabs(r.deltaTotalNs()));
        case RatioTotal:
            return std::isnan(ratio) ? 1e300 : ratio;
        case MeanA:
            return qlonglong(r.a.meanNs);
        case MeanB:
            return qlonglong(r.b.meanNs);
        case DeltaMean:
            return qlonglong(std::llabs(r.deltaMeanNs()));
        case DeltaP50:
            return qlonglong(std::llabs(r.deltaP50Ns()));
        case DeltaP99:
            return qlonglong(std::llabs(r.deltaP99Ns()));
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() <= In ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        // Slower in B: red; faster: green (the Δ columns only).
        int64_t d = 0;
        if (index.column() == DeltaTotal)
            d = r.deltaTotalNs();
        else if (index.column() == Impact)
            d = r.impactNs();
        else if (index.column() == DeltaMean)
            d = r.deltaMeanNs();
        else if (index.column() == DeltaP50)
            d = r.deltaP50Ns();
        else if (index.column() == DeltaP99)
            d = r.deltaP99Ns();
        if (d > 0)
            return QBrush(QColor(0xc6, 0x28, 0x28));
        if (d < 0)
            return QBrush(QColor(0x2e, 0x7d, 0x32));
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(r.name);
    case Rank:
        return r.rank ? QString::number(*r.rank) : tr("all");
    case In:
        return r.in == CompareRow::In::Both    ? tr("both")
               : r.in == CompareRow::In::OnlyA ? tr("A only")
                                               : tr("B only");
    case Impact:
        if (role == Qt::ToolTipRole)
            return tr("Δ mean × the smaller count (%1 calls in both runs)")
                .arg(QLocale().toString(qlonglong(std::min(r.a.count, r.b.count))));
        return signedDuration(r.impactNs());
    case CountA:
        return QLocale().toString(qlonglong(r.a.count));
    case CountB:
        return QLocale().toString(qlonglong(r.b.count));
    case TotalA:
        return formatDuration(r.a.totalNs);
    case TotalB:
        return formatDuration(r.b.totalNs);
    case DeltaTotal:
        return signedDuration(r.deltaTotalNs());
    case RatioTotal:
        return std::isnan(ratio) ? QStringLiteral("–")
                                 : QStringLiteral("×%1").arg(ratio, 0, 'f', 3);
    case MeanA:
        return formatDuration(r.a.meanNs);
    case MeanB:
        return formatDuration(r.b.meanNs);
    case DeltaMean:
        return signedDuration(r.deltaMeanNs());
    case DeltaP50:
        return signedDuration(r.deltaP50Ns());
    case DeltaP99:
        return signedDuration(r.deltaP99Ns());
    }
    return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[] = {"Name",    "Rank",    "In",      "Impact",  "Count A",
                                  "Count B", "Total A", "Total B", "Δ Total", "Ratio",
                                  "Mean A",  "Mean B",  "Δ Mean",  "Δ p50",   "Δ p99"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace syncline::ui
