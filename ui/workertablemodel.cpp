#include "workertablemodel.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

#include <algorithm>

namespace syncline::ui {

WorkerTableModel::WorkerTableModel(QObject *parent) : QAbstractTableModel(parent) {}

QString WorkerTableModel::stateText(WorkerState s)
{
    switch (s) {
    case WorkerState::Running:
        return tr("running");
    case WorkerState::Silent:
        return tr("silent");
    case WorkerState::Finished:
        return tr("finished cleanly");
    case WorkerState::EndedWithoutClose:
        return tr("ended without close");
    }
    return {};
}

// What the recorder writes as event records (B, E, X, I lines; its hb/close "events" also
// counts its thread-name records): a B and its E
// are two records, an X or an instant one, a B still open one.
qulonglong WorkerTableModel::recordCount(const Worker &w)
{
    qulonglong n = 0;
    for (const EventTrack &t : w.tracks)
        for (uint16_t f : t.flags)
            n += (f & (EventInterval | EventInstant | EventOpen)) ? 1 : 2;
    return n;
}

void WorkerTableModel::refresh(const Timeline &tl, const std::vector<LiveWorkerStatus> &workers)
{
    std::vector<Row> rows;
    rows.reserve(workers.size());
    for (size_t i = 0; i < workers.size() && i < tl.workers.size(); ++i) {
        const Worker &w = tl.workers[i];
        Row r;
        r.rank = w.info.rank;
        r.restart = w.info.restart;
        r.worldSize = w.info.worldSize;
        r.host = QString::fromStdString(w.info.host);
        r.state = workers[i].state;
        r.endReason = QString::fromStdString(workers[i].endReason);
        r.events = recordCount(w);
        r.lastRecordS = workers[i].silentForS;
        r.file = QString::fromStdString(workers[i].sourceFile);
        rows.push_back(std::move(r));
    }
    const bool sameShape =
        rows.size() == m_rows.size() &&
        std::equal(rows.begin(), rows.end(), m_rows.begin(), [](auto &a, auto &b) {
            return a.rank == b.rank && a.restart == b.restart && a.file == b.file;
        });
    if (!sameShape) {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    m_rows = std::move(rows);
    if (!m_rows.empty())
        emit dataChanged(index(0, State), index(rowCount() - 1, LastRecord));
}

int WorkerTableModel::count(WorkerState s) const
{
    return int(
        std::count_if(m_rows.begin(), m_rows.end(), [s](const Row &r) { return r.state == s; }));
}

int WorkerTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int WorkerTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkerTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[size_t(index.row())];
    if (role == WorkerRole)
        return index.row();
    if (role == StateRole)
        return int(r.state);
    if (role == Qt::ForegroundRole && index.column() == State) {
        switch (r.state) {
        case WorkerState::Silent:
            return QBrush(QColor(0xd0, 0x7a, 0x00));
        case WorkerState::EndedWithoutClose:
            return QBrush(QColor(0xc0, 0x30, 0x30));
        case WorkerState::Finished:
            return QBrush(QColor(0x40, 0x80, 0x40));
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == File)
        return r.file;
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case Rank:
        return r.rank;
    case Restart:
        return r.restart;
    case World:
        return r.worldSize;
    case Host:
        return r.host;
    case State:
        if (sort)
            return int(r.state);
        return r.endReason.isEmpty() ? stateText(r.state)
                                     : stateText(r.state) + " (" + r.endReason + ")";
    case Events:
        return r.events;
    case LastRecord:
        return sort ? QVariant(r.lastRecordS)
                    : QVariant(QString::number(r.lastRecordS, 'f', 1) + " s");
    case File:
        return sort ? QVariant(r.file) : QVariant(QFileInfo(r.file).fileName());
    default:
        return {};
    }
}

QVariant WorkerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Restart:
        return tr("Restart");
    case World:
        return tr("World");
    case Host:
        return tr("Host");
    case State:
        return tr("State");
    case Events:
        return tr("Records");
    case LastRecord:
        return tr("Last record");
    case File:
        return tr("File");
    default:
        return {};
    }
}

} // namespace syncline::ui
