// Workers of one job synced to two different time servers (two reference clocks: their refs carry
// different boot hashes) with real processes: two `syncline timeserver` processes on loopback,
// each told another boot id (SYNCLINE_BOOT_ID, as two hosts would have), ranks 0-1 syncing with
// the first and ranks 2-3 with the second (SYNCLINE_TIME_SERVER), each worker with its own
// synthetic clock and emulated host (skew_worker). Two servers' clocks are unrelated, so the job
// has no one corrected clock: `syncline check` must say so (a warning, exit status 1, the clock
// note naming which ranks used which reference), and `stats --json` must give ranks 2-3 no
// sync-sample correction and no µs bound against rank 0's reference.
#include "tests/common/monotonicraw.h"
#include "tests/common/synclinerun.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <memory>
#include <unistd.h>

namespace {

using synclinerun::Run;

// A `syncline timeserver` on 127.0.0.1 with its own boot id; stopped (SIGTERM) when destroyed.
class TimeServer
{
public:
    explicit TimeServer(const QString &bootId)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SYNCLINE_BOOT_ID", bootId);
        m_process.setProcessEnvironment(env);
        m_process.start(SYNCLINE_BINARY_DIR "/bin/syncline",
                        {"timeserver", "--port", "0", "--bind", "127.0.0.1", "--token", "tst-job"});
        if (!m_process.waitForStarted(5000) || !m_process.waitForReadyRead(10000))
            return;
        const auto m = QRegularExpression("port (\\d+)").match(m_process.readLine());
        if (m.hasMatch())
            m_port = m.captured(1).toInt();
    }
    ~TimeServer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(pid_t(m_process.processId()), SIGTERM);
            m_process.waitForFinished(5000);
        }
    }
    int port() const { return m_port; }

private:
    QProcess m_process;
    int m_port = 0;
};

} // namespace

class TstReferenceClocks : public QObject
{
    Q_OBJECT
private slots:
    void twoTimeServersAreTwoReferences();
};

void TstReferenceClocks::twoTimeServersAreTwoReferences()
{
    TimeServer a("tst-reference-a"), b("tst-reference-b");
    QVERIFY(a.port() > 0 && b.port() > 0);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath("timer_config.json");
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QString("{\"sync\": {\"server\": \"127.0.0.1:%1\", \"burst_size\": 8, "
                        "\"interval_s\": 0.1, \"timeout_ms\": 100, \"token\": \"tst-job\"}}\n")
                    .arg(a.port())
                    .toUtf8());
    }
    const int n = 4;
    const int64_t startRaw = syncline::test::monotonicRawNs() + 1'000'000'000;
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int r = 0; r < n; ++r) {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SYNCLINE_TIME_SERVER",
                   QString("127.0.0.1:%1").arg(r < 2 ? a.port() : b.port()));
        env.insert("RANK", QString::number(r));
        env.insert("LOCAL_RANK", "0");
        env.insert("WORLD_SIZE", QString::number(n));
        env.insert("SYNCLINE_HOST", QString("emulated-host-%1").arg(r));
        env.insert("SYNCLINE_BOOT_ID", QString("emulated-boot-%1").arg(r));
        env.insert("SYNCLINE_TEST_CLOCK_OFFSET_NS", QString::number(int64_t(r) * 250'000'000));
        p->setProcessEnvironment(env);
        p->setProcessChannelMode(QProcess::MergedChannels);
        p->start(SYNCLINE_BINARY_DIR "/tests/skew_worker",
                 {"--config", config, "--log", dir.filePath("timer_events.log"), "--start-raw",
                  QString::number(startRaw), "--period-ms", "100", "--rounds", "4", "--tail-ms",
                  "300"});
        QVERIFY2(p->waitForStarted(5000), qPrintable(p->errorString()));
        workers.push_back(std::move(p));
    }
    for (auto &p : workers) {
        QVERIFY(p->waitForFinished(30000));
        const QString out = QString::fromUtf8(p->readAll());
        QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, qPrintable(out));
    }

    // check: the clock note names both references and the ranks of each; a warning; status 1.
    const Run check = synclinerun::syncline({"check", dir.path()});
    const QString out = QString::fromStdString(check.out);
    qInfo("%s", qPrintable(out));
    QVERIFY2(check.exitCode == 1, qPrintable(out + QString::fromStdString(check.err)));
    const QString refA = QString("127.0.0.1:%1@").arg(a.port());
    const QString refB = QString("127.0.0.1:%1@").arg(b.port());
    const QRegularExpression note(
        "clock: workers synced to 2 unrelated reference clocks \\(time servers; no shared "
        "corrected clock\\): ranks 0-1 to " +
        QRegularExpression::escape(refA) + "[0-9a-f]{16} \\(the reference\\), ranks 2-3 to " +
        QRegularExpression::escape(refB) + "[0-9a-f]{16}; ranks 2-3 not placed on the reference");
    QVERIFY2(note.match(out).hasMatch(), qPrintable(out));
    QVERIFY2(out.contains("warning: rank(s) 2, 3 synced to another reference clock (time server) "
                          "than the job's reference"),
             qPrintable(out));
    QVERIFY2(out.contains("rank 2: not corrected (synced to another reference clock"),
             qPrintable(out));

    // stats: ranks 0-1 corrected by their samples (µs bounds on loopback); ranks 2-3 not on that
    // scale, so neither the method nor a bound claims they are.
    const Run stats = synclinerun::syncline({"stats", "--json", dir.path()});
    QCOMPARE(stats.exitCode, 0);
    const auto doc = nlohmann::json::parse(stats.out);
    QCOMPARE(doc["workers"].size(), size_t(n));
    for (const auto &w : doc["workers"]) {
        const int rank = w["rank"].get<int>();
        const auto &clock = w["clock"];
        const std::string method = clock["method"].get<std::string>();
        const int64_t bound = clock["bound_ns"].get<int64_t>();
        if (rank < 2) {
            QCOMPARE(method, std::string("sync"));
            QVERIFY2(bound > 0 && bound < 1'000'000, qPrintable(QString::number(bound)));
        } else {
            QCOMPARE(method, std::string("none"));
            QCOMPARE(bound, int64_t(0)); // none: no bound against the reference
        }
    }
}

QTEST_GUILESS_MAIN(TstReferenceClocks)
#include "tst_referenceclocks.moc"
