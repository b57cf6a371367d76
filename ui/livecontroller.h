// LiveController — drives a LiveJob from the GUI event loop, at the pace of the same
// FollowSchedule as the headless LiveFollower: a QSocketNotifier on the DirWatcher's inotify fd
// (or, when polling, a QTimer at the polling interval) asks for a read; LiveJob::ingest() (read +
// parse, the expensive part) runs on a pool thread; when it is done, LiveJob::commit() (merge into
// the Timeline, clocks, worker states) runs here on the GUI thread and `updated` is emitted. The
// schedule's tick (250 ms) commits even when nothing was written, so states (silent, ended) change
// on time, and starts the periodic rescan when it is due. Reads are coalesced: at most one ingest
// in flight and at most one per the schedule's minimum read interval.
// The only UI class that sees LiveJob: everything else uses what it exposes (timeline(),
// nowNs(), workers()) in the types of timeline/live/liveupdate.h.
// Threading: create and use on the GUI thread. The Timeline (timeline()) is mutated only inside
// commit(), on the GUI thread, never while an ingest runs; readers on other threads must use a
// snapshot. The destructor waits for a running ingest.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/model/timeline.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class QSocketNotifier;

namespace syncline {
class DirWatcher;
class LiveJob;
} // namespace syncline

namespace syncline::ui {

class LiveController : public QObject
{
    Q_OBJECT
public:
    LiveController(const LiveOptions &options, const FollowOptions &follow,
                   QObject *parent = nullptr);
    ~LiveController() override;

    // "" when following started; else why not (no such directory).
    QString error() const;
    // The live Timeline (shared with the window, mutated by each commit on this thread).
    std::shared_ptr<Timeline> timeline() const;
    int64_t nowNs() const; // latest corrected time, global ns
    // Every worker's state as of the last commit, in the Timeline's worker order.
    const std::vector<LiveWorkerStatus> &workers() const { return m_workers; }
    WatchMode watchMode() const;
    bool isBusy() const { return m_busy; }

signals:
    void updated(const syncline::LiveUpdate &update);

private:
    void request();
    void startIngest();
    void ingestDone();
    void tick();
    void publish(const LiveUpdate &u);
    void watchNewDirectories();

    std::unique_ptr<LiveJob> m_job;
    std::unique_ptr<DirWatcher> m_watcher;
    FollowSchedule m_schedule;
    std::vector<LiveWorkerStatus> m_workers;
    QSocketNotifier *m_notifier = nullptr;
    QTimer m_tick;
    QTimer m_poll;
    QTimer m_coalesce;
    QFutureWatcher<int64_t> m_future;
    bool m_busy = false;
    bool m_again = false;
};

} // namespace syncline::ui
