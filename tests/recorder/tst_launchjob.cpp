// Process test of examples/launch_job.py with the real example_worker: 4 workers on 2 emulated
// nodes, torchrun-style identities, per-node synthetic skew, complete logs (with and without the
// launcher's all-reduce barrier); with the barrier, all_reduce is a real collective: the ranks'
// ends coincide in true time although their stamps disagree by the emulated skew, and the
// straggler waits least; a failing worker makes the launcher fail.
#include "logreader.h"
#include "recordertest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <sys/wait.h>

class TstLaunchJob : public QObject
{
    Q_OBJECT
private slots:
    void fourWorkersTwoNodes_data();
    void fourWorkersTwoNodes();
    void allReduceIsACollective();
    void failingWorker();

private:
    static int launch(const QString &outdir, const QString &extra);
};

int TstLaunchJob::launch(const QString &outdir, const QString &extra)
{
    const QString cmd = QString("/usr/bin/python3 %1/examples/launch_job.py --nproc 2 --nnodes 2 "
                                "--steps 3 --worker %2/bin/example_worker --outdir %3 "
                                "--run-id tst-run %4 > %3/launcher.out 2>&1")
                            .arg(SYNCLINE_SOURCE_DIR, SYNCLINE_BINARY_DIR, outdir, extra);
    const int status = std::system(cmd.toLocal8Bit().constData());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void TstLaunchJob::fourWorkersTwoNodes_data()
{
    QTest::addColumn<QString>("extra");
    QTest::newRow("all-reduce barrier") << QString();
    QTest::newRow("no barrier (period)") << QString("--no-barrier");
}

void TstLaunchJob::fourWorkersTwoNodes()
{
    QFETCH(QString, extra);
    QTemporaryDir dir;
    QCOMPARE(launch(dir.path(), extra), 0);
    for (int rank = 0; rank < 4; ++rank) {
        const std::string path =
            dir.filePath(QString("timer_events.%1.log").arg(rank)).toStdString();
        const testlog::Log log = testlog::read(path);
        QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
        const nlohmann::json &h = log.records.front();
        QCOMPARE(h["rank"].get<int>(), rank);
        QCOMPARE(h["world_size"].get<int>(), 4);
        QCOMPARE(h["local_rank"].get<int>(), rank % 2);
        QCOMPARE(h["group_rank"].get<int>(), rank / 2);
        QCOMPARE(h["role"].get<std::string>(), std::string("trainer"));
        QCOMPARE(h["run_id"].get<std::string>(), std::string("tst-run"));
        QCOMPARE(h["host"].get<std::string>(), "node-" + std::to_string(rank / 2));
        QCOMPARE(h["boot_id"].get<std::string>(), "emulated-boot-" + std::to_string(rank / 2));
        QCOMPARE(h.contains("skew"), rank >= 2);
        if (rank >= 2) {
            QCOMPARE(h["skew"]["offset_ns"].get<int64_t>(), int64_t(3000000));
            QCOMPARE(h["skew"]["drift_ppm"].get<double>(), 40.0);
        }
        QCOMPARE(log.records.back()["t"].get<std::string>(), std::string("close"));
        QCOMPARE(log.records.back()["open"].get<int>(), 0);
        int steps = 0, reduces = 0;
        for (const auto &b : log.ofType("B")) {
            steps += b["name"] == "step";
            reduces += b["name"] == "all_reduce";
        }
        QCOMPARE(steps, 3);
        QCOMPARE(reduces, 3);
        QCOMPARE(log.ofType("thread").size(), size_t(2)); // trainer + data_loader
        QVERIFY(!log.ofType("sync").empty());             // rank 0 hosts the time server
        QVERIFY(log.ofType("I").empty()); // no barrier_timeout / barrier_lost, no checkpoint
    }
}

namespace {

// The ns of CLOCK_MONOTONIC_RAW (shared by all processes here) at which a worker stamped
// `local`: the header's `skew` undone (stamp = raw·(1 + ppm·1e-6) + offset).
double trueNs(const nlohmann::json &header, int64_t local)
{
    if (!header.contains("skew"))
        return double(local);
    const auto &skew = header["skew"];
    return double(local - skew["offset_ns"].get<int64_t>()) /
           (1.0 + skew["drift_ppm"].get<double>() * 1e-6);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

void TstLaunchJob::allReduceIsACollective()
{
    QTemporaryDir dir;
    const int steps = 12;
    // --sync-ms 500: were the all_reduce paced by the period (the fallback), it would end up to
    // 500 ms after the last rank arrived, not at once.
    QCOMPARE(launch(dir.path(), "--steps 12 --node-offset-ms 3.2 -- --sync-ms 500"), 0);
    std::map<int, std::vector<int64_t>> begins, ends; // local stamps per rank, in step order
    std::map<int, nlohmann::json> headers;
    for (int rank = 0; rank < 4; ++rank) {
        const testlog::Log log =
            testlog::read(dir.filePath(QString("timer_events.%1.log").arg(rank)).toStdString());
        headers[rank] = log.records.front();
        for (const auto &r : log.records) {
            if (r.value("name", "") != "all_reduce")
                continue;
            (r["t"] == "B" ? begins : ends)[rank].push_back(r["ts"].get<int64_t>());
        }
        QCOMPARE(int(ends[rank].size()), steps);
        for (const auto &i : log.ofType("I")) // every release came: no barrier_timeout / _lost
            QCOMPARE(i["name"].get<std::string>(), std::string("checkpoint"));
    }
    std::vector<double> trueSpread, localGap, releaseLag;
    int stragglerShortest = 0;
    for (int k = 0; k < steps; ++k) {
        double lo = 1e300, hi = -1e300, lastArrival = -1e300, shortest = 1e300;
        int shortestRank = -1;
        for (int rank = 0; rank < 4; ++rank) {
            const double end = trueNs(headers[rank], ends[rank][k]);
            lo = std::min(lo, end);
            hi = std::max(hi, end);
            const double begin = trueNs(headers[rank], begins[rank][k]);
            lastArrival = std::max(lastArrival, begin);
            const double wait = end - begin;
            if (wait < shortest) {
                shortest = wait;
                shortestRank = rank;
            }
        }
        QVERIFY2(lo > lastArrival, "a rank left the all_reduce before the last one arrived");
        releaseLag.push_back(hi - lastArrival);
        trueSpread.push_back(hi - lo);
        localGap.push_back(double(ends[2][k] - ends[0][k]));
        stragglerShortest += shortestRank == 3; // the last rank is the straggler
    }
    // One release message ends every rank's wait: ~100 µs apart on loopback; 2 ms allows for a
    // loaded machine's scheduling (times the sanitizer slowdown: TSan's workers ran a median
    // 2.08 ms late at load 10; the period fallback would be up to 500 ms). The stamps themselves
    // are the node skew (>= 3.2 ms) apart.
    const double lagBound = 2e6 * syncline::test::kSanitizerSlowdown;
    QVERIFY2(median(trueSpread) < lagBound,
             qPrintable(QString("median spread of the true all_reduce "
                                "ends %1 ns")
                            .arg(median(trueSpread))));
    QVERIFY2(median(releaseLag) < lagBound,
             qPrintable(QString("the last end came a median %1 ns after "
                                "the last arrival")
                            .arg(median(releaseLag))));
    QVERIFY2(median(localGap) > 3.2e6,
             qPrintable(QString("node-1's stamps only %1 ns ahead").arg(median(localGap))));
    QVERIFY2(stragglerShortest > steps / 2,
             qPrintable(QString("the straggler waited least in only %1 of %2 all_reduces")
                            .arg(stragglerShortest)
                            .arg(steps)));
}

void TstLaunchJob::failingWorker()
{
    QTemporaryDir dir;
    QCOMPARE(launch(dir.path(), "-- --bogus-option"), 1);
}

QTEST_APPLESS_MAIN(TstLaunchJob)
#include "tst_launchjob.moc"
