// WorkerTableModel — the "Workers" table of an attached (live) job: one row per worker with its
// rank, restart, world size (tells apart two incarnations of one rank and restart count after a
// membership change), host, state (running, silent, finished cleanly, ended without a closing
// record), event records (as the recorder counts them: recordCount), seconds since its log last
// grew (LiveAttachment refreshes every second, so it keeps counting while a worker is quiet),
// file. Sits behind a QSortFilterProxyModel
// (SortRole gives raw numbers); WorkerRole gives the worker index in the Timeline (the row to
// jump to).
// Invariants: rows are copied at refresh() (the model never reads the job later), in the
// Timeline's worker order; a structure change resets the model, anything else is one
// dataChanged over the changed columns.
// Threading: GUI thread.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/model/timeline.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace syncline::ui {

class WorkerTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Rank,
        Restart,
        World,
        Host,
        State,
        Events,
        LastRecord,
        File,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int WorkerRole = Qt::UserRole + 1;
    static constexpr int StateRole = Qt::UserRole + 2; // WorkerState as int

    struct Row
    {
        int rank = 0;
        int restart = 0;
        int worldSize = 1;
        QString host;
        WorkerState state = WorkerState::Running;
        QString endReason; // LiveWorkerStatus::endReason, shown after the state
        qulonglong events = 0;
        double lastRecordS = 0;
        QString file;
    };

    explicit WorkerTableModel(QObject *parent = nullptr);
    // Rows from the live Timeline and the workers' status (LiveController::workers()).
    void refresh(const Timeline &timeline, const std::vector<LiveWorkerStatus> &workers);
    const Row &row(int r) const { return m_rows[size_t(r)]; }
    int count(WorkerState state) const;
    static QString stateText(WorkerState state);
    // Event records as the recorder counts them (its hb/close "events"): B and E one each.
    static qulonglong recordCount(const Worker &worker);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<Row> m_rows;
};

} // namespace syncline::ui
