// JobInputs (through JobLoader, as every reader uses it) on real job directories: what is not a
// regular file — a FIFO, a dangling or looping symlink — is skipped with a Warning that names
// it, never opened in a way that can block, and the rest of the job loads.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobinputs.h"
#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace syncline;

namespace {

const LoadProblem *findProblem(const std::vector<LoadProblem> &problems, const std::string &file,
                               const std::string &needle)
{
    const auto it = std::find_if(problems.begin(), problems.end(), [&](const LoadProblem &p) {
        return p.file == file && p.message.find(needle) != std::string::npos;
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

} // namespace

class TstJobInputs : public QObject
{
    Q_OBJECT

private slots:
    void fifoInJobDirectorySkipped();
    void fifoFromConfigTemplateSkipped();
    void fifoNamedDirectlySkipped();
    void badSymlinkLastInDirectory_data();
    void badSymlinkLastInDirectory();
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
            findProblem(r.timeline->problems, f, "not a regular file (FIFO); skipped");
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
        findProblem(r.timeline->problems, fifo, "not a regular file (FIFO); skipped");
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
    QVERIFY(findProblem(r.timeline->problems, fifo, "not a regular file (FIFO); skipped"));
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
        QCOMPARE(::symlink(looping ? name.c_str() : (d + "/missing.log").c_str(), name.c_str()),
                 0);
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
    const LoadProblem *p = findProblem(r.timeline->problems, link, "symbolic link");
    QVERIFY(p);
    QCOMPARE(p->severity, LoadProblem::Severity::Warning);
    QCOMPARE(QString::fromStdString(p->message), expected);
}

QTEST_APPLESS_MAIN(TstJobInputs)
#include "tst_jobinputs.moc"
