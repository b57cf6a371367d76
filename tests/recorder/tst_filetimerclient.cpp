// Tests for FileTimerClient's API with real files: round trip through an independent reader
// (logreader.h), nesting, misnesting, callbacks, macros, messages and named tracks. Threads,
// buffers and limits are in tst_recorderlimits.cpp, the clock and time sync in
// tst_recorderclock.cpp, process and failure behaviour (SIGKILL, unwritable path, full disk,
// fork, exit) in tst_recorderprocess.cpp.
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
    void misnesting();
    void callbacks();
    void macros();
    void messagesAndNamedTracks();
    void counters();
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
    // written as "dur":-1 (the subtraction wrapped), and no reader could use it.
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
    QCOMPARE(log.records[0]["minor"].get<int>(), 2);
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

QTEST_APPLESS_MAIN(TstFileTimerClient)
#include "tst_filetimerclient.moc"
