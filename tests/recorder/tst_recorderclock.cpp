// FileTimerClient's clocks with real files and sockets: the synthetic test clock (skew and
// drift) and time sync against a time server the client hosts. The API is tested in
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

class TstRecorderClock : public QObject
{
    Q_OBJECT
private slots:
    void testClockSkew();
    void timeSyncWithHostedServer();
};

void TstRecorderClock::testClockSkew()
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

void TstRecorderClock::timeSyncWithHostedServer()
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

QTEST_APPLESS_MAIN(TstRecorderClock)
#include "tst_recorderclock.moc"
