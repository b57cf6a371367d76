// ClockTableModel — one row per worker: the clock correction the sync engine found (offset and
// drift relative to the reference worker, guaranteed bound, statistical band, method, sample
// count, flags).
// Offset vs ref: how far this worker's clock reads ahead (+) of the reference worker's (the first
// row, lowest rank) at the job's start — the difference of the corrections the engine applied
// (corrected − raw, raw being the header's wall-clock anchoring): "+3.20 ms" for a host whose
// wall clock is 3.2 ms ahead; 0 for workers on the reference's host. Drift vs ref: how much
// faster (+) this worker's clock runs than the reference's, in ppm (the negated difference of
// the corrected maps' mean drifts, which undo the rates): "+40.0 ppm" for a clock 40 ppm fast. (Not global − local, which on
// monotonic clocks is an epoch minus an uptime and says nothing.)
// Wall: the loader's wall-clock check (Worker::wall) as is — where the host's wall clock falls
// against its corrected clock and its sync band: "+2.1 µs in ±40.0 µs" (consistent; "· used"
// when the job is placed by it, --clock wall), "+3.00 ms outside ±40.0 µs" (red), "—" when it
// cannot be checked; the tooltip gives the reason.
// Invariants: rows follow Timeline::workers order; numbers are raw values under SortRole.
// Threading: GUI thread only.
#pragma once

#include "timeline/model/timeline.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

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
        Wall,
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
    static QString wallText(const syncline::WallClockStatus &wall);
    static QString signedDuration(int64_t ns); // "+3.20 ms", "−12.0 µs", "0"
    // Reference clock minus this worker's, at the job start (ns; sign as documented above is
    // the negation: positive = this worker's clock reads behind).
    int64_t relativeOffsetNs(int row) const;
    double relativeDriftPpm(int row) const;

private:
    std::shared_ptr<const Timeline> m_timeline;
    std::vector<int64_t> m_relOffset; // per row: correction(row) − correction(reference)
};

} // namespace syncline::ui
