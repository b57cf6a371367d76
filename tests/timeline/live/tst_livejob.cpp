// Tests for LiveJob / LiveFile on the files of a job: torn lines, counters, links, incremental
// merge equal to a full load, open events growing and turning overdue, clock refresh moving
// workers by exactly the change in their estimate. The job directory itself (new files, the
// watcher, real live_worker processes): tst_livedirectory.
#include "livejobtest.h"

#include "sync/syncengine.h"
#include "timeline/live/livejob.h"
#include "timeline/load/jobloader.h"

#include <QtTest>

using namespace syncline;

using namespace livetest;

class TstLiveJob : public QObject
{
    Q_OBJECT

private slots:
    void tornLineKeptUntilComplete();
    void countersFollowTheFile();
    void linksFollowTheFiles();
    void streamedEqualsLoaded();
    void openEventsGrowAndTurnOverdue();
    void clockRefreshMovesByEstimateChange();
};

void TstLiveJob::tornLineKeptUntilComplete()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/w.0.log";
    const std::string b = testlogs::begin(5000, 1, "forward", "{\"step\":12}");
    testlogs::write(log, testlogs::header(0) + b.substr(0, b.size() / 2));
    LiveJob job(options(d));
    QVERIFY(job.fatalError().empty());
    job.poll();
    QCOMPARE(job.workerCount(), size_t(1)); // the header made the worker
    QCOMPARE(job.timeline()->eventCount(), size_t(0));
    append(log, b.substr(b.size() / 2, 3)); // still torn
    job.poll();
    QCOMPARE(job.timeline()->eventCount(), size_t(0));
    append(log, b.substr(b.size() / 2 + 3));
    const LiveUpdate u = job.poll();
    QCOMPARE(u.newEvents, size_t(1));
    const Timeline &tl = *job.timeline();
    const EventTrack &t = tl.workers[0].tracks[0];
    QCOMPARE(t.localStart[0], int64_t(5000));
    QCOMPARE(std::string(tl.names.name(t.nameId[0])), std::string("forward"));
    QVERIFY(t.flags[0] & EventOpen);
    QCOMPARE(tl.args[size_t(t.argsId(0))], std::string("{\"step\":12}"));
    QVERIFY(tl.problems.empty()); // a torn line is not an error while it is being written
    append(log, testlogs::end(9000, 1, "forward"));
    QCOMPARE(job.poll().closedEvents, size_t(1));
    QCOMPARE(t.localEnd[0], int64_t(9000));
    QVERIFY(!(t.flags[0] & EventOpen));
}

// Counter records (format 1.1) arrive live: new series appear in (pid, name) order, samples are
// appended as the file grows (a late one re-sorts), min/max follow, and the update says so.
void TstLiveJob::countersFollowTheFile()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/w.0.log";
    auto c = [](int64_t ts, const char *name, const char *v) {
        return "{\"t\":\"C\",\"ts\":" + std::to_string(ts) + ",\"tid\":1,\"name\":\"" + name +
               "\",\"value\":" + v + "}\n";
    };
    testlogs::write(log, testlogs::header(0) + testlogs::begin(5000, 1, "step") +
                             c(5100, "loss", "2.0"));
    LiveJob job(options(d));
    QVERIFY(job.fatalError().empty());
    LiveUpdate u = job.poll();
    const Timeline &tl = *job.timeline();
    QCOMPARE(tl.workers.size(), size_t(1));
    QCOMPARE(tl.workers[0].counters.size(), size_t(1));
    QVERIFY(u.countersChanged && u.newCounters && u.changed());
    append(log, c(5200, "loss", "1.5") + c(5300, "gpu_mem", "4096") + c(5250, "loss", "1.75"));
    u = job.poll();
    QVERIFY(u.countersChanged && u.newCounters);
    const auto &cs = tl.workers[0].counters;
    QCOMPARE(cs.size(), size_t(2));
    QCOMPARE(cs[0].name, std::string("gpu_mem")); // sorted by name
    QCOMPARE(cs[1].localTs, (std::vector<int64_t>{5100, 5200, 5250}));
    QCOMPARE(cs[1].value, (std::vector<double>{2.0, 1.5, 1.75}));
    QCOMPARE(cs[1].minValue, 1.5);
    QCOMPARE(cs[1].maxValue, 2.0);
    append(log, c(5400, "loss", "0.5"));
    u = job.poll();
    QVERIFY(u.countersChanged && !u.newCounters);
    QCOMPARE(cs[1].count(), size_t(4));
    QCOMPARE(cs[1].minValue, 0.5);
    u = job.poll();
    QVERIFY(!u.countersChanged); // nothing new
}

// Message records arriving in growing files become links (Timeline::links, the pairing of
// ClockCorrector::pairMessages) while the job is followed — on the right workers and tracks when a
// new file (rank 0, sorted before rank 1) and a new thread (tid 2, sorted before tid 9) shift the
// indices — and end up exactly as a full load of the finished files.
void TstLiveJob::linksFollowTheFiles()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log0 = d + "/w.0.log", log1 = d + "/w.1.log";
    auto msg = [](int64_t ts, int tid, const char *dir, int peer, const std::string &id) {
        return "{\"t\":\"msg\",\"ts\":" + std::to_string(ts) + ",\"tid\":" + std::to_string(tid) +
               ",\"dir\":\"" + dir + "\",\"peer\":" + std::to_string(peer) + ",\"id\":\"" + id +
               "\"}\n";
    };
    testlogs::write(log1, testlogs::header(1) + testlogs::begin(2000, 9, "step") +
                              msg(2100, 9, "send", 0, "m1"));
    LiveOptions o = options(d);
    o.clockRefreshMs = 0; // every commit may refresh (the test polls only a few times)
    LiveJob job(o);
    LiveUpdate u = job.poll();
    const Timeline &tl = *job.timeline();
    QCOMPARE(tl.workers.size(), size_t(1));
    QVERIFY(tl.links.empty()); // a send without its receive is no link
    auto tidOf = [&](uint32_t w, uint32_t t) { return tl.workers[w].tracks[t].tid; };
    // Rank 0 appears (a new worker before rank 1) and receives m1 on tid 5.
    testlogs::write(log0, testlogs::header(0) + testlogs::begin(2050, 5, "step") +
                              msg(2150, 5, "recv", 1, "m1"));
    u = job.poll();
    QVERIFY(u.structureChanged);
    QVERIFY(u.linksChanged && u.changed());
    QCOMPARE(tl.links.size(), size_t(1));
    MessageLink l = tl.links.at(0);
    QCOMPARE(tl.workers[l.fromWorker].info.rank, 1);
    QCOMPARE(tl.workers[l.toWorker].info.rank, 0);
    QCOMPARE(tidOf(l.fromWorker, l.fromTrack), int64_t(9));
    QCOMPARE(tidOf(l.toWorker, l.toTrack), int64_t(5));
    QCOMPARE(l.fromLocal, int64_t(2100));
    QCOMPARE(l.toLocal, int64_t(2150));
    // Rank 0 answers on tid 5; rank 1 receives on a new thread, tid 2 (its track goes first).
    append(log0, msg(2300, 5, "send", 1, "m2") + testlogs::end(2400, 5, "step"));
    append(log1, testlogs::begin(2310, 2, "recv_loop") + msg(2350, 2, "recv", 0, "m2") +
                     testlogs::end(2360, 2, "recv_loop") + testlogs::end(2500, 9, "step"));
    u = job.poll();
    QVERIFY(u.linksChanged);
    QCOMPARE(tl.links.size(), size_t(2));
    for (size_t i = 0; i < tl.links.size(); ++i) {
        l = tl.links.at(i);
        const bool m1 = l.fromLocal == 2100;
        QCOMPARE(tidOf(l.fromWorker, l.fromTrack), int64_t(m1 ? 9 : 5));
        QCOMPARE(tidOf(l.toWorker, l.toTrack), int64_t(m1 ? 5 : 2));
        QCOMPARE(tl.workers[l.fromWorker].info.rank, m1 ? 1 : 0);
    }
    QVERIFY(!job.poll().linksChanged); // nothing new
    // The same as a full load of the files.
    job.commit(true);
    LoadOptions lo;
    lo.paths = {d};
    const LoadResult full = JobLoader::load(lo);
    QVERIFY2(full.timeline, full.fatalError.c_str());
    QCOMPARE(full.timeline->links.size(), size_t(2));
    QVERIFY(tl.links.toVector() == full.timeline->links.toVector());
}

// A log written in random chunks while LiveJob polls must end up exactly as a full load of the
// finished file: nesting, out-of-order X intervals, instants, args at B and at E, threads.
void TstLiveJob::streamedEqualsLoaded()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/w.3.log";
    std::string text = testlogs::header(3);
    std::mt19937 rng(7);
    int64_t ts = 2000;
    for (int step = 0; step < 300; ++step) {
        const int tid = 1 + step % 3;
        const int64_t s0 = ts;
        text += testlogs::begin(ts, tid, "step", "{\"i\":" + std::to_string(step) + "}");
        text += testlogs::begin(ts += 10, tid, "fwd");
        text += "{\"t\":\"I\",\"ts\":" + std::to_string(ts += 5) +
                ",\"tid\":" + std::to_string(tid) + ",\"name\":\"mark\"}\n";
        text += testlogs::end(ts += 40, tid, "fwd");
        if (step % 4 == 0) // an interval measured elsewhere, written after it ended
            text += testlogs::complete(s0 + 12, 20, tid, "kernel");
        text += "{\"t\":\"E\",\"ts\":" + std::to_string(ts += 10) +
                ",\"tid\":" + std::to_string(tid) +
                ",\"name\":\"step\",\"args\":{\"loss\":" + std::to_string(step % 7) + "}}\n";
        ts += 5 + int64_t(rng() % 20);
    }
    text += "{\"t\":\"close\",\"ts\":" + std::to_string(ts) +
            ",\"events\":1,\"dropped\":0,\"open\":0}\n";
    testlogs::write(log, "");
    LiveJob job(options(d));
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t n = std::min(text.size() - pos, size_t(1 + rng() % 700));
        append(log, text.substr(pos, n));
        pos += n;
        job.poll();
    }
    job.commit(true);
    LoadOptions lo;
    lo.paths = {log};
    const LoadResult full = JobLoader::load(lo);
    QVERIFY2(full.timeline, full.fatalError.c_str());
    const Timeline &a = *job.timeline(), &b = *full.timeline;
    QCOMPARE(a.workers.size(), size_t(1));
    QCOMPARE(a.workers[0].tracks.size(), b.workers[0].tracks.size());
    QCOMPARE(a.eventCount(), b.eventCount());
    for (size_t k = 0; k < b.workers[0].tracks.size(); ++k) {
        const EventTrack &x = a.workers[0].tracks[k], &y = b.workers[0].tracks[k];
        QCOMPARE(x.tid, y.tid);
        for (size_t i = 0; i < std::min(x.count(), y.count()); ++i)
            if (x.parent[i] != y.parent[i] || x.localStart[i] != y.localStart[i] ||
                x.localEnd[i] != y.localEnd[i])
                QFAIL(("track " + std::to_string(k) + " event " + std::to_string(i) + ": live [" +
                       std::to_string(x.localStart[i]) + "," + std::to_string(x.localEnd[i]) +
                       ") parent " + std::to_string(x.parent[i]) + " " +
                       std::string(a.names.name(x.nameId[i])) + ", loaded [" +
                       std::to_string(y.localStart[i]) + "," + std::to_string(y.localEnd[i]) +
                       ") parent " + std::to_string(y.parent[i]) + " " +
                       std::string(b.names.name(y.nameId[i])))
                          .c_str());
        QCOMPARE(x.localStart, y.localStart);
        QCOMPARE(x.localEnd, y.localEnd);
        QCOMPARE(x.parent, y.parent);
        QCOMPARE(x.depth, y.depth);
        QCOMPARE(x.flags, y.flags);
        QCOMPARE(x.maxDepth, y.maxDepth);
        for (size_t i = 0; i < x.count(); ++i) {
            QCOMPARE(a.names.name(x.nameId[i]), b.names.name(y.nameId[i]));
            if (x.argsId(uint32_t(i)) >= 0)
                QCOMPARE(a.args[size_t(x.argsId(uint32_t(i)))],
                         b.args[size_t(y.argsId(uint32_t(i)))]);
        }
    }
    QCOMPARE(job.state(0), WorkerState::Finished);
}

void TstLiveJob::openEventsGrowAndTurnOverdue()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/timer_events.0.log";
    testlogs::write(d + "/timer_config.json",
                    "{\"log_path\":\"timer_events.log\",\"silent_after_s\":30,"
                    "\"event_kinds\":[{\"name\":\"all_reduce\",\"expected_max_ms\":50}]}");
    testlogs::write(log, testlogs::header(0, 0, "elsewhere", 1000, 1700000000000000000LL, "b") +
                             testlogs::begin(1000000, 1, "all_reduce"));
    LiveJob job(options(d));
    job.poll();
    const EventTrack &t = job.timeline()->workers[0].tracks[0];
    QVERIFY(t.flags[0] & EventOpen);
    QVERIFY(!(t.flags[0] & EventOverdue));
    append(log, heartbeat(31000000)); // 30 ms in: grows, not overdue yet
    job.poll();
    QCOMPARE(t.localEnd[0], int64_t(31000001)); // now + 1 ns: contains the present
    QVERIFY(!(t.flags[0] & EventOverdue));
    append(log, heartbeat(52000000)); // 51 ms > 50 ms while still running
    job.poll();
    QCOMPARE(t.localEnd[0], int64_t(52000001));
    QVERIFY(t.flags[0] & EventOpen);
    QVERIFY(t.flags[0] & EventOverdue);
    QCOMPARE(job.state(0), WorkerState::Running);
    QCOMPARE(job.nowNs(), job.timeline()->toGlobal(0, 52000000, ClockMode::Corrected));
    append(log, testlogs::end(40000000, 1, "all_reduce") + heartbeat(60000000));
    job.poll();
    QCOMPARE(t.localEnd[0], int64_t(40000000)); // 39 ms: ended in time after all
    QVERIFY(!(t.flags[0] & (EventOpen | EventOverdue)));
}

// Refreshing the correction must move each worker by exactly the change in its own estimate:
// no re-anchoring of the display scale when the lowest rank's estimate changes.
void TstLiveJob::clockRefreshMovesByEstimateChange()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const int64_t off[2] = {1000000000, -3000000};
    const std::string path[2] = {d + "/w.0.log", d + "/w.1.log"};
    std::vector<sync::ClockSample> samples[2];
    auto addBursts = [&](int from, int to, int64_t extra) {
        for (int r = 0; r < 2; ++r) {
            std::string text;
            for (int burst = from; burst < to; ++burst)
                for (int seq = 0; seq < 4; ++seq) {
                    const int64_t t1 = 10000000 + burst * 100000000LL + seq * 100000;
                    const int64_t o = off[r] + extra * (r + 1);
                    text += syncRecord(burst, seq, t1, o);
                    const int64_t t2 = t1 + o + 20000, t3 = t2 + 1000;
                    samples[r].push_back({t1, t2, t3, t3 - o + 20000, burst, seq});
                }
            append(path[r], text);
        }
    };
    for (int r = 0; r < 2; ++r)
        testlogs::write(path[r], testlogs::header(r, 0, r ? "b" : "a", 1000, 1700000000000000000LL,
                                                  r ? "boot-b" : "boot-a") +
                                     testlogs::begin(50000000, 1, "x") +
                                     testlogs::end(60000000, 1, "x"));
    addBursts(0, 10, 0);
    LiveOptions o = options(d);
    o.clockRefreshMs = 0;
    LiveJob job(o);
    QVERIFY(job.poll().clockChanged);
    auto engine = [&](int r) {
        sync::SyncEngineInput in;
        for (int k = 0; k < 2; ++k) {
            sync::WorkerClockInput wi;
            wi.workerId = k;
            wi.rank = k;
            wi.host = k ? "b" : "a";
            wi.bootId = k ? "boot-b" : "boot-a";
            wi.clockSource = "monotonic_raw";
            wi.refId = "srv";
            wi.samples = samples[k];
            wi.firstLocalNs = 1000;
            wi.lastLocalNs = std::max<int64_t>(60000000, samples[k].back().t4);
            in.workers.push_back(wi);
        }
        return sync::runSyncEngine(in).workers[size_t(r)].map;
    };
    const int64_t x = 1450000000; // inside the later bursts
    const int64_t before0 = job.timeline()->toGlobal(0, x, ClockMode::Corrected),
                  before1 = job.timeline()->toGlobal(1, x, ClockMode::Corrected);
    const sync::ClockMap e0 = engine(0), e1 = engine(1);
    addBursts(10, 20, 2000000); // both estimates change (rank 1 twice as much)
    QVERIFY(job.poll().clockChanged);
    const sync::ClockMap f0 = engine(0), f1 = engine(1);
    const int64_t moved0 = job.timeline()->toGlobal(0, x, ClockMode::Corrected) - before0;
    const int64_t moved1 = job.timeline()->toGlobal(1, x, ClockMode::Corrected) - before1;
    const int64_t change0 = f0.toGlobal(x) - e0.toGlobal(x),
                  change1 = f1.toGlobal(x) - e1.toGlobal(x);
    QVERIFY2(
        change0 != 0 && change1 != change0,
        ("the estimates must change: " + std::to_string(change0) + ", " + std::to_string(change1))
            .c_str());
    QVERIFY2(std::llabs(moved0 - change0) <= 2,
             (std::to_string(moved0) + " vs " + std::to_string(change0)).c_str());
    QVERIFY2(std::llabs(moved1 - change1) <= 2,
             (std::to_string(moved1) + " vs " + std::to_string(change1)).c_str());
}

QTEST_APPLESS_MAIN(TstLiveJob)
#include "tst_livejob.moc"
