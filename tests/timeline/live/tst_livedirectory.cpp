// Tests for LiveJob's job directory: a new file becomes a worker, DirWatcher sees appends (inotify
// and polling), the follower's polling mode, a real job of live_worker processes (events appear,
// SIGSTOP → silent, SIGKILL → ended without a closing record, a new rank mid-run, a clean
// finish), a missing directory, a FIFO in the directory.
#include "livejobtest.h"

#include "timeline/live/dirwatcher.h"
#include "timeline/live/livefollower.h"
#include "timeline/live/livejob.h"

#include <QtTest>

using namespace livetest;

class TstLiveDirectory : public QObject
{
    Q_OBJECT

private slots:
    void newFileBecomesWorker();
    void dirWatcherSeesAppends_data();
    void dirWatcherSeesAppends();
    void followerPollingMode();
    void realWorkers();
    void missingDirectoryIsFatal();
    void fifoInDirectorySkipped();
};


void TstLiveDirectory::newFileBecomesWorker()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/w.1.log", testlogs::header(1) + testlogs::begin(2000, 1, "a"));
    LiveJob job(options(d));
    job.poll();
    QCOMPARE(job.workerCount(), size_t(1));
    testlogs::write(d + "/w.0.log", "");
    QVERIFY(!job.poll().structureChanged); // no record yet: not a worker
    append(d + "/w.0.log", testlogs::header(0));
    const LiveUpdate u = job.poll();
    QVERIFY(u.structureChanged);
    QCOMPARE(job.workerCount(), size_t(2));
    QCOMPARE(job.timeline()->workers[0].info.rank, 0); // kept in rank order
    QCOMPARE(job.timeline()->workers[1].info.rank, 1);
    append(d + "/w.1.log", testlogs::end(3000, 1, "a"));
    job.poll();
    QCOMPARE(job.timeline()->workers[1].tracks[0].localEnd[0], int64_t(3000));
    // An elastic restart of rank 1: a new file, a new worker after the first.
    testlogs::write(d + "/w.1.r1.log", testlogs::header(1, 1) + testlogs::begin(9000, 1, "b"));
    job.poll();
    QCOMPARE(job.workerCount(), size_t(3));
    QCOMPARE(job.timeline()->workers[2].info.restart, 1);
}

void TstLiveDirectory::dirWatcherSeesAppends_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("inotify") << int(DirWatcher::Mode::Inotify);
    QTest::newRow("polling") << int(DirWatcher::Mode::Polling);
}

void TstLiveDirectory::dirWatcherSeesAppends()
{
    QFETCH(int, mode);
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    DirWatcher w(DirWatcher::Mode(mode), 50);
    QCOMPARE(int(w.mode()), mode);
    QVERIFY(w.addDirectory(d));
    if (w.mode() == DirWatcher::Mode::Inotify)
        QVERIFY(w.wait(0).timedOut); // nothing yet
    testlogs::write(d + "/a.log", "x\n");
    DirChanges c = w.wait(5000);
    QVERIFY(c.filesChanged);
    if (w.mode() == DirWatcher::Mode::Inotify) {
        QVERIFY(c.entriesChanged);
        w.drain();
        append(d + "/a.log", "y\n");
        c = w.wait(5000);
        QVERIFY(c.filesChanged);
        QVERIFY(!c.entriesChanged);
    }
    std::string error;
    QVERIFY(!w.addDirectory(d + "/missing", &error) || w.mode() == DirWatcher::Mode::Polling);
}

// The polling fallback (network file systems): appends and new files are seen without inotify.
void TstLiveDirectory::followerPollingMode()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/w.0.log", testlogs::header(0) + testlogs::begin(2000, 1, "a"));
    LiveJob job(options(d));
    LiveFollower::Options fo;
    fo.mode = DirWatcher::Mode::Polling;
    fo.pollIntervalMs = 50;
    LiveFollower follower(job, fo);
    QCOMPARE(follower.watcher().mode(), DirWatcher::Mode::Polling);
    QCOMPARE(follower.watcher().fd(), -1);
    follower.step();
    QCOMPARE(job.timeline()->eventCount(), size_t(1));
    append(d + "/w.0.log", testlogs::end(3000, 1, "a"));
    testlogs::write(d + "/w.1.log", testlogs::header(1) + testlogs::begin(2500, 1, "b"));
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (job.workerCount() < 2 && std::chrono::steady_clock::now() < until)
        follower.step();
    QCOMPARE(job.workerCount(), size_t(2));
    QVERIFY(!(job.timeline()->workers[0].tracks[0].flags[0] & EventOpen));
    QVERIFY(follower.runUntilIdle(0.2)); // nothing more is written: returns
}

void TstLiveDirectory::realWorkers()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json",
                    "{\"log_path\":\"rank{rank}.log\",\"flush_interval_ms\":20,"
                    "\"heartbeat_interval_ms\":100,\"silent_after_s\":1.0,"
                    "\"sync\":{\"enabled\":false}}");
    std::vector<pid_t> pids;
    for (int r = 0; r < 3; ++r)
        pids.push_back(startWorker(d, r, 4));
    auto reap = qScopeGuard([&] {
        for (pid_t p : pids)
            if (p > 0) {
                ::kill(p, SIGCONT);
                ::kill(p, SIGKILL);
                ::waitpid(p, nullptr, 0);
            }
    });
    LiveJob job(options(d));
    QVERIFY(job.fatalError().empty());
    job.poll();
    QCOMPARE(job.silentAfterS(), 1.0);
    auto eventsOf = [&](int rank) {
        const int w = workerOfRank(job, rank);
        return w < 0 ? size_t(0) : job.timeline()->workers[size_t(w)].eventCount();
    };
    QVERIFY2(
        pollUntil(job, [&] { return eventsOf(0) > 20 && eventsOf(1) > 20 && eventsOf(2) > 20; }),
        "events from three running workers");
    for (int r = 0; r < 3; ++r)
        QCOMPARE(job.state(size_t(workerOfRank(job, r))), WorkerState::Running);

    ::kill(pids[1], SIGSTOP); // rank 1 stops: no records, no heartbeats
    QVERIFY2(
        pollUntil(job,
                  [&] { return job.state(size_t(workerOfRank(job, 1))) == WorkerState::Silent; }),
        "a stopped worker is marked silent");
    QCOMPARE(job.state(size_t(workerOfRank(job, 0))), WorkerState::Running);

    ::kill(pids[2], SIGKILL); // rank 2 dies without a close record
    ::waitpid(pids[2], nullptr, 0);
    pids[2] = -1;
    QVERIFY2(pollUntil(job,
                       [&] {
                           return job.state(size_t(workerOfRank(job, 2))) ==
                                  WorkerState::EndedWithoutClose;
                       }),
             "a killed worker ends without a closing record");
    QVERIFY(!job.timeline()->workers[size_t(workerOfRank(job, 2))].info.closedCleanly);

    pids.push_back(startWorker(d, 3, 4)); // a new rank mid-run
    QVERIFY2(pollUntil(job, [&] { return eventsOf(3) > 10; }), "a new rank shows up");

    ::kill(pids[1], SIGCONT);
    QVERIFY2(
        pollUntil(job,
                  [&] { return job.state(size_t(workerOfRank(job, 1))) == WorkerState::Running; }),
        "a resumed worker runs again");

    ::kill(pids[0], SIGTERM); // rank 0 finishes cleanly
    int status = 0;
    ::waitpid(pids[0], &status, 0);
    pids[0] = -1;
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    QVERIFY2(
        pollUntil(job,
                  [&] { return job.state(size_t(workerOfRank(job, 0))) == WorkerState::Finished; }),
        "a closed worker is finished");
    // Every event of a finished worker is closed and nested.
    for (const EventTrack &t : job.timeline()->workers[size_t(workerOfRank(job, 0))].tracks)
        for (size_t i = 0; i < t.count(); ++i) {
            QVERIFY(!(t.flags[i] & EventOpen));
            QVERIFY(t.parent[i] < int32_t(i));
            if (t.parent[i] >= 0)
                QCOMPARE(t.depth[i], uint16_t(t.depth[size_t(t.parent[i])] + 1));
        }
}

void TstLiveDirectory::missingDirectoryIsFatal()
{
    LiveJob job(options("/nonexistent/syncline/job"));
    QVERIFY(job.fatalError().find("no such file or directory") != std::string::npos);
    QCOMPARE(job.poll().newEvents, size_t(0));
}

// A FIFO named like a log: LiveJob must not block in open() on it (attach would then
// ignore SIGINT/SIGTERM); it is skipped with a Warning naming it, and the real log is followed.
void TstLiveDirectory::fifoInDirectorySkipped()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_events.0.log", testlogs::header(0) + testlogs::begin(2000, 1, "a"));
    const std::string fifo = d + "/timer_events.1.log";
    QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
    LiveJob job(options(d));
    std::atomic<bool> done{false};
    std::thread poller([&] {
        job.poll();
        job.poll();
        done = true;
    });
    for (int k = 0; k < 500 && !done; ++k)
        QTest::qSleep(10);
    const bool blocked = !done;
    while (!done) { // release a poll blocked in open(): a writer comes and goes
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            ::close(fd);
        QTest::qSleep(10);
    }
    poller.join();
    QVERIFY2(!blocked, "LiveJob blocked in open() on a FIFO");
    QCOMPARE(job.workerCount(), size_t(1));
    const auto &problems = job.timeline()->problems;
    const auto it = std::find_if(problems.begin(), problems.end(), [&](const LoadProblem &p) {
        return p.file == fifo && p.kind == LoadProblem::Kind::NotRegularFile;
    });
    QVERIFY(it != problems.end());
    QCOMPARE(it->severity, LoadProblem::Severity::Warning);
    QCOMPARE(it->message, std::string("not a regular file (FIFO); skipped")); // the wording
    QCOMPARE(std::count_if(problems.begin(), problems.end(),
                           [&](const LoadProblem &p) { return p.file == fifo; }),
             ptrdiff_t(1)); // reported once, not on every rescan
}

QTEST_APPLESS_MAIN(TstLiveDirectory)
#include "tst_livedirectory.moc"
