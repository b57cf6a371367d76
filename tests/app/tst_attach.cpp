// `syncline attach` as a real process: headless --until-idle while real live_worker processes
// write (one finishes, one is killed, one starts late), its CSV and PNG outputs and printed
// worker states; more logs than the process's open-file limit; argument errors.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/resource.h>
#include <thread>

namespace {

const QString kSyncline = QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline");
const QString kWorker = QStringLiteral(SYNCLINE_BINARY_DIR "/tests/live_worker");

void writeFile(const QString &path, const std::string &text)
{
    std::ofstream(path.toStdString()) << text;
}

std::unique_ptr<QProcess> startWorker(const QString &dir, int rank, int steps)
{
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", QString::number(rank));
    env.insert("WORLD_SIZE", "3");
    p->setProcessEnvironment(env);
    p->setProcessChannelMode(QProcess::ForwardedChannels);
    p->start(kWorker, {"--config", dir + "/timer_config.json", "--log", dir + "/rank{rank}.log",
                       "--steps", QString::number(steps), "--step-ms", "5"});
    return p;
}

// rank → status column values seen in the CSV
std::map<int, std::set<std::string>> csvStatuses(const QString &path, std::string *header)
{
    std::ifstream in(path.toStdString());
    std::getline(in, *header);
    std::map<int, std::set<std::string>> out;
    for (std::string line; std::getline(in, line);) {
        const std::string status = line.substr(line.rfind(',') + 1);
        out[std::stoi(line.substr(0, line.find(',')))].insert(status);
    }
    return out;
}

} // namespace

class TstAttach : public QObject
{
    Q_OBJECT

private slots:
    void headlessFollowsARealJob();
    void moreLogsThanTheFileLimit_data();
    void moreLogsThanTheFileLimit();
    void badArguments_data();
    void badArguments();
};

void TstAttach::headlessFollowsARealJob()
{
    QTemporaryDir dir;
    const QString d = dir.path();
    writeFile(d + "/timer_config.json",
              "{\"log_path\":\"rank{rank}.log\",\"flush_interval_ms\":20,"
              "\"heartbeat_interval_ms\":100,\"silent_after_s\":1.0,\"sync\":{\"enabled\":false},"
              "\"event_kinds\":[{\"name\":\"step\",\"expected_max_ms\":1000}]}");
    auto r0 = startWorker(d, 0, 60);      // finishes by itself
    auto r1 = startWorker(d, 1, 1000000); // killed below
    QVERIFY(r0->waitForStarted() && r1->waitForStarted());

    QProcess attach;
    attach.start(kSyncline, {"attach", d, "--until-idle", "1.5", "--csv", d + "/out.csv", "--png",
                             d + "/out.png", "--width", "800", "--height", "400"});
    QVERIFY(attach.waitForStarted());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto r2 = startWorker(d, 2, 40); // a new rank while attached
    QVERIFY(r2->waitForStarted());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid_t(r1->processId()), SIGKILL);
    QVERIFY(r1->waitForFinished(10000));
    QVERIFY(r0->waitForFinished(20000));
    QVERIFY(r2->waitForFinished(20000));
    QCOMPARE(r0->exitCode(), 0);

    QVERIFY2(attach.waitForFinished(45000), "attach stops once the directory is idle");
    const QString out = QString::fromLocal8Bit(attach.readAllStandardOutput());
    const QString err = QString::fromLocal8Bit(attach.readAllStandardError());
    QVERIFY2(attach.exitStatus() == QProcess::NormalExit && attach.exitCode() == 0,
             qPrintable(out + err));
    QVERIFY2(out.contains("3 workers"), qPrintable(out));
    QVERIFY2(out.contains(QRegularExpression("rank 0 restart 0: finished cleanly, \\d+ events")),
             qPrintable(out));
    QVERIFY2(out.contains("rank 1 restart 0: ended without a closing record"), qPrintable(out));
    QVERIFY2(out.contains("rank 2 restart 0: finished cleanly"), qPrintable(out));

    std::string header;
    const auto statuses = csvStatuses(d + "/out.csv", &header);
    QCOMPARE(header, std::string("rank,restart,host,pid,tid,name,depth,start_ns,end_ns,"
                                 "duration_ns,local_start_ns,local_end_ns,status"));
    QCOMPARE(statuses.size(), size_t(3));
    QVERIFY(statuses.at(0).count("complete"));
    QVERIFY(!statuses.at(0).count("open")); // a clean finish leaves nothing open
    QVERIFY(statuses.at(2).count("complete"));
    const QImage png(d + "/out.png");
    QCOMPARE(png.size(), QSize(800, 400));
}

void TstAttach::moreLogsThanTheFileLimit_data()
{
    QTest::addColumn<int>("hardLimit");
    // attach raises its soft limit to the hard one; with no room above, it keeps only some logs
    // open and opens the others for each read.
    QTest::newRow("soft 256, hard 4096") << 4096;
    QTest::newRow("soft and hard 256") << 256;
}

void TstAttach::moreLogsThanTheFileLimit()
{
    QFETCH(int, hardLimit);
    QTemporaryDir dir;
    const QString d = dir.path();
    const int n = 1101;
    for (int r = 0; r < n; ++r) {
        std::ostringstream log;
        log << R"({"t":"header","format":"syncline","version":1,"rank":)" << r
            << R"(,"restart":0,"host":"other-host","boot_id":"other-boot","pid":7,)"
            << R"("clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":1700000000000000000,)"
            << R"("spread_ns":1},"config":null,"start_ns":0})"
            << "\n"
            << R"({"t":"B","ts":1000,"tid":1,"name":"step"})"
            << "\n"
            << R"({"t":"E","ts":2000,"tid":1,"name":"step"})"
            << "\n"
            << R"({"t":"close","ts":3000,"events":1,"dropped":0,"open":0})"
            << "\n";
        writeFile(d + QString("/timer_events.%1.log").arg(r), log.str());
    }
    QProcess attach;
    attach.setChildProcessModifier([hardLimit] {
        const struct rlimit rl = {256, rlim_t(hardLimit)};
        ::setrlimit(RLIMIT_NOFILE, &rl);
    });
    attach.start(kSyncline, {"attach", d, "--until-idle", "0.5"});
    QVERIFY(attach.waitForFinished(60000));
    const QString out = QString::fromLocal8Bit(attach.readAllStandardOutput());
    const QString err = QString::fromLocal8Bit(attach.readAllStandardError());
    QVERIFY2(attach.exitStatus() == QProcess::NormalExit && attach.exitCode() == 0,
             qPrintable(err.right(2000)));
    QVERIFY2(out.contains(QString("%1 workers, %1 events").arg(n)), qPrintable(out.left(500)));
    QCOMPARE(out.count(QRegularExpression("rank \\d+ restart 0: finished cleanly, 1 events")), n);
    QVERIFY2(!err.contains("error"), qPrintable(err.right(2000)));
}

void TstAttach::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no dir") << QStringList{"attach"} << "which directory";
    QTest::newRow("missing dir") << QStringList{"attach", "/nonexistent/job", "--until-idle", "1"}
                                 << "no such file or directory";
    QTest::newRow("outputs need idle")
        << QStringList{"attach", "/tmp", "--csv", "x.csv"} << "need --until-idle";
    QTest::newRow("bad idle") << QStringList{"attach", "/tmp", "--until-idle", "soon"}
                              << "--until-idle needs";
    QTest::newRow("bad poll") << QStringList{"attach", "/tmp", "--poll=1"} << "--poll=MS";
}

void TstAttach::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QProcess p;
    p.start(kSyncline, args);
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromLocal8Bit(p.readAllStandardError());
    QVERIFY2(err.contains(message), qPrintable(err));
}

QTEST_GUILESS_MAIN(TstAttach)
#include "tst_attach.moc"
