// StatsTableModel — the per-name duration table (count, total, mean, p50, p95, p99, max) over
// syncline::Stats rows; sits behind a QSortFilterProxyModel (sorting uses SortRole = raw int64).
// Invariants: one row per name (the all-ranks StatsRow) — per name and run in a comparison of two
// runs (StatsRow::run "A" / "B", shown in the Run column, hasRuns()); times in ns, displayed
// formatted.
// Threading: GUI thread; rows are computed elsewhere (StatsPanel, off the GUI thread).
#pragma once

#include "timeline/report/stats.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace syncline::ui {

class StatsTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Count,
        Total,
        Mean,
        P50,
        P95,
        P99,
        Max,
        Run, // "A" / "B" in a comparison (StatsPanel hides it otherwise)
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int NameIdRole = Qt::UserRole + 1;
    static constexpr int RunRole = Qt::UserRole + 2; // the row's run (QString, "" for one job)

    explicit StatsTableModel(QObject *parent = nullptr);
    // Keeps rows with rank == nullopt; `timeline` resolves names (may be null to clear).
    void setRows(std::shared_ptr<const Timeline> timeline, const std::vector<StatsRow> &rows);
    const StatsRow &row(int r) const { return m_rows[size_t(r)]; }
    bool hasRuns() const { return m_hasRuns; } // rows of a comparison (a run on every row)

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Timeline> m_timeline;
    std::vector<StatsRow> m_rows;
    bool m_hasRuns = false;
};

} // namespace syncline::ui
