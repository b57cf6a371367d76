// The whole sync pipeline with real processes: a real time server on loopback
// (`syncline timeserver`, or rank 0 hosting it), N skew_worker processes, each with its own
// synthetic clock transform (offset + drift) and emulated host, stamping instant events at the
// same true instants; then JobLoader + the sync engine. After correction the marks must line up
// within the reported bounds, while the raw stamps are off by the injected offsets.
//
// Truth: every worker's stamps are ts = raw + llround(raw·drift·1e-6) + offset, raw being this
// machine's CLOCK_MONOTONIC_RAW (shared by all processes); the test inverts that (the header's
// `skew`, a test facility the engine never reads) to get each mark's true instant, so a worker
// that was preempted before stamping does not make the test flaky.
#include "../common/loopbackudp.h"
#include "../common/monotonicraw.h"
#include "timeline/load/jobloader.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <csignal>
#include <unistd.h>

namespace {

struct Skew
{
    int64_t offsetNs;
    double driftPpm;
};

// True time: the machine's CLOCK_MONOTONIC_RAW (shared by all processes here).
constexpr auto &trueNow = syncline::test::monotonicRawNs;

// Inverse of the recorder's transform (recorder/clock.h), exact to ±1 ns.
int64_t trueInstant(int64_t ts, const Skew &s)
{
    const int64_t x = ts - s.offsetNs;
    const double d = s.driftPpm * 1e-6;
    return x - std::llround(double(x) * d / (1.0 + d));
}

// Local time of the instant event `name` of worker w, or -1.
int64_t findInstant(const syncline::Timeline &t, size_t w, const std::string &name)
{
    const uint32_t id = t.names.find(name);
    for (const syncline::EventTrack &track : t.workers[w].tracks)
        for (size_t i = 0; i < track.count(); ++i)
            if (track.nameId[i] == id && (track.flags[i] & syncline::EventInstant))
                return track.localStart[i];
    return -1;
}

} // namespace

class TstSkewMultiProcess : public QObject
{
    Q_OBJECT
private slots:
    void marksLineUpAfterCorrection_data();
    void marksLineUpAfterCorrection();

private:
    void runJob(bool hosted, const std::vector<Skew> &skews, int rounds, const QTemporaryDir &dir);
    void checkMarks(const syncline::Timeline &t, const std::vector<Skew> &skews, int rounds,
                    double refRate);
};

void TstSkewMultiProcess::marksLineUpAfterCorrection_data()
{
    QTest::addColumn<bool>("hosted");
    QTest::newRow("standalone syncline timeserver, 4 workers") << false;
    QTest::newRow("rank 0 hosts the server (sync.host_server), 3 workers") << true;
}

// Starts the time server (unless rank 0 hosts it) and the workers; waits for all of them.
void TstSkewMultiProcess::runJob(bool hosted, const std::vector<Skew> &skews, int rounds,
                                  const QTemporaryDir &dir)
{
    const int n = int(skews.size());
    QProcess server;
    int port = 0;
    if (hosted) {
        port = syncline::test::freeUdpPort();
    } else {
        server.start(SYNCLINE_BINARY_DIR "/bin/syncline",
                     {"timeserver", "--port", "0", "--bind", "127.0.0.1", "--token", "tst-job"});
        QVERIFY(server.waitForStarted(5000));
        QVERIFY(server.waitForReadyRead(10000));
        const auto m = QRegularExpression("port (\\d+)").match(server.readLine());
        QVERIFY(m.hasMatch());
        port = m.captured(1).toInt();
    }
    const QString config = dir.filePath("timer_config.json");
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString("{\"sync\": {\"server\": \"127.0.0.1:%1\", \"host_server\": %2, "
                        "\"burst_size\": 8, \"interval_s\": 0.1, \"timeout_ms\": 100, "
                        "\"token\": \"tst-job\"}}\n")
                    .arg(port)
                    .arg(hosted ? "true" : "false")
                    .toUtf8());
    }

    const int64_t startRaw = trueNow() + 1'500'000'000; // all workers up and synced by then
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int r = 0; r < n; ++r) {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("SYNCLINE_TIME_SERVER");
        env.insert("RANK", QString::number(r));
        env.insert("LOCAL_RANK", "0");
        env.insert("WORLD_SIZE", QString::number(n));
        env.insert("SYNCLINE_HOST", QString("emulated-host-%1").arg(r));
        env.insert("SYNCLINE_BOOT_ID", QString("emulated-boot-%1").arg(r));
        env.insert("SYNCLINE_TEST_CLOCK_OFFSET_NS", QString::number(skews[r].offsetNs));
        env.insert("SYNCLINE_TEST_CLOCK_DRIFT_PPM", QString::number(skews[r].driftPpm));
        p->setProcessEnvironment(env);
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->start(SYNCLINE_BINARY_DIR "/tests/skew_worker",
                 {"--config", config, "--log", dir.filePath("timer_events.log"), "--start-raw",
                  QString::number(startRaw), "--period-ms", "100", "--rounds",
                  QString::number(rounds), "--tail-ms", "400"});
        QVERIFY2(p->waitForStarted(5000), qPrintable(p->errorString()));
        workers.push_back(std::move(p));
    }
    for (int r = 0; r < n; ++r) {
        QProcess &p = *workers[size_t(r)];
        QVERIFY(p.waitForFinished(30000));
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(out));
    }
    if (!hosted) {
        ::kill(pid_t(server.processId()), SIGTERM);
        QVERIFY(server.waitForFinished(5000));
        QCOMPARE(server.exitCode(), 0);
    }
}

// For every round, every worker's mark against rank 0's: corrected difference minus true
// difference (in reference ns) within the two segments' guaranteed bounds.
void TstSkewMultiProcess::checkMarks(const syncline::Timeline &t, const std::vector<Skew> &skews,
                                      int rounds, double refRate)
{
    const int n = int(skews.size());
    int64_t worstExcess = INT64_MIN, maxError = 0, maxBound = 0, maxTrueSpread = 0;
    for (int k = 0; k < rounds; ++k) {
        const std::string name = "mark-" + std::to_string(k);
        const size_t nw = skews.size();
        std::vector<int64_t> ts(nw), truth(nw), global(nw), bound(nw);
        for (int w = 0; w < n; ++w) {
            ts[size_t(w)] = findInstant(t, size_t(w), name);
            QVERIFY2(
                ts[size_t(w)] >= 0,
                qPrintable(QString("rank %1 has no %2").arg(w).arg(QString::fromStdString(name))));
            truth[size_t(w)] = trueInstant(ts[size_t(w)], skews[size_t(w)]);
            global[size_t(w)] = t.toGlobal(size_t(w), ts[size_t(w)], syncline::ClockMode::Corrected);
            const auto &seg = t.map(size_t(w), syncline::ClockMode::Corrected).segmentAt(ts[size_t(w)]);
            bound[size_t(w)] = seg.boundNs;
            QVERIFY2(seg.boundNs > 0, "the engine must report a guaranteed bound");
            QVERIFY(!(seg.flags & syncline::sync::SegExtrapolated));
            maxBound = std::max(maxBound, seg.boundNs);
        }
        // Raw stamps disagree by the injected offset (ranks 0 and 1 have no drift).
        QVERIFY(std::abs((ts[1] - ts[0]) - 350'000'000 - (truth[1] - truth[0])) <= 2);
        for (int w = 1; w < n; ++w) {
            maxTrueSpread = std::max(maxTrueSpread, std::abs(truth[size_t(w)] - truth[0]));
            const int64_t expected = std::llround(double(truth[size_t(w)] - truth[0]) * refRate);
            const int64_t error = std::abs((global[size_t(w)] - global[0]) - expected);
            const int64_t allowed = bound[size_t(w)] + bound[0] + 2; // ±1 ns rounding each
            maxError = std::max(maxError, error);
            worstExcess = std::max(worstExcess, error - allowed);
            QVERIFY2(error <= allowed, qPrintable(QString("round %1 rank %2: corrected error %3 ns "
                                                          "> bounds %4 + %5 ns")
                                                      .arg(k)
                                                      .arg(w)
                                                      .arg(error)
                                                      .arg(bound[size_t(w)])
                                                      .arg(bound[0])));
        }
    }
    qInfo("%d workers x %d marks: max corrected pair error %lld ns, max bound %lld ns, "
          "true spread of the marks %lld ns",
          n, rounds, (long long)maxError, (long long)maxBound, (long long)maxTrueSpread);
}

void TstSkewMultiProcess::marksLineUpAfterCorrection()
{
    QFETCH(bool, hosted);
    // Rank 0 and 1 without drift so that the raw disagreement is known exactly (350 ms).
    const std::vector<Skew> skews =
        hosted ? std::vector<Skew>{{0, 0.0}, {350'000'000, 0.0}, {-720'000'000, -60.0}}
               : std::vector<Skew>{
                     {0, 0.0}, {350'000'000, 0.0}, {-720'000'000, -60.0}, {123'456'789, 45.0}};
    const int n = int(skews.size());
    const int rounds = 8;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    runJob(hosted, skews, rounds, dir);
    if (QTest::currentTestFailed())
        return;

    syncline::LoadOptions lo;
    lo.paths = {dir.path().toStdString()};
    const syncline::LoadResult res = syncline::JobLoader::load(lo);
    QVERIFY2(res.fatalError.empty(), res.fatalError.c_str());
    const syncline::Timeline &t = *res.timeline;
    QCOMPARE(int(t.workers.size()), n);
    for (int w = 0; w < n; ++w) {
        const syncline::Worker &wk = t.workers[size_t(w)];
        QCOMPARE(wk.info.rank, w);
        QVERIFY2(wk.clock.method == syncline::sync::ClockMethod::SyncSamples,
                 qPrintable(QString("rank %1 not corrected by sync samples").arg(w)));
        QVERIFY(wk.samples.size() >= size_t(8 * 10)); // ≥ 10 bursts: start, 0.1 s apart, close
        const Skew &sk = skews[size_t(w)];
        QCOMPARE(wk.info.hasSkew, sk.offsetNs != 0 || sk.driftPpm != 0.0); // header `skew`
        QCOMPARE(wk.info.skewOffsetNs, sk.offsetNs);
        QCOMPARE(wk.info.skewDriftPpm, sk.driftPpm);
    }

    // The reference clock: raw for the standalone server, rank 0's transformed clock if hosted.
    checkMarks(t, skews, rounds, hosted ? 1.0 + skews[0].driftPpm * 1e-6 : 1.0);
}

QTEST_GUILESS_MAIN(TstSkewMultiProcess)
#include "tst_skewmultiprocess.moc"
