// Process and failure behaviour of FileTimerClient, with real files and real processes: a
// writing child killed with SIGKILL keeps every event older than the flush interval; an
// unwritable path and a full disk give one clear message and the process goes on; after fork()
// the inherited client is disabled; a normal exit() writes the close record.
#include "../common/monotonicraw.h"
#include "../common/stderrcapture.h"
#include "logreader.h"
#include "recorder/filetimerclient.h"
#include "recordertest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace syncline::rec;
namespace test = syncline::test;
using test::inChild;
using test::writeConfig;

class TstRecorderProcess : public QObject
{
    Q_OBJECT
private slots:
    void killedChildKeepsFlushedEvents();
    void unwritablePath();
    void fullDisk();
    void logDeletedWhileWritten();
    void fifoLogPathRefused();
    void forkChildIsDisabled();
    void exitWritesClose();
};

void TstRecorderProcess::killedChildKeepsFlushedEvents()
{
    SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN();
    QTemporaryDir dir;
    const std::string cfg = writeConfig(dir, R"({"flush_interval_ms": 20})");
    const std::string logPath = dir.filePath("killed.log").toStdString();
    const pid_t pid = fork();
    if (pid == 0) {
        FileTimerClient client(cfg, logPath);
        for (int64_t i = 0;; ++i) {
            client.startEvent("step", {{"i", i}});
            const timespec pause{0, 200000};
            nanosleep(&pause, nullptr);
            client.endEvent("step");
        }
    }
    QTest::qSleep(500);
    const int64_t killedAt = test::monotonicRawNs();
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    const testlog::Log log = testlog::read(logPath);
    QVERIFY2(log.problems.empty(), log.problems.empty() ? "" : log.problems[0].c_str());
    QCOMPARE(log.records.front()["t"].get<std::string>(), std::string("header"));
    QCOMPARE(log.records.front()["pid"].get<int64_t>(), int64_t(pid));
    QVERIFY(log.ofType("close").empty());
    const auto begins = log.ofType("B");
    QVERIFY(begins.size() > 10);
    // Steps are consecutive from 0: nothing lost in the written prefix.
    for (size_t k = 0; k < begins.size(); ++k)
        QCOMPARE(begins[k]["args"]["i"].get<int64_t>(), int64_t(k));
    // Every event older than the flush interval (20 ms) is in the file; allow 100 ms of
    // scheduling delay on a loaded machine.
    const int64_t lastTs = begins.back()["ts"].get<int64_t>();
    QVERIFY2(killedAt - lastTs < (20 + 100) * 1000000LL,
             qPrintable(
                 QString("last event %1 ms before the kill").arg(double(killedAt - lastTs) / 1e6)));
}

void TstRecorderProcess::unwritablePath()
{
    QTemporaryDir dir;
    const std::string file = dir.filePath("plainfile").toStdString();
    std::ofstream(file) << "x";
    const std::string logPath = file + "/sub/events.log"; // a path under a regular file
    test::StderrCapture capture;
    FileTimerClient client("", logPath);
    for (int k = 0; k < 1000; ++k) {
        client.startEvent("still-works");
        client.endEvent("still-works");
    }
    client.flush();
    client.close();
    const std::string err = capture.text();
    QVERIFY(!client.ok());
    QVERIFY(client.stats().ioError);
    const std::string expected = "cannot open log file '" + logPath +
                                 "': Not a directory; events will not be recorded (the process "
                                 "goes on)";
    QCOMPARE(client.lastError(), expected);
    QCOMPARE(err, "syncline: " + expected + "\n");
    QCOMPARE(client.stats().events, uint64_t(2001));
}

void TstRecorderProcess::fullDisk()
{
    test::StderrCapture capture;
    FileTimerClient client("", "/dev/full");
    client.startEvent("a");
    client.endEvent("a");
    client.flush();
    client.instant("b");
    client.close();
    const std::string err = capture.text();
    const std::string expected = "writing log file '/dev/full' failed: No space left on device; "
                                 "further events are discarded (the process goes on)";
    QCOMPARE(client.lastError(), expected);
    QCOMPARE(err, "syncline: " + expected + "\n"); // said once
    QCOMPARE(client.stats().bytes, uint64_t(0));
    QCOMPARE(client.stats().written, uint64_t(0)); // nothing reached the file (was 3)
}

// A log deleted while being written: writes went on into the unlinked inode
// with ok() true, and stats said written=182503 for a file nobody can read. The writer checks
// st_nlink at every heartbeat: the deletion is reported like a write failure, once, and from
// then on events are discarded, not counted as written.
void TstRecorderProcess::logDeletedWhileWritten()
{
    QTemporaryDir dir;
    const std::string cfg = writeConfig(dir, R"({"heartbeat_interval_ms": 10})");
    const std::string logPath = dir.filePath("deleted.log").toStdString();
    test::StderrCapture capture;
    FileTimerClient client(cfg, logPath);
    client.startEvent("a");
    client.endEvent("a");
    client.flush();
    QVERIFY(client.ok());
    const uint64_t before = client.stats().written; // B, E and the thread record
    QVERIFY(before >= 2);
    QCOMPARE(::unlink(logPath.c_str()), 0);
    QTRY_VERIFY_WITH_TIMEOUT(client.stats().ioError, 10000);
    QVERIFY(!client.ok());
    const std::string expected = "log file '" + logPath +
                                 "' was deleted while being written; further events are discarded "
                                 "(the process goes on)";
    QCOMPARE(client.lastError(), expected);
    for (int i = 0; i < 100; ++i)
        client.instant("after");
    client.flush();
    QCOMPARE(client.stats().written, before);
    QCOMPARE(client.stats().events, before + 100);
    client.close();
    QCOMPARE(capture.text(), "syncline: " + expected + "\n"); // said once
}

// A FIFO at the log path (no reader): the constructor must neither block in open() nor write
// into it; it refuses the path with the one-line "cannot open" message and the process goes on.
// Run in a child process so a blocked open() is seen as such (the parent then releases it).
void TstRecorderProcess::fifoLogPathRefused()
{
    SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN();
    QTemporaryDir dir;
    const std::string fifo = dir.filePath("timer_events.log").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
    const std::string errFile = dir.filePath("stderr.txt").toStdString();
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = ::open(errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 2);
        FileTimerClient client("", fifo);
        for (int k = 0; k < 1000; ++k) {
            client.startEvent("still-works");
            client.endEvent("still-works");
        }
        client.flush();
        client.close();
        const bool ok = !client.ok() && client.stats().ioError && client.stats().events == 2001;
        _exit(ok ? 0 : 3);
    }
    int status = 0;
    bool blocked = true;
    for (int k = 0; k < 500 && blocked; ++k) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            blocked = false;
        else
            QTest::qSleep(10);
    }
    if (blocked) {
        // Release a child blocked in open(): a reader appears, then kill it.
        const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        QTest::qSleep(100);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ::close(fd);
    }
    QVERIFY2(!blocked, "the recorder's constructor blocked in open() on a FIFO log path");
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
    std::ifstream in(errFile);
    const std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    QCOMPARE(err, "syncline: cannot open log file '" + fifo +
                      "': not a regular file (FIFO); events will not be recorded (the process "
                      "goes on)\n");
    struct stat st
    {
    };
    QCOMPARE(::stat(fifo.c_str(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode)); // left as it was
}

void TstRecorderProcess::forkChildIsDisabled()
{
    SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN();
    QTemporaryDir dir;
    const std::string parentLog = dir.filePath("parent.log").toStdString();
    const std::string childLog = dir.filePath("child.log").toStdString();
    FileTimerClient client("", parentLog);
    client.startEvent("before-fork");
    const int rc = inChild([&] {
        // Inherited client: disabled, silent, no exceptions, no writes.
        if (client.enabled())
            return false;
        client.startEvent("in-child");
        client.endEvent("never-opened"); // no TimerError: calls are no-ops
        client.instant("in-child");
        client.flush();
        // A client created in the child works normally.
        FileTimerClient own("", childLog);
        own.startEvent("child-work");
        own.endEvent("child-work");
        own.close();
        return own.ok() && own.stats().written == 3;
    });
    QCOMPARE(rc, 0);
    client.endEvent("before-fork");
    client.close();
    const testlog::Log parent = testlog::read(parentLog);
    QVERIFY(parent.problems.empty());
    QCOMPARE(parent.ofType("B").size(), size_t(1));
    QCOMPARE(parent.ofType("E").size(), size_t(1));
    QCOMPARE(parent.ofType("I").size(), size_t(0));
    QCOMPARE(parent.ofType("close").size(), size_t(1));
    QCOMPARE(parent.ofType("header").size(), size_t(1));
    const testlog::Log child = testlog::read(childLog);
    QVERIFY(child.problems.empty());
    QCOMPARE(child.ofType("B")[0]["name"].get<std::string>(), std::string("child-work"));
    QCOMPARE(child.ofType("close").size(), size_t(1));
    QVERIFY(child.records.front()["pid"].get<int64_t>() != int64_t(getpid()));
}

void TstRecorderProcess::exitWritesClose()
{
    SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN();
    QTemporaryDir dir;
    const std::string logPath = dir.filePath("exit.log").toStdString();
    const pid_t pid = fork();
    if (pid == 0) {
        auto *leaked = new FileTimerClient("", logPath); // never closed or deleted
        leaked->startEvent("open-at-exit");
        std::exit(0); // normal exit: the atexit handler writes the close record
    }
    int status = 0;
    waitpid(pid, &status, 0);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const testlog::Log log = testlog::read(logPath);
    QVERIFY(log.problems.empty());
    QCOMPARE(log.records.back()["t"].get<std::string>(), std::string("close"));
    QCOMPARE(log.records.back()["open"].get<int>(), 1);
}

QTEST_APPLESS_MAIN(TstRecorderProcess)
#include "tst_recorderprocess.moc"
