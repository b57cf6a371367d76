// JobInputs (through JobLoader, as every reader uses it) on real job directories: what is not a
// regular file — a FIFO, a dangling or looping symlink — is skipped with a Warning that names
// it, never opened in a way that can block, and the rest of the job loads.
#include "tests/timeline/testlogs.h"

#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace syncline;

namespace {

// The first problem of `kind` about `file` whose message contains `needle`.
const LoadProblem *findProblem(const std::vector<LoadProblem> &problems, const std::string &file,
                               LoadProblem::Kind kind, const std::string &needle = {})
{
    const auto it = std::find_if(problems.begin(), problems.end(), [&](const LoadProblem &p) {
        return p.file == file && p.kind == kind && p.message.find(needle) != std::string::npos;
    });
    return it == problems.end() ? nullptr : &*it;
}

std::string makeFifo(const std::string &path)
{
    if (::mkfifo(path.c_str(), 0644) != 0)
        qFatal("mkfifo %s failed", path.c_str());
    return path;
}

// Loads `paths` on a thread. A loader blocked in open() on one of `fifos` is released (a writer
// opens and closes the FIFO, so the reader's open returns and reads EOF) and the load counts
// as blocked.
LoadResult loadWithin(const std::vector<std::string> &paths, const std::vector<std::string> &fifos,
                      bool *blocked)
{
    LoadResult result;
    std::atomic<bool> done{false};
    std::thread loader([&] {
        LoadOptions o;
        o.paths = paths;
        o.threads = 1;
        result = JobLoader::load(o);
        done = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    *blocked = !done;
    while (!done) {
        for (const std::string &f : fifos) {
            const int fd = ::open(f.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0)
                ::close(fd);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    loader.join();
    return result;
}

std::string goodLog(const std::string &path, int rank)
{
    testlogs::write(path, testlogs::header(rank) + testlogs::begin(2000, 1, "step") +
                              testlogs::end(3000, 1, "step"));
    return path;
}

// Runs the real recording worker (tests/timeline/live/liveworker.cpp) to its end as rank 3 of 4
// with the given TORCHELASTIC_RESTART_COUNT, in `dir` with its timer_config.json; returns its
// exit status.
int runWorker(const std::string &dir, int restart, pid_t *child = nullptr)
{
    const pid_t pid = ::fork();
    if (child)
        *child = pid;
    if (pid == 0) {
        ::setenv("RANK", "3", 1);
        ::setenv("WORLD_SIZE", "4", 1);
        ::setenv("TORCHELASTIC_RESTART_COUNT", std::to_string(restart).c_str(), 1);
        const std::string config = dir + "/timer_config.json", log = dir + "/timer_events.log";
        ::execl(SYNCLINE_BINARY_DIR "/tests/live_worker", "live_worker", "--config", config.c_str(),
                "--log", log.c_str(), "--steps", "20", "--step-ms", "2", nullptr);
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Events (B, X, I records) in a log, counted from its text.
size_t eventRecords(const std::string &path)
{
    std::ifstream in(path);
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
        for (const char *t : {"{\"t\":\"B\"", "{\"t\":\"X\"", "{\"t\":\"I\""})
            n += line.rfind(t, 0) == 0 ? 1 : 0;
    return n;
}

} // namespace

class TstJobInputs : public QObject
{
    Q_OBJECT

private slots:
    void loneNonTraceJsonSaysWhat();
    void fifoInJobDirectorySkipped();
    void fifoFromConfigTemplateSkipped();
    void fifoNamedDirectlySkipped();
    void badSymlinkLastInDirectory_data();
    void badSymlinkLastInDirectory();
    void restartsNeverOverwriteALog();
};

void TstJobInputs::fifoInJobDirectorySkipped()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    goodLog(d + "/timer_events.0.log", 0);
    const std::string fifoLog = makeFifo(d + "/timer_events.1.log");
    const std::string fifoJson = makeFifo(d + "/trace.json");
    bool blocked = false;
    const LoadResult r = loadWithin({d}, {fifoLog, fifoJson}, &blocked);
    QVERIFY2(!blocked, "the loader blocked in open() on a FIFO");
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(1));
    QCOMPARE(r.timeline->eventCount(), size_t(1));
    for (const std::string &f : {fifoLog, fifoJson}) {
        const LoadProblem *p =
            findProblem(r.timeline->problems, f, LoadProblem::Kind::NotRegularFile);
        QVERIFY2(p, f.c_str());
        QCOMPARE(p->severity, LoadProblem::Severity::Warning);
        QCOMPARE(p->toString(), f + ": not a regular file (FIFO); skipped");
    }
}

void TstJobInputs::fifoFromConfigTemplateSkipped()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json", R"({"log_path": "logs/timer_events.{rank}.log"})");
    QVERIFY(QDir(dir.path()).mkdir("logs"));
    goodLog(d + "/logs/timer_events.0.log", 0);
    const std::string fifo = makeFifo(d + "/logs/timer_events.1.log");
    bool blocked = false;
    const LoadResult r = loadWithin({d}, {fifo}, &blocked);
    QVERIFY2(!blocked, "the loader blocked in open() on a FIFO");
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(1));
    QCOMPARE(r.timeline->workers[0].info.rank, 0);
    const LoadProblem *p =
        findProblem(r.timeline->problems, fifo, LoadProblem::Kind::NotRegularFile);
    QVERIFY(p);
    QCOMPARE(p->severity, LoadProblem::Severity::Warning);
}

void TstJobInputs::fifoNamedDirectlySkipped()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const std::string good = goodLog(d + "/a.0.log", 0);
    const std::string fifo = makeFifo(d + "/b.1.log");
    bool blocked = false;
    const LoadResult r = loadWithin({fifo, good}, {fifo}, &blocked);
    QVERIFY2(!blocked, "the loader blocked in open() on a FIFO");
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(1));
    QVERIFY(findProblem(r.timeline->problems, fifo, LoadProblem::Kind::NotRegularFile));
    // Resolving alone never opens it either.
    const load::JobInputs in = load::JobInputs::resolve({fifo});
    QVERIFY(in.logs.empty());
    QVERIFY(!in.fatalError.empty());
}

void TstJobInputs::badSymlinkLastInDirectory_data()
{
    QTest::addColumn<bool>("looping");
    QTest::addColumn<QString>("expected");
    QTest::newRow("dangling") << false
                              << "dangling symbolic link (No such file or directory); skipped";
    QTest::newRow("looping") << true
                             << "symbolic link loop (Too many levels of symbolic links); skipped";
}

// The bug needed the bad link to be the last entry readdir() returns (its stat error was left
// in the listing's error code): names are tried until it is, so the case is exercised whatever
// the file system's order.
void TstJobInputs::badSymlinkLastInDirectory()
{
    QFETCH(bool, looping);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    goodLog(d + "/timer_events.0.log", 0);
    std::string link;
    for (int k = 0; k < 1000 && link.empty(); ++k) {
        const std::string name = d + "/bad" + std::to_string(k) + ".log";
        QCOMPARE(::symlink(looping ? name.c_str() : (d + "/missing.log").c_str(), name.c_str()), 0);
        std::string last;
        DIR *listing = ::opendir(d.c_str());
        while (const dirent *e = ::readdir(listing))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                last = d + "/" + e->d_name;
        ::closedir(listing);
        if (last == name)
            link = name;
        else
            ::unlink(name.c_str());
    }
    QVERIFY2(!link.empty(), "no name made the link the last directory entry");
    LoadOptions o;
    o.paths = {d};
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(1));
    QCOMPARE(r.timeline->eventCount(), size_t(1));
    const LoadProblem *p = findProblem(r.timeline->problems, link, LoadProblem::Kind::NotRegularFile);
    QVERIFY(p);
    QCOMPARE(p->severity, LoadProblem::Severity::Warning);
    QCOMPARE(QString::fromStdString(p->message), expected);
}

// With the default log_path (no {restart}) an elastic restart opened the crashed
// attempt's file with O_TRUNC. Now every incarnation gets its own file, the loader finds them all
// (directory scan and the config's log_path globs) and keeps them as distinct workers.
void TstJobInputs::restartsNeverOverwriteALog()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json", R"({"log_path": "timer_events.log"})");
    QCOMPARE(runWorker(d, 0), 0);
    QCOMPARE(runWorker(d, 1), 0);
    pid_t third = 0;
    QCOMPARE(runWorker(d, 1, &third), 0); // the same rank and restart count again: pid in the name
    const std::vector<std::string> files = {d + "/timer_events.3.log", d + "/timer_events.3.r1.log",
                                            d + "/timer_events.3.r1.p" + std::to_string(third) +
                                                ".log"};
    std::map<std::string, size_t> events;
    for (const std::string &f : files) {
        QVERIFY2(QFileInfo::exists(QString::fromStdString(f)), f.c_str());
        events[f] = eventRecords(f);
        QVERIFY2(events[f] >= 60, f.c_str()); // 20 steps of step/compute/comm, plus loads
    }
    std::vector<std::string> sorted = files;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(load::JobInputs::expandLogTemplate("timer_events.log", d), sorted);
    for (const std::string &input : {d, d + "/timer_config.json"}) {
        LoadOptions o;
        o.paths = {input};
        const LoadResult r = JobLoader::load(o);
        QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
        const Timeline &tl = *r.timeline;
        QCOMPARE(tl.workers.size(), size_t(3));
        for (const Worker &w : tl.workers) {
            QCOMPARE(w.info.rank, 3);
            QVERIFY2(events.count(w.info.sourceFile), w.info.sourceFile.c_str());
            QCOMPARE(w.eventCount(), events[w.info.sourceFile]);
            QVERIFY(w.info.closedCleanly);
        }
        QCOMPARE(tl.workers[0].info.restart, 0);
        QCOMPARE(tl.workers[1].info.restart, 1);
        QCOMPARE(tl.workers[2].info.restart, 1);
        QVERIFY(
            findProblem(tl.problems, tl.workers[2].info.sourceFile, LoadProblem::Kind::DuplicateRank,
                        "rank 3 restart 1"));
        // The later incarnations say where they write.
        QVERIFY(findProblem(tl.problems, files[1], LoadProblem::Kind::RecorderNote,
                            "timer_events.3.log exists"));
    }
}

// A lone .json that is valid JSON but no trace (a package manifest, a config of another tool) is
// tried as a timer config; the failure names the file and says it is no Chrome trace, never just
// "no log files or traces found". A config whose log_path matches nothing says that.
void TstJobInputs::loneNonTraceJsonSaysWhat()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/package.json", "{\"name\":\"x\",\"dependencies\":{\"a\":1}}\n");
    const load::JobInputs a = load::JobInputs::resolve({d + "/package.json"});
    QVERIFY2(a.fatalError.find(d + "/package.json: JSON object without \"traceEvents\"") !=
                     std::string::npos &&
                 a.fatalError.find("not a Chrome trace") != std::string::npos,
             a.fatalError.c_str());
    testlogs::write(d + "/timer_config.json", "{\"log_path\":\"w_{rank}.log\"}\n");
    const load::JobInputs b = load::JobInputs::resolve({d + "/timer_config.json"});
    QVERIFY2(b.fatalError.find("timer config: its log_path \"w_{rank}.log\" matches no file") !=
                 std::string::npos,
             b.fatalError.c_str());
}

QTEST_APPLESS_MAIN(TstJobInputs)
#include "tst_jobinputs.moc"
