// ClockTableModel — one row per worker: the clock correction the sync engine found (offset at the
// first event, drift in ppm, guaranteed bound, statistical band, method, sample count, flags).
// Invariants: rows follow Timeline::workers order; numbers are raw values under SortRole.
// Threading: GUI thread only.
#pragma once

#include "timeline/model/timeline.h"

#include <QAbstractTableModel>

#include <memory>

namespace syncline::ui {

class ClockTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        Worker,
        Method,
        Offset,
        Drift,
        Bound,
        Band,
        Samples,
        Domain,
        Flags,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit ClockTableModel(QObject *parent = nullptr);
    void setTimeline(std::shared_ptr<const Timeline> timeline);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    static QString flagsText(uint32_t segmentFlags);

private:
    std::shared_ptr<const Timeline> m_timeline;
};

} // namespace syncline::ui
