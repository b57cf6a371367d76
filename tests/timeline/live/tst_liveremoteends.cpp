// Tests for LiveJob's judgement of workers on another machine (RemoteEnds), with real files and no
// options: a silent worker whose peer still writes stays silent (it may be hung); once the peer
// closes, the silent one is ended, with the reason. Incarnations superseded by a restart, or by a
// re-formed group with the same restart count, are ended with the reason while the new ones run.
#include "livejobtest.h"

#include "timeline/live/livejob.h"

#include <QtTest>

using namespace livetest;

namespace {

// Headers of workers on "node-x" (not this machine: their pids cannot be checked).
std::string remoteHeader(int rank, int restart, int64_t monoNs = 1000, int world = 2)
{
    // One host clock: the wall anchor moves with the monotonic one.
    std::string h =
        testlogs::header(rank, restart, "node-x", monoNs, 1700000000000000000LL + monoNs, "boot-x");
    const std::string from = "\"world_size\":2", to = "\"world_size\":" + std::to_string(world);
    h.replace(h.find(from), from.size(), to);
    return h;
}

std::string closeRecord(int64_t ts)
{
    return "{\"t\":\"close\",\"ts\":" + std::to_string(ts) +
           ",\"events\":1,\"dropped\":0,\"open\":0}\n";
}

int workerOf(const LiveJob &job, int rank, int restart, int world = 2)
{
    const Timeline &tl = *job.timeline();
    for (size_t i = 0; i < tl.workers.size(); ++i)
        if (tl.workers[i].info.rank == rank && tl.workers[i].info.restart == restart &&
            tl.workers[i].info.worldSize == world)
            return int(i);
    return -1;
}

} // namespace

class TstLiveRemoteEnds : public QObject
{
    Q_OBJECT

private slots:
    void silentWorkerEndsWhenItsPeersClose();
    void supersededIncarnationsEnd();
};

void TstLiveRemoteEnds::silentWorkerEndsWhenItsPeersClose()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/w.0.log", remoteHeader(0, 0) + testlogs::complete(2000, 10, 1, "a"));
    testlogs::write(d + "/w.1.log", remoteHeader(1, 0) + testlogs::complete(2000, 10, 1, "a"));
    LiveOptions o = options(d);
    o.silentAfterS = 0.5;
    LiveJob job(o);
    QVERIFY(job.fatalError().empty());
    job.poll();
    QCOMPARE(job.workerCount(), size_t(2));
    // Rank 0 keeps writing (heartbeats), rank 1 does not: rank 1 is silent, and stays so while
    // its peer runs — it may be hung in a collective.
    int64_t ts = 3000;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
    bool sawSilent = false;
    while (std::chrono::steady_clock::now() < until) {
        append(d + "/w.0.log", heartbeat(ts += 1000));
        job.poll();
        const size_t r1 = size_t(workerOf(job, 1, 0));
        QVERIFY(job.state(r1) != WorkerState::EndedWithoutClose);
        sawSilent = sawSilent || job.state(r1) == WorkerState::Silent;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    QVERIFY(sawSilent);
    QCOMPARE(job.state(size_t(workerOf(job, 0, 0))), WorkerState::Running);
    QCOMPARE(job.endReason(size_t(workerOf(job, 1, 0))), std::string());
    // Its peer closes: the job went on to the end without it — ended, with the reason.
    append(d + "/w.0.log", closeRecord(ts + 1000));
    QVERIFY2(pollUntil(job,
                       [&] {
                           return job.state(size_t(workerOf(job, 1, 0))) ==
                                  WorkerState::EndedWithoutClose;
                       }),
             "a silent remote worker whose peers all closed is ended");
    const size_t r1 = size_t(workerOf(job, 1, 0));
    QCOMPARE(job.endReason(r1), std::string("probably crashed: its 1 peer closed while it stayed "
                                            "silent"));
    QCOMPARE(job.status()[r1].endReason, job.endReason(r1));
    QCOMPARE(job.state(size_t(workerOf(job, 0, 0))), WorkerState::Finished);
}

void TstLiveRemoteEnds::supersededIncarnationsEnd()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/w.0.log", remoteHeader(0, 0) + testlogs::complete(2000, 10, 1, "a"));
    testlogs::write(d + "/w.1.log", remoteHeader(1, 0) + testlogs::complete(2000, 10, 1, "a"));
    LiveOptions o = options(d);
    o.silentAfterS = 3600; // never silent here: the supersession alone ends them
    LiveJob job(o);
    job.poll();
    QCOMPARE(job.workerCount(), size_t(2));
    QCOMPARE(job.state(0), WorkerState::Running);
    // torchelastic restarts the group: restart 1 of both ranks appears.
    testlogs::write(d + "/w.0.r1.log",
                    remoteHeader(0, 1, 50000) + testlogs::complete(50100, 10, 1, "a"));
    testlogs::write(d + "/w.1.r1.log",
                    remoteHeader(1, 1, 50000) + testlogs::complete(50100, 10, 1, "a"));
    QVERIFY2(pollUntil(job,
                       [&] {
                           return job.workerCount() == 4 &&
                                  job.state(size_t(workerOf(job, 0, 0))) ==
                                      WorkerState::EndedWithoutClose &&
                                  job.state(size_t(workerOf(job, 1, 0))) ==
                                      WorkerState::EndedWithoutClose;
                       }),
             "superseded incarnations are ended");
    QCOMPARE(job.endReason(size_t(workerOf(job, 0, 0))),
             std::string("probably crashed: restart 1 of rank 0 started"));
    QCOMPARE(job.endReason(size_t(workerOf(job, 1, 0))),
             std::string("probably crashed: restart 1 of rank 1 started"));
    QCOMPARE(job.state(size_t(workerOf(job, 0, 1))), WorkerState::Running);
    QCOMPARE(job.state(size_t(workerOf(job, 1, 1))), WorkerState::Running);
    // A membership change re-forms the group without counting a restart: rank 0, restart 1,
    // world 3 starts after the world-2 incarnation's last record, which is then over.
    testlogs::write(d + "/w.0.m.log",
                    remoteHeader(0, 1, 900000, 3) + testlogs::complete(900100, 10, 1, "a"));
    QVERIFY2(pollUntil(job,
                       [&] {
                           const int w = workerOf(job, 0, 1, 2);
                           return job.workerCount() == 5 &&
                                  job.state(size_t(w)) == WorkerState::EndedWithoutClose;
                       }),
             "an incarnation superseded with the same restart count is ended");
    QCOMPARE(job.endReason(size_t(workerOf(job, 0, 1, 2))),
             std::string("probably crashed: a later incarnation of rank 0 (same restart count, "
                         "the group re-formed) started"));
    QCOMPARE(job.state(size_t(workerOf(job, 0, 1, 3))), WorkerState::Running);
    QCOMPARE(job.state(size_t(workerOf(job, 1, 1))), WorkerState::Running);
}

QTEST_GUILESS_MAIN(TstLiveRemoteEnds)
#include "tst_liveremoteends.moc"
