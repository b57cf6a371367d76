// Tests for LiveJob / LiveFile when a followed log changes under it: truncated
// and rewritten (shorter or longer than before, or emptied first), replaced by rename() with
// another incarnation's log or with an extended copy of itself, and truncated by a real
// recorder's log rotation (copytruncate: the recorder writes with O_APPEND and goes on at the new
// end). Each change is reported once; what was read before stays; nothing of the new file is lost
// or read twice; the old worker's state no longer changes.
#include "tests/timeline/testlogs.h"

#include "timeline/live/livejob.h"

#include <QtTest>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace syncline;

namespace {

void append(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

std::string closeRecord(int64_t ts)
{
    return "{\"t\":\"close\",\"ts\":" + std::to_string(ts) +
           ",\"events\":1,\"dropped\":0,\"open\":0}\n";
}

// `n` X events on tid 1 from ts `from`, 100 ns apart, named `name`.
std::string events(int n, int64_t from, const std::string &name)
{
    std::string text;
    for (int i = 0; i < n; ++i)
        text += testlogs::complete(from + 100 * i, 50, 1, name);
    return text;
}

LiveOptions options(const std::string &dir)
{
    LiveOptions o;
    o.path = dir;
    return o;
}

int workerOf(const LiveJob &job, int rank, int restart)
{
    const Timeline &tl = *job.timeline();
    for (size_t i = 0; i < tl.workers.size(); ++i)
        if (tl.workers[i].info.rank == rank && tl.workers[i].info.restart == restart)
            return int(i);
    return -1;
}

size_t eventsOf(const LiveJob &job, int rank, int restart)
{
    const int w = workerOf(job, rank, restart);
    return w < 0 ? 0 : job.timeline()->workers[size_t(w)].eventCount();
}

// Notes that `path` was replaced or truncated (LoadProblem::Kind::FileReplaced) whose message
// contains `text` (which of the cases it was).
ptrdiff_t problemsAbout(const LiveJob &job, const std::string &path, const std::string &text)
{
    const auto &problems = job.timeline()->problems;
    return std::count_if(problems.begin(), problems.end(), [&](const LoadProblem &p) {
        return p.file == path && p.kind == LoadProblem::Kind::FileReplaced &&
               p.message.find(text) != std::string::npos;
    });
}

bool pollUntil(LiveJob &job, const std::function<bool()> &done, int timeoutMs = 30000)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < until) {
        job.poll();
        if (done())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

} // namespace

class TstLiveReplace : public QObject
{
    Q_OBJECT

private slots:
    void truncatedAndRewritten_data();
    void truncatedAndRewritten();
    void renamedOverByAnotherIncarnation();
    void renamedOverByExtendedCopy();
    void renamedOverWhileClosed();
    void realRecorderCopytruncate();
};

void TstLiveReplace::truncatedAndRewritten_data()
{
    QTest::addColumn<int>("newEvents");
    QTest::addColumn<bool>("emptiedFirst");
    QTest::newRow("shorter") << 3 << false;
    QTest::newRow("longer") << 3500 << false; // past the old size: no shrink to see
    QTest::newRow("emptied, then written") << 40 << true;
}

// The same inode truncated and rewritten by another incarnation (restart 1): the first file's
// 20 events and its clean finish stay, the new file is a second worker with all its events.
void TstLiveReplace::truncatedAndRewritten()
{
    QFETCH(int, newEvents);
    QFETCH(bool, emptiedFirst);
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/timer_events.0.log";
    testlogs::write(log, testlogs::header(0) + events(20, 2000, "old") + closeRecord(9000));
    LiveJob job(options(d));
    job.poll();
    QCOMPARE(eventsOf(job, 0, 0), size_t(20));
    QCOMPARE(job.state(0), WorkerState::Finished);

    const std::string next = testlogs::header(0, 1) + events(newEvents, 50000, "new");
    if (emptiedFirst) {
        testlogs::write(log, ""); // O_TRUNC on the same inode
        job.poll();
        job.poll();
        QCOMPARE(job.workerCount(), size_t(1)); // nothing to decide on yet
        append(log, next.substr(0, 30));        // a first line still being written
        job.poll();
        QCOMPARE(job.workerCount(), size_t(1));
        append(log, next.substr(30));
    } else {
        testlogs::write(log, next);
    }
    job.poll();
    job.poll();
    QCOMPARE(job.workerCount(), size_t(2));
    QCOMPARE(eventsOf(job, 0, 0), size_t(20));
    QCOMPARE(eventsOf(job, 0, 1), size_t(newEvents));
    QCOMPARE(job.state(size_t(workerOf(job, 0, 0))), WorkerState::Finished);
    QCOMPARE(problemsAbout(job, log, "followed from its start as another worker incarnation"),
             ptrdiff_t(1));
    // More of the new file is read on; the old worker's state stays what it was.
    append(log, events(5, 900000, "more") + closeRecord(990000));
    for (int k = 0; k < 5; ++k) {
        job.poll();
        QCOMPARE(job.state(size_t(workerOf(job, 0, 0))), WorkerState::Finished);
    }
    QCOMPARE(eventsOf(job, 0, 1), size_t(newEvents + 5));
    QCOMPARE(job.state(size_t(workerOf(job, 0, 1))), WorkerState::Finished);
    QCOMPARE(eventsOf(job, 0, 0), size_t(20));
    QCOMPARE(problemsAbout(job, log, "another worker incarnation"), ptrdiff_t(1)); // once
}

// rename() of another incarnation's log over the followed one (a longer file: no shrink).
void TstLiveReplace::renamedOverByAnotherIncarnation()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/timer_events.0.log";
    testlogs::write(log, testlogs::header(0) + events(100, 2000, "old")); // no close record
    LiveJob job(options(d));
    job.poll();
    QCOMPARE(eventsOf(job, 0, 0), size_t(100));
    const std::string tmp = d + "/incoming.tmp";
    testlogs::write(tmp, testlogs::header(0, 1) + events(3500, 90000, "new"));
    QCOMPARE(std::rename(tmp.c_str(), log.c_str()), 0);
    job.poll();
    job.poll();
    QCOMPARE(job.workerCount(), size_t(2));
    QCOMPARE(eventsOf(job, 0, 0), size_t(100));
    QCOMPARE(eventsOf(job, 0, 1), size_t(3500));
    QCOMPARE(problemsAbout(job, log, "was replaced by another file (rename)"), ptrdiff_t(1));
    // The replaced incarnation's log is over: ended without a closing record, and it stays so
    // while the new one finishes.
    const size_t old = size_t(workerOf(job, 0, 0));
    QCOMPARE(job.state(old), WorkerState::EndedWithoutClose);
    append(log, closeRecord(900000));
    for (int k = 0; k < 5; ++k) {
        job.poll();
        QCOMPARE(job.state(size_t(workerOf(job, 0, 0))), WorkerState::EndedWithoutClose);
    }
    QCOMPARE(job.state(size_t(workerOf(job, 0, 1))), WorkerState::Finished);
}

// A copy of the log with more records renamed over it (an editor's or a sync tool's atomic
// save): the same stream, extended — followed from the same offset, nothing read twice.
void TstLiveReplace::renamedOverByExtendedCopy()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString(), log = d + "/timer_events.0.log";
    const std::string first = testlogs::header(0) + events(50, 2000, "a");
    testlogs::write(log, first + "{\"t\":\"B\",\"ts\":"); // ends in a torn line
    LiveJob job(options(d));
    job.poll();
    QCOMPARE(eventsOf(job, 0, 0), size_t(50));
    const std::string tmp = d + "/incoming.tmp";
    testlogs::write(tmp, first + testlogs::begin(90000, 1, "b") + events(30, 100000, "c") +
                             testlogs::end(200000, 1, "b") + closeRecord(300000));
    QCOMPARE(std::rename(tmp.c_str(), log.c_str()), 0);
    job.poll();
    job.poll();
    QCOMPARE(job.workerCount(), size_t(1));
    QCOMPARE(eventsOf(job, 0, 0), size_t(50 + 1 + 30));
    QCOMPARE(job.state(0), WorkerState::Finished);
    QCOMPARE(problemsAbout(job, log, "begins with the"), ptrdiff_t(1));
    const auto &problems = job.timeline()->problems;
    QVERIFY(std::none_of(problems.begin(), problems.end(), [](const LoadProblem &p) {
        return p.severity != LoadProblem::Severity::Info;
    }));
}

// More logs than the job keeps open (maxOpenFiles 1: rank 0's stays open, ranks 1 and 2 are
// opened for each read): a file renamed over a closed one is found by its device and inode when
// the path is opened again, and handled as a rename seen on an open file.
void TstLiveReplace::renamedOverWhileClosed()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto logOf = [&](int rank) { return d + "/timer_events." + std::to_string(rank) + ".log"; };
    const std::string first1 = testlogs::header(1) + events(40, 2000, "a");
    testlogs::write(logOf(0), testlogs::header(0) + events(10, 2000, "a"));
    testlogs::write(logOf(1), first1);
    testlogs::write(logOf(2), testlogs::header(2) + events(60, 2000, "a"));
    LiveOptions o = options(d);
    o.maxOpenFiles = 1;
    LiveJob job(o);
    job.poll();
    QCOMPARE(job.workerCount(), size_t(3));
    append(logOf(2), events(5, 50000, "more")); // read through a descriptor opened again
    job.poll();
    QCOMPARE(eventsOf(job, 2, 0), size_t(65));

    const std::string tmp = d + "/incoming.tmp";
    testlogs::write(tmp, testlogs::header(2, 1) + events(30, 90000, "new"));
    QCOMPARE(std::rename(tmp.c_str(), logOf(2).c_str()), 0);
    testlogs::write(tmp, first1 + events(7, 90000, "b") + closeRecord(300000));
    QCOMPARE(std::rename(tmp.c_str(), logOf(1).c_str()), 0);
    job.poll();
    job.poll();
    QCOMPARE(job.workerCount(), size_t(4));
    QCOMPARE(eventsOf(job, 2, 0), size_t(65));
    QCOMPARE(eventsOf(job, 2, 1), size_t(30));
    QCOMPARE(job.state(size_t(workerOf(job, 2, 0))), WorkerState::EndedWithoutClose);
    QCOMPARE(problemsAbout(job, logOf(2), "was replaced by another file (rename)"), ptrdiff_t(1));
    QCOMPARE(eventsOf(job, 1, 0), size_t(47));
    QCOMPARE(job.state(size_t(workerOf(job, 1, 0))), WorkerState::Finished);
    QCOMPARE(problemsAbout(job, logOf(1), "begins with the"), ptrdiff_t(1));
}

// A real recorder process whose log is truncated while it writes (logrotate's copytruncate):
// the recorder goes on at the new end of the file (O_APPEND) without a header; attach reads the
// new content as more of the same worker, which then finishes cleanly.
void TstLiveReplace::realRecorderCopytruncate()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json",
                    "{\"log_path\":\"rank{rank}.log\",\"flush_interval_ms\":10,"
                    "\"heartbeat_interval_ms\":100,\"sync\":{\"enabled\":false}}");
    const std::string log = d + "/rank0.log";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("RANK", "0", 1);
        ::setenv("WORLD_SIZE", "1", 1);
        const std::string config = d + "/timer_config.json", tmpl = d + "/rank{rank}.log";
        ::execl(SYNCLINE_BINARY_DIR "/tests/live_worker", "live_worker", "--config", config.c_str(),
                "--log", tmpl.c_str(), "--step-ms", "2", nullptr);
        ::_exit(127);
    }
    auto reap = qScopeGuard([&] {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    });
    LiveJob job(options(d));
    QVERIFY2(pollUntil(job, [&] { return eventsOf(job, 0, 0) > 50; }), "the worker records");
    QCOMPARE(::truncate(log.c_str(), 0), 0);
    const size_t before = eventsOf(job, 0, 0);
    QVERIFY2(pollUntil(job, [&] { return problemsAbout(job, log, "no header") == 1; }),
             "the truncation is reported");
    QVERIFY2(pollUntil(job, [&] { return eventsOf(job, 0, 0) > before + 50; }),
             "the new content is read as more of the same worker");
    ::kill(pid, SIGTERM);
    int status = 0;
    QCOMPARE(::waitpid(pid, &status, 0), pid);
    reap.dismiss();
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    QVERIFY2(pollUntil(job, [&] { return job.state(0) == WorkerState::Finished; }),
             "the worker's close record, written after the truncation, is read");
    QCOMPARE(job.workerCount(), size_t(1));
    QCOMPARE(problemsAbout(job, log, "truncated"), ptrdiff_t(1));
}

QTEST_APPLESS_MAIN(TstLiveReplace)
#include "tst_livereplace.moc"
