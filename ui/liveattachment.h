// LiveAttachment — a MainWindow attached to a running job (`syncline attach DIR`, File ▸
// Attach…): a LiveController follows the directory; the window shows the LiveJob's Timeline
// itself (MainWindow::setLiveTimeline) and every commit is applied incrementally
// (MainWindow::liveUpdated → TimelineScene::applyLive, cost ∝ the new events). Only the stats
// panel, which computes off the GUI thread, gets snapshots (copies) of the live Timeline — and
// only while it is visible, at most every max(1 s, 10 × the last copy's cost). A "Workers" dock
// lists each worker's state (activating a row reveals and selects that worker's latest event).
//
// Follow mode (on when attaching): the visible range keeps its width and its right edge at
// "now" (LiveJob::nowNs, the latest corrected time); it turns off as soon as the user pans or
// zooms (any range change not made by the attachment) and comes back with End, keeping the
// width the user chose. Open events grow to now and turn overdue while running (LiveJob).
// The attachment ends when the window loads something else (MainWindow::loadFinished) or is
// replaced by a new attachment.
// Threading: GUI thread only.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/model/timeline.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QObject>
#include <QPointer>
#include <QShortcut>
#include <QTimer>

#include <memory>

class QSortFilterProxyModel;
class QTableView;

namespace syncline::ui {

class LiveController;
class MainWindow;
class WorkerTableModel;

class LiveAttachment : public QObject
{
    Q_OBJECT
public:
    static constexpr int64_t kDefaultFollowWidthNs = 10'000'000'000; // 10 s

    // Attaches `window` to the job directory in options.path; nullptr and *error when the
    // directory cannot be followed.
    static LiveAttachment *attach(MainWindow *window, const LiveOptions &options,
                                  const FollowOptions &follow, QString *error);
    // File ▸ Attach…: asks for a directory, then attach().
    static void attachDialog(MainWindow *window);
    ~LiveAttachment() override;

    bool isFollowing() const { return m_following; }
    void setFollowing(bool on);
    void jumpToWorker(int liveWorker); // index in the LiveJob's (and the list's) order
    LiveController *controller() const { return m_controller; }
    WorkerTableModel *workerModel() const { return m_model; }
    QDockWidget *dock() const { return m_dock; }
    QTableView *table() const { return m_table; }
    std::shared_ptr<Timeline> shown() const { return m_shown; } // the live Timeline on screen
    int64_t shownNowNs() const { return m_shownNow; }           // "now" of the last update shown
    int refreshCount() const { return m_refreshes; }
    int statsSnapshotCount() const { return m_statsSnapshots; }

signals:
    void refreshed(); // a new snapshot is on screen

private:
    LiveAttachment(MainWindow *window, const LiveOptions &options, const FollowOptions &follow);
    void onUpdated(const LiveUpdate &update);
    void showUpdate(const LiveUpdate &update);
    void snapshotStats();
    bool statsVisible() const;
    void applyFollow();
    void updateStatus();

    MainWindow *m_window;
    QString m_dir;
    LiveController *m_controller;
    WorkerTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QPointer<QDockWidget> m_dock; // children of the window: may be gone before us
    QTableView *m_table;
    QPointer<QLabel> m_status;
    QPointer<QShortcut> m_end;
    QTimer m_statsTimer;
    QTimer m_tick; // "last record … ago" keeps counting while a worker is quiet
    QElapsedTimer m_sinceStats;
    qint64 m_lastStatsCostMs = 0;
    bool m_statsDirty = false;
    int m_statsSnapshots = 0;
    std::shared_ptr<Timeline> m_shown;
    int64_t m_shownNow = 0;
    bool m_following = true;
    bool m_applying = false;
    int64_t m_followWidthNs = kDefaultFollowWidthNs;
    int m_refreshes = 0;
};

} // namespace syncline::ui
