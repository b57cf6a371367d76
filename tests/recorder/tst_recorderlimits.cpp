// FileTimerClient under load and at its limits, with real files: many threads at once, the
// drop_newest overflow policy, heartbeats and defaults, a full name table. The API is tested in
// tst_filetimerclient.cpp.
#include "../common/loopbackudp.h"
#include "../common/monotonicraw.h"
#include "../common/stderrcapture.h"
#include "logreader.h"
#include "recorder/filetimerclient.h"
#include "recorder/nametable.h"
#include "recorder/timermacros.h"
#include "recordertest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>

#include <climits>

#include <fstream>
#include <set>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace syncline::rec;
using nlohmann::json;
namespace test = syncline::test;
using test::writeConfig;

int disabledMacros(FileTimerClient &client); // tst_filetimerclient_disabled.cpp

class TstRecorderLimits : public QObject
{
    Q_OBJECT
private slots:
    void manyThreads();
    void dropNewest();
    void heartbeatAndDefaults();
    void nameTableFullDropsSoftly();
};

void TstRecorderLimits::manyThreads()
{
    // 8 threads × ~1M records each (B, X, E per iteration), lossless policy.
    QTemporaryDir dir;
    const std::string cfg =
        writeConfig(dir, R"({"overflow": "grow", "buffer_events": 4096, "flush_interval_ms": 50})");
    const std::string logPath = dir.filePath("many.log").toStdString();
    constexpr int kThreads = 8, kIter = 333334;
    RecorderStats stats;
    {
        FileTimerClient client(cfg, logPath);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&client] {
                for (int64_t i = 0; i < kIter; ++i) {
                    client.startEvent("w");
                    client.recordInterval("x", i, i + 1);
                    client.endEvent("w");
                }
            });
        for (auto &t : threads)
            t.join();
        client.close();
        stats = client.stats();
    }
    QCOMPARE(stats.dropped, uint64_t(0));
    QCOMPARE(stats.events, uint64_t(kThreads) * (3 * kIter + 1));
    QCOMPARE(stats.written, stats.events);
    // Too big for a DOM parser in a test budget: an independent field scanner, per line.
    std::ifstream in(logPath);
    std::string line;
    struct PerThread
    {
        int64_t nextX = 0;
        int64_t lastTs = 0;
        int depth = 0;
        int64_t records = 0;
    };
    std::map<int64_t, PerThread> per;
    auto field = [](const std::string &l, const char *key) {
        const size_t p = l.find(key);
        return p == std::string::npos ? int64_t(-1)
                                      : std::strtoll(l.c_str() + p + strlen(key), nullptr, 10);
    };
    int64_t lines = 0, closeEvents = -1, closeDropped = -1;
    bool ordered = true;
    while (std::getline(in, line)) {
        ++lines;
        if (line.rfind("{\"t\":\"close\"", 0) == 0) {
            closeEvents = field(line, "\"events\":");
            closeDropped = field(line, "\"dropped\":");
            continue;
        }
        const int64_t tid = field(line, "\"tid\":");
        if (tid < 0 || line.rfind("{\"t\":\"thread\"", 0) == 0) {
            if (tid >= 0)
                ++per[tid].records;
            continue;
        }
        PerThread &p = per[tid];
        ++p.records;
        const int64_t ts = field(line, "\"ts\":");
        if (line.rfind("{\"t\":\"X\"", 0) == 0) {
            ordered = ordered && ts == p.nextX && p.depth == 1;
            ++p.nextX;
        } else if (line.rfind("{\"t\":\"B\"", 0) == 0) {
            ordered = ordered && p.depth == 0 && ts >= p.lastTs;
            p.depth = 1;
            p.lastTs = ts;
        } else if (line.rfind("{\"t\":\"E\"", 0) == 0) {
            ordered = ordered && p.depth == 1 && ts >= p.lastTs;
            p.depth = 0;
            p.lastTs = ts;
        }
    }
    QVERIFY(ordered);
    QCOMPARE(int(per.size()), kThreads);
    for (const auto &[tid, p] : per) {
        QCOMPARE(p.nextX, int64_t(kIter));
        QCOMPARE(p.records, int64_t(3 * kIter + 1));
        QCOMPARE(p.depth, 0);
    }
    QCOMPARE(closeEvents, int64_t(kThreads) * (3 * kIter + 1));
    QCOMPARE(closeDropped, int64_t(0));
}

void TstRecorderLimits::dropNewest()
{
    QTemporaryDir dir;
    const std::string cfg = writeConfig(dir, R"({"buffer_events": 64, "overflow": "drop_newest"})");
    const std::string logPath = dir.filePath("d.log").toStdString();
    FileTimerClient client(cfg, logPath);
    constexpr int kIter = 20000;
    for (int k = 0; k < kIter; ++k) {
        client.startEvent("outer");
        client.instant("i");
        client.startEvent("inner");
        client.endEvent("inner");
        client.endEvent("outer");
    }
    client.close();
    const RecorderStats s = client.stats();
    QVERIFY(s.dropped > 0);
    QVERIFY(s.bufferFull > 0);
    const testlog::Log log = testlog::read(logPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    const size_t b = log.ofType("B").size(), e = log.ofType("E").size(), i = log.ofType("I").size();
    QCOMPARE(b, e); // a dropped B drops its E; a written B always gets its E
    // Every event is either written or counted as dropped (a B/E pair counts once).
    QCOMPARE(uint64_t(b + i) + s.dropped, uint64_t(3 * kIter));
    const json close = log.ofType("close")[0];
    QCOMPARE(close["dropped"].get<uint64_t>(), s.dropped);
    QCOMPARE(close["events"].get<uint64_t>(), uint64_t(b + e + i + 1));
}

void TstRecorderLimits::heartbeatAndDefaults()
{
    QTemporaryDir dir;
    const std::string cfg = writeConfig(dir, R"({"heartbeat_interval_ms": 10})");
    const std::string logPath = dir.filePath("hb.log").toStdString();
    FileTimerClient client(cfg, logPath);
    client.instant("x");
    QTest::qSleep(200);
    client.flush();
    const testlog::Log live = testlog::read(logPath);
    QVERIFY(live.ofType("close").empty());
    const auto hbs = live.ofType("hb");
    QVERIFY(hbs.size() >= 2);
    int64_t prev = 0;
    for (const auto &hb : hbs) {
        QVERIFY(hb["ts"].get<int64_t>() > prev);
        prev = hb["ts"].get<int64_t>();
        QCOMPARE(hb["dropped"].get<int>(), 0);
        QCOMPARE(hb["buffer_full"].get<int>(), 0);
        QVERIFY(hb.contains("events") && hb.contains("bytes"));
        // The wall clock read with ts (format 1.2): this machine's, a few µs apart at most.
        const int64_t wall = hb["wall_ns"].get<int64_t>(), spread = hb["wall_spread_ns"].get<int64_t>();
        const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
        QVERIFY(spread >= 0 && spread < 1'000'000'000);
        QVERIFY2(wall <= now && wall > now - 60'000'000'000, std::to_string(now - wall).c_str());
    }
    // Pairs of one process: their wall and monotonic differences agree (no drift in 200 ms to
    // speak of; 1 ms leaves room for a preempted read).
    const int64_t dMono = hbs.back()["ts"].get<int64_t>() - hbs.front()["ts"].get<int64_t>();
    const int64_t dWall =
        hbs.back()["wall_ns"].get<int64_t>() - hbs.front()["wall_ns"].get<int64_t>();
    QVERIFY2(std::llabs(dWall - dMono) < 1'000'000, std::to_string(dWall - dMono).c_str());
    QCOMPARE(hbs.back()["events"].get<int>(), 2); // thread + I
    QCOMPARE(live.ofType("I").size(), size_t(1)); // flush() made it visible
    client.close();
    const json close = testlog::read(logPath).ofType("close").at(0);
    QVERIFY(close.contains("wall_ns") && close["wall_spread_ns"].get<int64_t>() >= 0);
}

// More distinct names than the process-wide name table holds: the 16,777,217th
// name threw std::length_error out of startEvent/instant and aborted the host process. Now the
// table stops at NameTable::kMaxNames; a record with a new name is dropped and counted, names
// already known keep working, a begin/end pair with a new name drops both, and stderr says so
// once. In a child process: the table is process-wide and never shrinks.
void TstRecorderLimits::nameTableFullDropsSoftly()
{
    SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN();
    QTemporaryDir dir;
    const std::string cfg = writeConfig(
        dir, R"({"overflow": "grow", "buffer_events": 65536, "flush_interval_ms": 10})");
    const std::string logPath = dir.filePath("names.log").toStdString();
    const int rc = test::inChild([&] {
        test::StderrCapture capture;
        FileTimerClient client(cfg, logPath);
        client.instant("known");
        for (uint32_t i = 0; i < NameTable::kMaxNames; ++i)
            client.instant("n" + std::to_string(i)); // the last ones find the table full
        client.flush();
        const uint64_t dropped = client.stats().dropped;
        if (dropped == 0)
            return false;
        client.instant("brand-new-1");
        client.startEvent("brand-new-2"); // dropped, so is its end: no TimerError
        client.endEvent("brand-new-2");
        client.recordInterval("brand-new-3", 1, 2);
        client.instant("known"); // an interned name still records
        client.flush();
        const RecorderStats s = client.stats();
        client.close();
        const std::string err = capture.text();
        const std::string line = "syncline: more than 1048576 distinct event/thread names in this "
                                 "process; records with a new name are dropped (counted as "
                                 "dropped)\n";
        return s.dropped == dropped + 3 && err == line;
    });
    QCOMPARE(rc, 0);
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    QCOMPARE(log.ofType("B").size(), size_t(0));
    const auto instants = log.ofType("I");
    QVERIFY(instants.size() < size_t(NameTable::kMaxNames) + 2);
    QCOMPARE(instants.back()["name"].get<std::string>(), std::string("known"));
    QVERIFY(log.ofType("X").empty());
}

QTEST_APPLESS_MAIN(TstRecorderLimits)
#include "tst_recorderlimits.moc"
