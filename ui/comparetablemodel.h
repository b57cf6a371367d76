// CompareTableModel — the Compare panel's table: one row per CompareRow (per name over all
// ranks, and with perRank also per (name, rank)), names in the order of their all-ranks row's
// |impact per step| (CompareRow::impactNs: Δ mean × the smaller count; ties keep Compare's
// |Δ total| order), each name's per-rank rows after it, until a header is clicked; behind a
// QSortFilterProxyModel (SortRole = the raw number; for the Δ columns and Impact its absolute
// value, so a descending sort is by size).
// Columns: Name, Rank ("all" / N), In (both / A only / B only), Impact, Count A, Count B,
// Total A, Total B, Δ Total, Ratio (total B / A), Mean A, Mean B, Δ Mean, Δ p50, Δ p99.
// Threading: GUI thread; the result is computed elsewhere (CompareController, off the GUI thread).
#pragma once

#include "timeline/report/compare.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace syncline::ui {

class CompareTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Rank,
        In,
        Impact,
        CountA,
        CountB,
        TotalA,
        TotalB,
        DeltaTotal,
        RatioTotal,
        MeanA,
        MeanB,
        DeltaMean,
        DeltaP50,
        DeltaP99,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int NameRole = Qt::UserRole + 1; // the event name (QString)

    explicit CompareTableModel(QObject *parent = nullptr);
    // perRank: also the per-rank rows (else only the all-ranks rows). result may be null (clear).
    void setResult(std::shared_ptr<const CompareResult> result, bool perRank);
    const CompareRow &row(int r) const { return *m_rows[size_t(r)]; }
    // Whether any shown row is in one run only (else the In column says nothing).
    bool hasOneRunRows() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const CompareResult> m_result;
    std::vector<const CompareRow *> m_rows;
};

} // namespace syncline::ui
