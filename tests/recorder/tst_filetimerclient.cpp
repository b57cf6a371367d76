// Tests for FileTimerClient with real files: round trip through an independent reader
// (logreader.h), nesting, many threads, misnesting, callbacks, overflow, heartbeats, macros,
// the synthetic clock and time sync. Process and failure behaviour (SIGKILL, unwritable path,
// full disk, fork, exit) is in tst_recorderprocess.cpp.
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

#include <climits>

#include <cmath>
#include <fstream>
#include <limits>
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

class TstFileTimerClient : public QObject
{
    Q_OBJECT
private slots:
    void roundTrip();
    void nesting();
    void manyThreads();
    void misnesting();
    void callbacks();
    void dropNewest();
    void heartbeatAndDefaults();
    void macros();
    void testClockSkew();
    void timeSyncWithHostedServer();
    void messagesAndNamedTracks();
    void counters();
    void nameTableFullDropsSoftly();
};

void TstFileTimerClient::roundTrip()
{
    QTemporaryDir dir;
    const std::string cfg = writeConfig(dir, R"({"flush_interval_ms": 10})");
    const std::string logPath = dir.filePath("events.log").toStdString();
    qputenv("RANK", "2");
    qputenv("WORLD_SIZE", "4");
    qputenv("TORCHELASTIC_RUN_ID", "job-7");
    FileTimerClient client(cfg, logPath);
    qunsetenv("RANK");
    qunsetenv("WORLD_SIZE");
    qunsetenv("TORCHELASTIC_RUN_ID");
    const std::string expectedPath = dir.filePath("events.2.log").toStdString();
    QCOMPARE(client.logPath(), expectedPath);
    QCOMPARE(client.rank(), int64_t(2));
    QCOMPARE(client.configPath(), cfg);
    const std::string weird = "a \"quoted\"\\name\n\t\x01 \xc3\xa9\xe2\x9c\x93";
    const int64_t t0 = client.nowNs();
    client.startEvent("step", {{"step", int64_t(12)},
                               {"phase", std::string("train")},
                               {"lr", 0.5},
                               {"big", int64_t(-9007199254740993)},
                               {"ok", true},
                               {"nan", std::nan("")}});
    client.startEvent(weird);
    client.instant("checkpoint", {{"bytes", int64_t(1048576)}});
    client.endEvent(weird, {{"result", std::string("fine")}});
    client.recordInterval("kernel", t0 + 5, t0 + 105, {{"stream", int64_t(7)}});
    client.instant("bad\xff\xc3utf8", {{"s", std::string("\xed\xa0\x80x")}}); // invalid UTF-8
    client.endEvent("step");
    client.close();
    client.close(); // idempotent
    QVERIFY(client.ok());

    const testlog::Log log = testlog::read(expectedPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    QVERIFY(!log.tornLastLine);
    const json &h = log.records.front();
    QCOMPARE(h["t"].get<std::string>(), std::string("header"));
    QCOMPARE(h["format"].get<std::string>(), std::string("syncline"));
    QCOMPARE(h["version"].get<int>(), 1);
    QCOMPARE(h["rank"].get<int>(), 2);
    QCOMPARE(h["world_size"].get<int>(), 4);
    QCOMPARE(h["run_id"].get<std::string>(), std::string("job-7"));
    QCOMPARE(h["pid"].get<int64_t>(), int64_t(getpid()));
    QCOMPARE(h["clock"].get<std::string>(), std::string("monotonic_raw"));
    QCOMPARE(h["config"].get<std::string>(), cfg);
    QVERIFY(h["anchor"]["spread_ns"].get<int64_t>() >= 0);
    QVERIFY(h["start_ns"].get<int64_t>() <= t0);
    QVERIFY(!h.contains("skew"));

    const auto b = log.ofType("B"), e = log.ofType("E"), i = log.ofType("I"), x = log.ofType("X"),
               th = log.ofType("thread"), cl = log.ofType("close");
    QCOMPARE(b.size(), size_t(2));
    QCOMPARE(e.size(), size_t(2));
    QCOMPARE(b[0]["name"].get<std::string>(), std::string("step"));
    QCOMPARE(b[0]["args"]["step"].get<int64_t>(), int64_t(12));
    QCOMPARE(b[0]["args"]["phase"].get<std::string>(), std::string("train"));
    QCOMPARE(b[0]["args"]["lr"].get<double>(), 0.5);
    QCOMPARE(b[0]["args"]["big"].get<int64_t>(), int64_t(-9007199254740993));
    QCOMPARE(b[0]["args"]["ok"].get<bool>(), true);
    QVERIFY(b[0]["args"]["nan"].is_null());
    QCOMPARE(b[1]["name"].get<std::string>(), weird);
    QCOMPARE(e[0]["name"].get<std::string>(), weird);
    QCOMPARE(e[0]["args"]["result"].get<std::string>(), std::string("fine"));
    QCOMPARE(i.size(), size_t(2));
    QCOMPARE(i[0]["args"]["bytes"].get<int64_t>(), int64_t(1048576));
    QCOMPARE(i[1]["name"].get<std::string>(), std::string("bad\xef\xbf\xbd\xef\xbf\xbdutf8"));
    QCOMPARE(i[1]["args"]["s"].get<std::string>(),
             std::string("\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx"));
    QCOMPARE(x.size(), size_t(1));
    QCOMPARE(x[0]["ts"].get<int64_t>(), t0 + 5);
    QCOMPARE(x[0]["dur"].get<int64_t>(), int64_t(100));
    QCOMPARE(th.size(), size_t(1));
    QCOMPARE(th[0]["name"].get<std::string>(), std::string("main"));
    QCOMPARE(th[0]["tid"].get<int64_t>(), b[0]["tid"].get<int64_t>());
    QVERIFY(b[0]["ts"].get<int64_t>() >= t0);
    QVERIFY(b[1]["ts"].get<int64_t>() >= b[0]["ts"].get<int64_t>());
    QVERIFY(e[0]["ts"].get<int64_t>() >= i[0]["ts"].get<int64_t>());
    QCOMPARE(cl.size(), size_t(1));
    QCOMPARE(log.records.back()["t"].get<std::string>(), std::string("close"));
    QCOMPARE(cl[0]["events"].get<int>(), 8); // 2 B + 2 E + 2 I + X + thread
    QCOMPARE(cl[0]["dropped"].get<int>(), 0);
    QCOMPARE(cl[0]["open"].get<int>(), 0);
    QCOMPARE(client.stats().events, uint64_t(8));
    QCOMPARE(client.stats().written, uint64_t(8));
    // Calls after close are ignored.
    client.startEvent("late");
    QCOMPARE(testlog::read(expectedPath).records.size(), log.records.size());
}

void TstFileTimerClient::nesting()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("n.log").toStdString();
    {
        FileTimerClient client("", logPath);
        auto work = [&](const std::string &prefix) {
            client.setThreadName(prefix + "-thread");
            for (int k = 0; k < 100; ++k) {
                client.startEvent(prefix + "-outer");
                client.startEvent("mid");
                client.startEvent("inner");
                client.endEvent("inner");
                client.endEvent("mid");
                client.endEvent(prefix + "-outer");
            }
            client.startEvent("left-open");
        };
        std::thread a(work, "a"), b(work, "b");
        a.join();
        b.join();
    }
    const testlog::Log log = testlog::read(logPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    QCOMPARE(log.ofType("B").size(), size_t(2 * 301));
    QCOMPARE(log.ofType("E").size(), size_t(2 * 300));
    const auto threads = log.ofType("thread");
    QCOMPARE(threads.size(), size_t(2));
    std::set<std::string> names;
    for (const auto &t : threads)
        names.insert(t["name"].get<std::string>());
    QVERIFY(names.count("a-thread") && names.count("b-thread"));
    QCOMPARE(log.ofType("close")[0]["open"].get<int>(), 2);
    QCOMPARE(log.ofType("note")[0]["msg"].get<std::string>(),
             std::string("no config file given; using defaults"));
    QVERIFY(log.records.front()["config"].is_null());
}

void TstFileTimerClient::manyThreads()
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

void TstFileTimerClient::misnesting()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("m.log").toStdString();
    FileTimerClient client("", logPath);
    try {
        client.endEvent("nothing");
        QFAIL("no TimerError");
    } catch (const TimerError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("endEvent(\"nothing\"): no event is open on this thread"));
    }
    client.startEvent("outer");
    client.startEvent("inner");
    try {
        client.endEvent("outer");
        QFAIL("no TimerError");
    } catch (const TimerError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("endEvent(\"outer\"): the innermost open event of this thread is "
                             "\"inner\""));
    }
    // Another thread has its own stack: ending "inner" there is an error too.
    std::string otherError;
    std::thread([&] {
        try {
            client.endEvent("inner");
        } catch (const TimerError &e) {
            otherError = e.what();
        }
    }).join();
    QCOMPARE(otherError, std::string("endEvent(\"inner\"): no event is open on this thread"));
    QVERIFY_THROWS_EXCEPTION(TimerError, client.startEvent(""));
    QVERIFY_THROWS_EXCEPTION(TimerError, client.recordInterval("x", 10, 5));
    // Times past the log's range (recorder/timerange.h) are misuse too: INT64_MIN..INT64_MAX was
    // written as "dur":-1 (the subtraction wrapped), and no reader could use it (issue 15).
    try {
        client.recordInterval("x", INT64_MIN, INT64_MAX);
        QFAIL("no TimerError");
    } catch (const TimerError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("recordInterval(\"x\"): start -9223372036854775808 or end "
                             "9223372036854775807 is outside the log's time range (|t| <= 2^62 "
                             "ns)"));
    }
    QVERIFY_THROWS_EXCEPTION(TimerError, client.recordInterval("x", 0, (int64_t(1) << 62) + 1));
    client.endEvent("inner");
    client.endEvent("outer");
    client.close();
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    QCOMPARE(log.ofType("B").size(), size_t(2));
    QCOMPARE(log.ofType("E").size(), size_t(2));
    QCOMPARE(log.ofType("X").size(), size_t(0));
    QCOMPARE(log.ofType("E")[0]["name"].get<std::string>(), std::string("inner"));
}

void TstFileTimerClient::callbacks()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("c.log").toStdString();
    std::vector<std::string> seen;
    FileTimerClient::Callbacks cb;
    cb.onStart = [&](std::string_view n) {
        if (n == "bad-start")
            throw std::runtime_error("start callback failed");
        seen.push_back("start:" + std::string(n));
    };
    cb.onEnd = [&](std::string_view n) {
        seen.push_back("end:" + std::string(n));
        if (n == "bad-end")
            throw std::runtime_error("end callback failed");
    };
    FileTimerClient client("", logPath, cb);
    client.startEvent("a");
    client.endEvent("a");
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, client.startEvent("bad-start"));
    // The event did not start: nothing is open.
    QVERIFY_THROWS_EXCEPTION(TimerError, client.endEvent("bad-start"));
    client.startEvent("bad-end");
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, client.endEvent("bad-end"));
    // The event has ended: ending it again is misnesting.
    QVERIFY_THROWS_EXCEPTION(TimerError, client.endEvent("bad-end"));
    client.close();
    QCOMPARE(seen, (std::vector<std::string>{"start:a", "end:a", "start:bad-end", "end:bad-end"}));
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    QCOMPARE(log.ofType("B").size(), size_t(2));
    QCOMPARE(log.ofType("E").size(), size_t(2));
    QCOMPARE(log.ofType("close")[0]["open"].get<int>(), 0);
}

void TstFileTimerClient::dropNewest()
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

void TstFileTimerClient::heartbeatAndDefaults()
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
    }
    QCOMPARE(hbs.back()["events"].get<int>(), 2); // thread + I
    QCOMPARE(live.ofType("I").size(), size_t(1)); // flush() made it visible
}

void TstFileTimerClient::macros()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("mac.log").toStdString();
    FileTimerClient client("", logPath);
    {
        SYNCLINE_SCOPE(client, scope, "scoped");
        SYNCLINE_START(client, "manual");
        SYNCLINE_INSTANT(client, "tick");
        SYNCLINE_END(client, "manual");
    }
    {
        ScopedEvent s(client, "with-args", {{"n", int64_t(3)}});
        s.end();
        QVERIFY_THROWS_EXCEPTION(TimerError, client.endEvent("with-args"));
    }
    QCOMPARE(disabledMacros(client), 0);
    client.close();
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    QCOMPARE(log.ofType("B").size(), size_t(3));
    QCOMPARE(log.ofType("I").size(), size_t(1));
    QCOMPARE(log.ofType("B")[0]["name"].get<std::string>(), std::string("scoped"));
    QCOMPARE(log.ofType("E")[1]["name"].get<std::string>(), std::string("scoped"));
    for (const auto &r : log.records)
        QVERIFY(r.value("name", "") != "disabled");
}

// counter(): `C` records (format 1.1) in the real file, values exact (shortest round-trip text,
// NaN/inf as null), stamped on the calling thread in order with its events, one note for
// readers of format 1.0, the header's minor version; SYNCLINE_COUNTER; an empty name throws.
void TstFileTimerClient::counters()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("counters.log").toStdString();
    FileTimerClient client("", logPath);
    const double values[] = {0.1, 1e300, -0.0, 1073741824.0, 3.0, 2.5e-310};
    client.startEvent("step");
    for (double v : values)
        client.counter("mem", v);
    client.counter("loss", std::numeric_limits<double>::quiet_NaN());
    client.counter("loss", -std::numeric_limits<double>::infinity());
    SYNCLINE_COUNTER(client, "loss", 0.5);
    client.endEvent("step");
    QVERIFY_THROWS_EXCEPTION(TimerError, client.counter("", 1.0));
    std::thread other([&] { client.counter("queue", 7); });
    other.join();
    client.close();

    const testlog::Log log = testlog::read(logPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    QCOMPARE(log.records[0]["version"].get<int>(), 1);
    QCOMPARE(log.records[0]["minor"].get<int>(), 1);
    const auto cs = log.ofType("C");
    QCOMPARE(cs.size(), size_t(10));
    for (size_t i = 0; i < std::size(values); ++i) {
        QCOMPARE(cs[i]["name"].get<std::string>(), std::string("mem"));
        QCOMPARE(cs[i]["value"].get<double>(), values[i]); // exact
        QVERIFY(cs[i]["value"].is_number_float());
    }
    QVERIFY(std::signbit(cs[2]["value"].get<double>())); // -0.0 stays -0.0
    QVERIFY(cs[6]["value"].is_null());
    QVERIFY(cs[7]["value"].is_null());
    QCOMPARE(cs[8]["value"].get<double>(), 0.5);
    QCOMPARE(cs[9]["name"].get<std::string>(), std::string("queue"));
    QVERIFY(cs[9]["tid"].get<int64_t>() != cs[0]["tid"].get<int64_t>());
    // In order with the thread's events: B step < every C < E step.
    const int64_t b = log.ofType("B")[0]["ts"].get<int64_t>();
    const int64_t e = log.ofType("E")[0]["ts"].get<int64_t>();
    int64_t last = b;
    for (size_t i = 0; i < 9; ++i) {
        QVERIFY(cs[i]["ts"].get<int64_t>() >= last);
        last = cs[i]["ts"].get<int64_t>();
        QCOMPARE(cs[i]["tid"].get<int64_t>(), int64_t(gettid()));
    }
    QVERIFY(last <= e);
    int notes = 0;
    for (const json &n : log.ofType("note"))
        notes += n["msg"].get<std::string>().find("readers of format 1.0 skip them") !=
                 std::string::npos;
    QCOMPARE(notes, 1);
    QCOMPARE(log.ofType("close")[0]["events"].get<int64_t>(),
             int64_t(log.ofType("B").size() + log.ofType("E").size() + log.ofType("thread").size() +
                     cs.size()));
}

void TstFileTimerClient::testClockSkew()
{
    QTemporaryDir dir;
    const std::string cfg =
        writeConfig(dir, R"({"test_clock": {"offset_ns": 5000000000, "drift_ppm": 0}})");
    const std::string logPath = dir.filePath("skew.log").toStdString();
    qputenv("SYNCLINE_TEST_CLOCK_DRIFT_PPM", "100");
    qputenv("SYNCLINE_HOST", "emulated-node");
    qputenv("SYNCLINE_BOOT_ID", "emulated-boot");
    FileTimerClient client(cfg, logPath);
    qunsetenv("SYNCLINE_TEST_CLOCK_DRIFT_PPM");
    qunsetenv("SYNCLINE_HOST");
    qunsetenv("SYNCLINE_BOOT_ID");
    const int64_t raw = test::monotonicRawNs();
    client.instant("x");
    const int64_t raw2 = test::monotonicRawNs();
    client.close();
    const testlog::Log log = testlog::read(logPath);
    const json &h = log.records.front();
    QCOMPARE(h["host"].get<std::string>(), std::string("emulated-node"));
    QCOMPARE(h["boot_id"].get<std::string>(), std::string("emulated-boot"));
    QCOMPARE(h["skew"]["offset_ns"].get<int64_t>(), int64_t(5000000000));
    QCOMPARE(h["skew"]["drift_ppm"].get<double>(), 100.0);
    const int64_t ts = log.ofType("I")[0]["ts"].get<int64_t>();
    auto stamp = [](int64_t r) { return r + std::llround(double(r) * 100e-6) + 5000000000; };
    QVERIFY(ts >= stamp(raw) && ts <= stamp(raw2));
}

void TstFileTimerClient::timeSyncWithHostedServer()
{
    const int port = test::freeUdpPort();
    QVERIFY(port > 0);

    QTemporaryDir dir;
    const std::string cfg = writeConfig(
        dir, R"({"sync": {"server": "127.0.0.1:)" + std::to_string(port) +
                 R"(", "host_server": true, "burst_size": 4, "interval_s": 0.05, "token": "t"}})");
    const std::string logPath = dir.filePath("sync.log").toStdString();
    FileTimerClient client(cfg, logPath);
    int64_t bound = -2;
    for (int k = 0; k < 200 && bound < 0; ++k) {
        QTest::qSleep(20);
        client.globalTimeNs(&bound);
    }
    QVERIFY(bound >= 0); // the sync client has an estimate
    client.close();
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    const auto syncs = log.ofType("sync");
    QVERIFY(syncs.size() >= 4);
    for (const auto &r : syncs) {
        QVERIFY(r["t1"].get<int64_t>() <= r["t4"].get<int64_t>());
        QVERIFY(r["t2"].get<int64_t>() <= r["t3"].get<int64_t>());
        // Same clock on both sides: the reference stamps lie inside the local round trip.
        QVERIFY(r["t1"].get<int64_t>() <= r["t2"].get<int64_t>());
        QVERIFY(r["t3"].get<int64_t>() <= r["t4"].get<int64_t>());
        QVERIFY(!r["ref"].get<std::string>().empty());
        QVERIFY(r["seq"].get<int>() < 4);
    }
    QCOMPARE(log.ofType("note")[0]["msg"].get<std::string>(),
             "time server started on port " + std::to_string(port));
    QCOMPARE(log.records.back()["t"].get<std::string>(), std::string("close"));
}

// msg records (message()) and intervals on named tracks (recordIntervalOnTrack): what they write,
// from several threads at once, and the misuse they refuse.
void TstFileTimerClient::messagesAndNamedTracks()
{
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("events.log").toStdString();
    FileTimerClient client("", logPath);
    const int64_t t0 = client.nowNs();
    client.message(true, 3, "world:0>3:0:0");
    client.message(false, 2, "a \"quoted\" id");
    QVERIFY_THROWS_EXCEPTION(TimerError, client.message(true, 1, ""));
    QVERIFY_THROWS_EXCEPTION(TimerError, client.recordIntervalOnTrack("", "x", 1, 2));
    QVERIFY_THROWS_EXCEPTION(TimerError, client.recordIntervalOnTrack("gpu", "", 1, 2));
    QVERIFY_THROWS_EXCEPTION(TimerError, client.recordIntervalOnTrack("gpu", "x", 5, 2));
    constexpr int kThreads = 4, kPerThread = 500;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i)
                client.recordIntervalOnTrack(t % 2 ? "odd" : "even", "kernel", t0 + i, t0 + i + 1,
                                             {{"t", int64_t(t)}});
        });
    for (auto &th : threads)
        th.join();
    client.recordIntervalOnTrack("gpu", "copy", t0, t0 + 10);
    client.close();

    const testlog::Log log = testlog::read(logPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    const auto msgs = log.ofType("msg");
    QCOMPARE(msgs.size(), size_t(2));
    QCOMPARE(msgs[0]["dir"].get<std::string>(), std::string("send"));
    QCOMPARE(msgs[0]["peer"].get<int64_t>(), int64_t(3));
    QCOMPARE(msgs[0]["id"].get<std::string>(), std::string("world:0>3:0:0"));
    QCOMPARE(msgs[0]["tid"].get<int64_t>(), int64_t(gettid()));
    QVERIFY(msgs[0]["ts"].get<int64_t>() >= t0);
    QCOMPARE(msgs[1]["dir"].get<std::string>(), std::string("recv"));
    QCOMPARE(msgs[1]["peer"].get<int64_t>(), int64_t(2));
    QCOMPARE(msgs[1]["id"].get<std::string>(), std::string("a \"quoted\" id"));
    std::map<std::string, int64_t> trackTid;
    for (const json &t : log.ofType("thread"))
        trackTid[t["name"].get<std::string>()] = t["tid"].get<int64_t>();
    QCOMPARE(trackTid.size(), size_t(4)); // main, even, odd, gpu
    // -1, -2, ... in order of first use (the threads race for even and odd)
    QCOMPARE(std::set<int64_t>({trackTid["even"], trackTid["odd"]}), std::set<int64_t>({-1, -2}));
    QCOMPARE(trackTid["gpu"], int64_t(-3));
    std::map<int64_t, int> perTid;
    for (const json &x : log.ofType("X")) {
        const int64_t tid = x["tid"].get<int64_t>();
        ++perTid[tid];
        if (x["name"] == "kernel")
            QCOMPARE(x["args"]["t"].get<int64_t>() % 2 ? trackTid["odd"] : trackTid["even"], tid);
    }
    QCOMPARE(perTid[trackTid["even"]], 2 * kPerThread);
    QCOMPARE(perTid[trackTid["odd"]], 2 * kPerThread);
    QCOMPARE(perTid[-3], 1);
    QCOMPARE(log.ofType("close")[0]["events"].get<int64_t>(),
             int64_t(2 + kThreads * kPerThread + 1 + 4)); // msgs, X, thread records
}

// More distinct names than the process-wide name table holds (issue 15, item 4): the 16,777,217th
// name threw std::length_error out of startEvent/instant and aborted the host process. Now the
// table stops at NameTable::kMaxNames; a record with a new name is dropped and counted, names
// already known keep working, a begin/end pair with a new name drops both, and stderr says so
// once. In a child process: the table is process-wide and never shrinks.
void TstFileTimerClient::nameTableFullDropsSoftly()
{
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

QTEST_APPLESS_MAIN(TstFileTimerClient)
#include "tst_filetimerclient.moc"
