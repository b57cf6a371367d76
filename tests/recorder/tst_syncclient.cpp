// Tests of the recorder's sync client against a real TimeServer (and against no server) on
// loopback UDP.
#include "../common/loopbackudp.h"
#include "../common/monotonicraw.h"
#include "../common/stderrcapture.h"
#include "recorder/syncclient.h"
#include "recorder/syncprotocol.h"
#include "recorder/timeserver.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

using namespace syncline::rec;
namespace test = syncline::test;

namespace {

// Everything the sink and onMessage receive.
struct Collected
{
    std::mutex mutex;
    std::vector<SyncExchange> exchanges;
    std::vector<std::string> messages;
    size_t count()
    {
        std::lock_guard<std::mutex> l(mutex);
        return exchanges.size();
    }
    // The client's thread appends while the test polls: read under the lock (a TSan finding).
    size_t messageCount()
    {
        std::lock_guard<std::mutex> l(mutex);
        return messages.size();
    }
};

std::unique_ptr<SyncClient> makeClient(Collected &c, const SyncClientOptions &base)
{
    SyncClientOptions o = base;
    o.onMessage = [&c](const std::string &m) {
        std::lock_guard<std::mutex> l(c.mutex);
        c.messages.push_back(m);
    };
    return std::make_unique<SyncClient>(o, test::monotonicRawNs, [&c](const SyncExchange &x) {
        std::lock_guard<std::mutex> l(c.mutex);
        c.exchanges.push_back(x);
    });
}

// Polls pred every 5 ms for at most seconds; true when it held.
template <typename Pred> bool waitFor(Pred pred, double seconds = 10.0)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

// Client options for the fast tests: 127.0.0.1:port, a burst every 50 ms, 30 ms timeouts.
SyncClientOptions fastClient(int port, int burstSize, double maxBackoffS)
{
    SyncClientOptions o;
    o.server = "127.0.0.1:" + std::to_string(port);
    o.burstSize = burstSize;
    o.timeoutMs = 30;
    o.intervalS = 0.05;
    o.maxBackoffS = maxBackoffS;
    return o;
}

TimeServerOptions loopbackServer(int port = 0, const std::string &token = {})
{
    TimeServerOptions o;
    o.bindAddress = "127.0.0.1";
    o.port = port;
    o.token = token;
    o.bootId = "tst-boot";
    return o;
}

} // namespace

class TstSyncClient : public QObject
{
    Q_OBJECT
private slots:
    void noServerNeverBlocks_data();
    void noServerNeverBlocks();
    void burstsAgainstRealServer();
    void estimateTracksOffsetAndDrift();
    void wrongTokenGetsNothing();
    void recoversAfterServerRestart();
    void resumesWithinOneIntervalAfterOutage();
    void newReferenceIsNotMixed();
};

void TstSyncClient::noServerNeverBlocks_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("refused (no socket on the port)") << "refused";
    QTest::newRow("silent (socket never answers)") << "silent";
    QTest::newRow("unresolvable host") << "unresolvable";
}

void TstSyncClient::noServerNeverBlocks()
{
    QFETCH(QString, kind);
    int silentFd = -1;
    SyncClientOptions o;
    o.burstSize = 8;
    o.timeoutMs = 50;
    o.intervalS = 0.05;
    o.maxBackoffS = 0.1;
    if (kind == "refused") {
        o.server = "127.0.0.1:" + std::to_string(test::freeUdpPort());
    } else if (kind == "silent") {
        int port = 0;
        silentFd = test::boundUdpSocket(&port);
        o.server = "127.0.0.1:" + std::to_string(port);
    } else {
        o.server = "no-such-host.invalid:29400";
    }
    Collected c;
    test::StderrCapture capture;
    {
        auto client = makeClient(c, o);
        const auto t0 = std::chrono::steady_clock::now();
        client->start();
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
        // Several attempts fail (several back-off rounds), yet only one message appears.
        if (kind != "unresolvable")
            QVERIFY(waitFor([&] { return client->counters().failedBursts >= 3; }));
        else
            QVERIFY(waitFor([&] { return c.messageCount() > 0; }));
        const auto t1 = std::chrono::steady_clock::now();
        client->stop();
        // stop() is bounded: (burstSize + 1) × timeout = 450 ms here; allow scheduling slack.
        QVERIFY(std::chrono::steady_clock::now() - t1 < std::chrono::seconds(3));
        QCOMPARE(client->counters().exchanges, uint64_t(0));
        int64_t g, b;
        QVERIFY(!client->estimate(test::monotonicRawNs(), &g, &b));
    }
    const QString err = QString::fromStdString(capture.text());
    QCOMPARE(err.count("syncline:"), 1);
    QVERIFY2(err.contains(QString::fromStdString(o.server)), qPrintable(err));
    QVERIFY2(kind == "unresolvable" ? err.contains("resolve") : err.contains("not answering"),
             qPrintable(err));
    QCOMPARE(c.count(), size_t(0));
    if (silentFd >= 0)
        ::close(silentFd);
}

void TstSyncClient::burstsAgainstRealServer()
{
    TimeServer server(loopbackServer(), test::monotonicRawNs);
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    SyncClientOptions o;
    o.server = "127.0.0.1:" + std::to_string(server.port());
    o.burstSize = 5;
    o.intervalS = 0.05;
    Collected c;
    auto client = makeClient(c, o);
    client->start();
    QVERIFY(waitFor([&] { return client->counters().bursts >= 3; }));
    client->stop();
    const SyncClientCounters n = client->counters();
    const std::string ref = o.server + "@" +
                            QByteArray::number(qulonglong(syncproto::fnv1a64("tst-boot")), 16)
                                .rightJustified(16, '0')
                                .toStdString();
    QCOMPARE(client->ref(), ref);
    std::lock_guard<std::mutex> l(c.mutex);
    QCOMPARE(uint64_t(c.exchanges.size()), n.exchanges);
    // Every burst (including the one at stop) is complete on loopback: bursts × K exchanges.
    QCOMPARE(n.failedBursts, uint64_t(0));
    QCOMPARE(uint64_t(c.exchanges.size()), n.bursts * uint64_t(o.burstSize));
    std::map<int, int> perBurst;
    int64_t minRtt = INT64_MAX;
    for (size_t i = 0; i < c.exchanges.size(); ++i) {
        const SyncExchange &x = c.exchanges[i];
        QCOMPARE(x.ref, ref);
        QVERIFY(x.t1 <= x.t4);
        QVERIFY(x.t2 <= x.t3);
        // Same clock on both ends: t1 <= t2 <= t3 <= t4 exactly.
        QVERIFY(x.t1 <= x.t2 && x.t3 <= x.t4);
        QCOMPARE(x.seq, int(i % size_t(o.burstSize)));
        QCOMPARE(x.burst, int(i / size_t(o.burstSize)));
        ++perBurst[x.burst];
        minRtt = std::min(minRtt, (x.t4 - x.t1) - (x.t3 - x.t2));
    }
    QCOMPARE(int(perBurst.size()), int(n.bursts));
    // The server counts a reply after sendto() returns: the last one may lag its arrival.
    QVERIFY(waitFor([&] { return server.counters().served >= n.exchanges; }, 2.0));
    QCOMPARE(server.counters().served, n.exchanges);
    int64_t g = 0, b = -1;
    const int64_t now = test::monotonicRawNs();
    QVERIFY(client->estimate(now, &g, &b));
    QVERIFY(b >= 0);
    QVERIFY2(std::llabs(g - now) <= b,
             qPrintable(QString("error %1 bound %2").arg(g - now).arg(b)));
    qInfo("loopback: min round trip %lld ns, live bound %lld ns", (long long)minRtt, (long long)b);
}

void TstSyncClient::estimateTracksOffsetAndDrift()
{
    // The server's clock runs 5 s ahead and 80 ppm fast; the estimate must contain the truth.
    const int64_t base = test::monotonicRawNs();
    auto serverClock = [base] {
        const int64_t r = test::monotonicRawNs();
        return r + 5'000'000'000 + std::llround(double(r - base) * 80e-6);
    };
    TimeServer server(loopbackServer(), serverClock);
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    SyncClientOptions o;
    o.server = "127.0.0.1:" + std::to_string(server.port());
    o.burstSize = 4;
    o.intervalS = 0.1;
    Collected c;
    auto client = makeClient(c, o);
    client->start();
    QVERIFY(waitFor([&] { return client->counters().bursts >= 5; }));
    for (int i = 0; i < 3; ++i) {
        const int64_t before = test::monotonicRawNs();
        int64_t g = 0, b = -1;
        QVERIFY(client->estimate(before, &g, &b));
        const int64_t truth = before + 5'000'000'000 + std::llround(double(before - base) * 80e-6);
        QVERIFY2(std::llabs(g - truth) <= b,
                 qPrintable(QString("error %1 ns, bound %2 ns").arg(g - truth).arg(b)));
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
    }
    client->stop();
}

void TstSyncClient::wrongTokenGetsNothing()
{
    TimeServer server(loopbackServer(0, "job-A"), test::monotonicRawNs);
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    SyncClientOptions o = fastClient(server.port(), 3, 0.05);
    o.token = "job-B";
    Collected wrong, right;
    test::StderrCapture capture;
    auto b = makeClient(wrong, o);
    o.token = "job-A";
    auto a = makeClient(right, o);
    b->start();
    a->start();
    QVERIFY(waitFor([&] { return b->counters().failedBursts >= 2 && a->counters().bursts >= 2; }));
    b->stop();
    a->stop();
    QCOMPARE(wrong.count(), size_t(0));
    QVERIFY(right.count() >= 6);
    QVERIFY(server.counters().tokenMismatch >= 2);
    QVERIFY(waitFor([&] { return server.counters().served >= uint64_t(right.count()); }, 2.0));
    QCOMPARE(server.counters().served, uint64_t(right.count()));
    QCOMPARE(QString::fromStdString(capture.text()).count("syncline:"), 1); // only job B complains
}

void TstSyncClient::recoversAfterServerRestart()
{
    auto server = std::make_unique<TimeServer>(loopbackServer(), test::monotonicRawNs);
    std::string error;
    QVERIFY2(server->start(&error), error.c_str());
    const int port = server->port();
    const SyncClientOptions o = fastClient(port, 4, 0.2);
    Collected c;
    test::StderrCapture capture;
    auto client = makeClient(c, o);
    client->start();
    QVERIFY(waitFor([&] { return client->counters().bursts >= 2; }));
    const std::string refBefore = client->ref();
    server.reset(); // the server dies
    QVERIFY(waitFor([&] { return client->counters().failedBursts >= 2; }));
    const size_t during = c.count();
    server = std::make_unique<TimeServer>(loopbackServer(port), test::monotonicRawNs);
    QVERIFY2(server->start(&error), error.c_str());
    QVERIFY(waitFor([&] { return c.count() >= during + 8 && client->counters().answering; }));
    client->stop();
    QCOMPARE(client->ref(), refBefore); // same host, same clock: one reference
    QCOMPARE(client->counters().refChanges, uint64_t(0));
    QCOMPARE(QString::fromStdString(capture.text()).count("syncline:"), 1);
    std::lock_guard<std::mutex> l(c.mutex);
    // One message when it went silent; none for the recovery.
    QCOMPARE(int(c.messages.size()), 1);
    QVERIFY(c.messages[0].find("not answering") != std::string::npos);
    // Burst numbers leave a gap where the server was down.
    std::set<int> numbers;
    for (const SyncExchange &x : c.exchanges)
        numbers.insert(x.burst);
    QVERIFY(int(numbers.size()) < *numbers.rbegin() - *numbers.begin() + 1);
}

void TstSyncClient::resumesWithinOneIntervalAfterOutage()
{
    // A long outage (3.6 s, 18 intervals) must not stretch the retries beyond the interval: the
    // first sample after the server is back comes within one interval (0.2 s; the check allows
    // 0.8 s more for scheduling). A back-off doubling to 30 s resumed after 2.6 s or more here
    // (retries 0.2, 0.6, 1.4, 3.0, 6.2 s after the first failure).
    auto server = std::make_unique<TimeServer>(loopbackServer(), test::monotonicRawNs);
    std::string error;
    QVERIFY2(server->start(&error), error.c_str());
    const int port = server->port();
    SyncClientOptions o = fastClient(port, 4, 30.0);
    o.intervalS = 0.2;
    Collected c;
    test::StderrCapture capture;
    auto client = makeClient(c, o);
    client->start();
    QVERIFY(waitFor([&] { return client->counters().bursts >= 2; }));
    server.reset(); // the path goes away
    QVERIFY(waitFor([&] { return client->counters().failedBursts >= 1; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(3600));
    const size_t before = c.count();
    server = std::make_unique<TimeServer>(loopbackServer(port), test::monotonicRawNs);
    QVERIFY2(server->start(&error), error.c_str());
    const int64_t back = test::monotonicRawNs();
    QVERIFY(waitFor([&] { return c.count() > before; }));
    client->stop();
    std::lock_guard<std::mutex> l(c.mutex);
    const int64_t first = c.exchanges[before].t1;
    const double gapS = double(first - back) * 1e-9;
    qInfo("first sample %.3f s after the server came back (interval %.1f s)", gapS, o.intervalS);
    QVERIFY2(gapS <= o.intervalS + 0.8, qPrintable(QString::number(gapS)));
}

void TstSyncClient::newReferenceIsNotMixed()
{
    auto server = std::make_unique<TimeServer>(loopbackServer(), test::monotonicRawNs);
    std::string error;
    QVERIFY2(server->start(&error), error.c_str());
    const int port = server->port();
    const SyncClientOptions o = fastClient(port, 3, 0.1);
    Collected c;
    test::StderrCapture capture;
    auto client = makeClient(c, o);
    client->start();
    QVERIFY(waitFor([&] { return client->counters().bursts >= 2; }));
    const std::string refA = client->ref();
    server.reset();
    // The reference moves to "another host": another boot id, a clock 1 s ahead.
    TimeServerOptions other = loopbackServer(port);
    other.bootId = "other-host-boot";
    server =
        std::make_unique<TimeServer>(other, [] { return test::monotonicRawNs() + 1'000'000'000; });
    QVERIFY2(server->start(&error), error.c_str());
    QVERIFY(waitFor([&] { return client->ref() != refA && client->counters().answering; }));
    QVERIFY(
        waitFor([&] { return client->counters().bursts >= client->counters().failedBursts + 4; }));
    client->stop();
    QCOMPARE(client->counters().refChanges, uint64_t(1));
    int64_t g = 0, b = -1;
    const int64_t now = test::monotonicRawNs();
    QVERIFY(client->estimate(now, &g, &b));
    // Only the new reference's bursts are in the estimate: 1 s ahead, within the bound.
    QVERIFY2(std::llabs(g - (now + 1'000'000'000)) <= b, qPrintable(QString::number(g - now)));
}

QTEST_APPLESS_MAIN(TstSyncClient)
#include "tst_syncclient.moc"
