// Process test of examples/launch_job.py with the real example_worker: 4 workers on 2 emulated
// nodes, torchrun-style identities, per-node synthetic skew, complete logs; a failing worker
// makes the launcher fail.
#include "logreader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>

class TstLaunchJob : public QObject
{
    Q_OBJECT
private slots:
    void fourWorkersTwoNodes();
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

void TstLaunchJob::fourWorkersTwoNodes()
{
    QTemporaryDir dir;
    QCOMPARE(launch(dir.path(), ""), 0);
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
    }
}

void TstLaunchJob::failingWorker()
{
    QTemporaryDir dir;
    QCOMPARE(launch(dir.path(), "-- --bogus-option"), 1);
}

QTEST_APPLESS_MAIN(TstLaunchJob)
#include "tst_launchjob.moc"
