// Load progress of the job verbs: `syncline check|stats` draw the loader's progress
// line (stage, %, ETA) on stderr only when stderr is a terminal — a real pseudo-terminal here
// (forkpty) — and print nothing of it when stderr is a pipe or with --quiet.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <poll.h>
#include <pty.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

const char *kBinary = SYNCLINE_BINARY_DIR "/bin/syncline";

// A small job: two ranks, nested steps with args, a message pair and sync samples.
void writeJob(const QString &dir)
{
    for (int rank = 0; rank < 2; ++rank) {
        std::ofstream f((dir + QStringLiteral("/timer_events.%1.log").arg(rank)).toStdString());
        f << R"({"t":"header","format":"syncline","version":1,"rank":)" << rank
          << R"(,"restart":0,"host":"h)" << rank << R"(","boot_id":"b)" << rank
          << R"(","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":1700000000000000000,"spread_ns":1},"config":null,"start_ns":0})"
          << "\n";
        for (int step = 0; step < 200; ++step) {
            const long t = 1000000L * step;
            f << R"({"t":"B","ts":)" << t << R"(,"tid":1,"name":"step","args":{"step":)" << step
              << "}}\n";
            f << R"({"t":"X","ts":)" << t + 10
              << R"(,"dur":500,"tid":1,"name":"fwd","args":{"step":)" << step << "}}\n";
            f << R"({"t":"msg","ts":)" << t + 600 << R"(,"tid":1,"dir":")"
              << (rank == 0 ? "send" : "recv") << R"(","peer":)" << 1 - rank << R"(,"id":"m-)"
              << step << "\"}\n";
            f << R"({"t":"E","ts":)" << t + 900 << R"(,"tid":1,"name":"step"})"
              << "\n";
        }
        f << R"({"t":"close","ts":200000000,"events":600,"dropped":0,"open":0})"
          << "\n";
    }
}

// Runs syncline with stdin/stdout/stderr on a new pseudo-terminal; returns what it printed.
std::string runOnPty(const std::vector<std::string> &args, int *exitCode)
{
    int master = -1;
    const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        std::vector<char *> argv{const_cast<char *>(kBinary)};
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(kBinary, argv.data());
        ::_exit(127);
    }
    std::string out;
    if (pid < 0)
        return out;
    char buf[4096];
    while (true) {
        pollfd p{master, POLLIN, 0};
        if (::poll(&p, 1, 60000) <= 0)
            break;
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n <= 0)
            break; // EIO once the child has exited and closed the terminal
        out.append(buf, size_t(n));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

} // namespace

class TstCliProgress : public QObject
{
    Q_OBJECT

private slots:
    void terminalGetsProgress()
    {
        QTemporaryDir dir;
        writeJob(dir.path());
        int code = -1;
        const std::string out = runOnPty({"check", dir.path().toStdString()}, &code);
        QCOMPARE(code, 0);
        QVERIFY2(out.find("syncline check: parsing: ") != std::string::npos, out.c_str());
        QVERIFY2(out.find("correcting clocks") != std::string::npos, out.c_str());
        QVERIFY2(out.find('%') != std::string::npos, out.c_str());
        // The line is erased at the end, and the verb's own output follows.
        QVERIFY2(out.find("\r\033[K") != std::string::npos, out.c_str());
        QVERIFY2(out.find("2 worker(s), 800 event(s)") != std::string::npos, out.c_str());
    }

    void quietTerminalGetsNone()
    {
        QTemporaryDir dir;
        writeJob(dir.path());
        int code = -1;
        const std::string out = runOnPty({"stats", "--quiet", dir.path().toStdString()}, &code);
        QCOMPARE(code, 0);
        QVERIFY2(out.find("parsing") == std::string::npos, out.c_str());
        QVERIFY2(out.find("\033[K") == std::string::npos, out.c_str());
        QVERIFY2(out.find("step") != std::string::npos, out.c_str()); // the stats table
    }

    void pipeGetsNone()
    {
        QTemporaryDir dir;
        writeJob(dir.path());
        for (const char *verb : {"check", "stats"}) {
            QProcess p;
            p.start(QString::fromLatin1(kBinary), {QString::fromLatin1(verb), dir.path()});
            QVERIFY(p.waitForFinished(60000));
            QCOMPARE(p.exitCode(), 0);
            const QByteArray err = p.readAllStandardError();
            QVERIFY2(!err.contains("parsing") && !err.contains('\r') && !err.contains('%'),
                     err.constData());
            QVERIFY(!p.readAllStandardOutput().isEmpty());
        }
    }
};

QTEST_APPLESS_MAIN(TstCliProgress)
#include "tst_cliprogress.moc"
