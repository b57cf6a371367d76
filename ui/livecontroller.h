// LiveController — drives a LiveJob from the GUI event loop: a QSocketNotifier on the
// DirWatcher's inotify fd (or, when polling, a QTimer at the polling interval) asks for a read;
// LiveJob::ingest() (read + parse, the expensive part) runs on a pool thread; when it is done,
// LiveJob::commit() (merge into the Timeline, clocks, worker states) runs here on the GUI
// thread and `updated` is emitted. A 250 ms tick commits even when nothing was written, so
// states (silent, ended) change on time. Reads are coalesced: at most one ingest in flight and
// at most one every kMinIntervalMs.
// Threading: create and use on the GUI thread. The Timeline (job().timeline()) is mutated only
// inside commit(), on the GUI thread, never while an ingest runs; readers on other threads must
// use a snapshot. The destructor waits for a running ingest.
#pragma once

#include "timeline/livefollower.h"
#include "timeline/livejob.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <memory>

class QSocketNotifier;

namespace syncline::ui {

class LiveController : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMinIntervalMs = 50;

    LiveController(const LiveOptions &options, const LiveFollower::Options &follow,
                   QObject *parent = nullptr);
    ~LiveController() override;

    // "" when following started; else why not (no such directory).
    QString error() const { return QString::fromStdString(m_job->fatalError()); }
    LiveJob &job() { return *m_job; }
    const LiveJob &job() const { return *m_job; }
    DirWatcher::Mode watchMode() const { return m_watcher->mode(); }
    bool isBusy() const { return m_busy; }

signals:
    void updated(const syncline::LiveUpdate &update);

private:
    void request(bool rescan);
    void startIngest();
    void ingestDone();
    void tick();
    void watchNewDirectories();

    std::unique_ptr<LiveJob> m_job;
    std::unique_ptr<DirWatcher> m_watcher;
    QSocketNotifier *m_notifier = nullptr;
    QTimer m_tick;
    QTimer m_poll;
    QFutureWatcher<int64_t> m_future;
    bool m_busy = false;
    bool m_again = false;
    bool m_rescan = true;
    qint64 m_lastStartMs = 0;
    qint64 m_lastRescanMs = 0;
};

} // namespace syncline::ui
