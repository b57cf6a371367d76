// The loader's caches are never a way to write another file, and never trusted past what is
// checked (docs/reliability.md "Caches"): links planted at the temporary and final names of the
// cache files leave their targets unchanged; a `.syncline-index` that is a link or another
// user's is not used (one problem says so, the load succeeds); an index whose header length is
// not the log's (its own hash right) is rebuilt, and the load equals one without caches; a link
// store whose chunk lengths pass its file is refused before it allocates by them, and a
// correction cache whose range lies outside the readable times is not used; an
// exception on a loader thread becomes a problem instead of ending the process. Real files,
// real JobLoader.
#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/store/logindex.h"

#include "indexjob.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace syncline;
using syncline::load::CorrectionCache;
using syncline::load::EventStore;
using syncline::load::LogIndex;
namespace fs = std::filesystem;

using namespace indexjob;

namespace {

std::string readFile(const std::string &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

bool isRegular(const std::string &p)
{
    struct stat st
    {
    };
    return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The first problem of `kind` whose message contains `detail`.
const LoadProblem *problemWith(const Timeline &tl, LoadProblem::Kind kind,
                               const std::string &detail = {})
{
    for (const LoadProblem &p : tl.problems)
        if (p.kind == kind && p.message.find(detail) != std::string::npos)
            return &p;
    return nullptr;
}

} // namespace

class TstCacheSafety : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
    }

    // Links at every name a load writes (the old temporary names `<final>.tmp.<pid>` for this
    // process and the next ones, and the final names) point to a victim: it is unchanged, the
    // load is right, and the cache files are regular files (the links replaced, not followed).
    void plantedLinksNeverFollowed()
    {
        QTemporaryDir dir, elsewhere;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const std::string victim = elsewhere.path().toStdString() + "/victim";
        const std::string secret = "precious contents\n";
        testlogs::write(victim, secret);
        fs::create_directory(d + "/.syncline-index");
        std::vector<std::string> logs;
        for (int w = 0; w < kWorkers; ++w)
            logs.push_back(logOf(d, w));
        std::vector<std::string> finals;
        for (const std::string &log : logs) {
            finals.push_back(LogIndex::pathFor(log, true));
            finals.push_back(EventStore::pathFor(log, true));
        }
        const std::string key = CorrectionCache::keyOf(logs, load::ClockCorrector::Options());
        finals.push_back(CorrectionCache::fileOf(logs, key, true, "correction-", ".scc"));
        finals.push_back(CorrectionCache::fileOf(logs, key, true, "links-", ".slk"));
        int planted = 0;
        for (const std::string &f : finals) {
            QVERIFY(!f.empty());
            for (pid_t pid = ::getpid(); pid < ::getpid() + 8; ++pid, ++planted)
                fs::create_symlink(victim, f + ".tmp." + std::to_string(pid));
            fs::create_symlink(victim, f);
            ++planted;
        }
        QCOMPARE(planted, 9 * (2 * kWorkers + 2));

        const LoadResult full = loadJob(d);
        QVERIFY(full.timeline);
        QCOMPARE(readFile(victim), secret);
        for (const std::string &f : finals)
            QVERIFY2(isRegular(f), f.c_str());
        const LoadResult plain = loadJob(d, {}, false);
        QCOMPARE(events(*full.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*plain.timeline, ClockMode::Corrected, false, 0, 0));
        // The caches written are the loader's own: reused by the next load.
        std::string why;
        QVERIFY2(LogIndex::load(logs[0], &why), why.c_str());
        QVERIFY(loadJob(d).logsFromStores == size_t(kWorkers));
        QCOMPARE(readFile(victim), secret);
    }

    // A `.syncline-index` that is a link (to a directory anyone could have made) is neither read
    // nor written: the load succeeds, says so once, and writes its caches to the per-user place.
    void linkedIndexDirectoryRefused()
    {
        QTemporaryDir dir, target;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        fs::create_directory_symlink(target.path().toStdString(), d + "/.syncline-index");
        const LoadResult r = loadJob(d);
        QVERIFY(r.timeline);
        QCOMPARE(r.timeline->workers.size(), size_t(kWorkers));
        QVERIFY(fs::is_empty(target.path().toStdString()));
        int notes = 0;
        for (const LoadProblem &p : r.timeline->problems)
            notes += p.kind == LoadProblem::Kind::CacheDirRefused ? 1 : 0;
        QCOMPARE(notes, 1);
        QCOMPARE(problemWith(*r.timeline, LoadProblem::Kind::CacheDirRefused, "a symbolic link")->file,
                 d + "/.syncline-index");
        QVERIFY(LogIndex::pathFor(logOf(d, 0), true).empty());
        QVERIFY(fs::exists(LogIndex::pathFor(logOf(d, 0), false)));
    }

    // Another user's `.syncline-index` (shared job directories): not used.
    void foreignIndexDirectoryRefused()
    {
        if (::geteuid() != 0)
            QSKIP("giving a directory to another user needs root");
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const std::string place = d + "/.syncline-index";
        fs::create_directory(place);
        ::chmod(place.c_str(), 0777);
        QCOMPARE(::chown(place.c_str(), 54321, 54321), 0);
        const LoadResult r = loadJob(d);
        QVERIFY(r.timeline);
        QCOMPARE(r.timeline->workers.size(), size_t(kWorkers));
        QVERIFY(fs::is_empty(place));
        QVERIFY(problemWith(*r.timeline, LoadProblem::Kind::CacheDirRefused,
                            "owned by another user (uid 54321)"));
        const LoadResult plain = loadJob(d, {}, false);
        QCOMPARE(events(*r.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*plain.timeline, ClockMode::Corrected, false, 0, 0));
    }

    // An index whose own hash and stamp are right but whose header length is wrong (huge: a
    // read of that many bytes; the log's size: every event read twice) is not used.
    void badHeaderEndRebuilt_data()
    {
        QTest::addColumn<QString>("what");
        QTest::newRow("huge") << "huge";
        QTest::newRow("the log's size") << "size";
        QTest::newRow("negative") << "negative";
    }
    void badHeaderEndRebuilt()
    {
        QFETCH(QString, what);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline); // writes the indexes and stores
        const LoadResult plain = loadJob(d, {}, false);
        const auto expected = events(*plain.timeline, ClockMode::Corrected, false, 0, 0);
        const std::string log = logOf(d, 1);
        std::optional<LogIndex> x = LogIndex::load(log);
        QVERIFY(x);
        QVERIFY(x->headerEnd > 0);
        const int64_t size = int64_t(fs::file_size(log));
        x->headerEnd = what == "huge" ? (int64_t(1) << 50) : what == "size" ? size : -5;
        QCOMPARE(x->store(log), LogIndex::pathFor(log, true)); // its own hash recomputed
        std::string why;
        QVERIFY(!LogIndex::load(log, &why));
        QVERIFY2(why.find("header length") != std::string::npos ||
                     why.find("inconsistent") != std::string::npos,
                 why.c_str());
        const LoadResult again = loadJob(d);
        QVERIFY(again.timeline);
        QVERIFY(again.fatalError.empty());
        QCOMPARE(again.timeline->eventCount(), plain.timeline->eventCount());
        QCOMPARE(events(*again.timeline, ClockMode::Corrected, false, 0, 0), expected);
        QVERIFY(!problemWith(*again.timeline, LoadProblem::Kind::LoadFailed));
        // ...which rebuilt it.
        QVERIFY2(LogIndex::load(log, &why), why.c_str());
        QCOMPARE(LogIndex::load(log)->headerEnd, LogIndex::headerLengthOf(log));
        // A windowed open (which reads the header through the index) is right too.
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        const int64_t o = plain.timeline->originNs(ClockMode::Corrected);
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*plain.timeline, ClockMode::Corrected, true, o + 1'000'000'000,
                        o + 1'500'000'000));
    }

    // An exception on one of the loader's threads (here from the progress callback, which the
    // parsing threads call) is that file's problem: the load finishes with the other files.
    void exceptionOnLoaderThreadIsAProblem()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const std::thread::id self = std::this_thread::get_id();
        std::atomic<bool> thrown{false};
        LoadOptions o;
        o.paths = {d};
        o.threads = 2;
        o.writeIndex = false;
        o.progress = [&](double, const std::string &what) {
            if (what.rfind("parsing: 0 of", 0) == 0)
                return;
            if (what.rfind("parsing", 0) != 0)
                return;
            if (std::this_thread::get_id() != self) {
                if (!thrown.exchange(true))
                    throw std::runtime_error("boom on a loader thread");
                return;
            }
            // The calling thread waits (a while) for the other thread to throw first.
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            while (!thrown && std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        };
        const LoadResult r = JobLoader::load(o);
        QVERIFY(thrown);
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const LoadProblem *p =
            problemWith(*r.timeline, LoadProblem::Kind::LoadFailed, "boom on a loader thread");
        QVERIFY(p);
        QCOMPARE(p->severity, LoadProblem::Severity::Error);
        QVERIFY(p->message.rfind("not loaded: reading it failed", 0) == 0);
        QCOMPARE(r.timeline->workers.size(), size_t(kWorkers - 1));
    }

    // A log rewritten in place with its size, inode, first 4 KiB and mtime kept (a tool that
    // writes in place and restores the time) is parsed again, not served from its caches: its
    // stamp holds the ctime and a hash of its last 4 KiB too.
    void rewrittenInPlaceKeepingStampReparsed()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        QCOMPARE(loadJob(d).logsFromStores, size_t(kWorkers));
        const std::string log = logOf(d, 0);
        const std::string text = readFile(log);
        const size_t at = text.rfind("\"name\":\"") + 8; // the last name, in the last 4 KiB
        QVERIFY2(at > 4096 + 8 && text.size() - at < 4096, qPrintable(QString::number(text.size())));
        struct stat before
        {
        };
        QCOMPARE(::stat(log.c_str(), &before), 0);
        const char c = text[at] == 'Z' ? 'Y' : 'Z';
        const int fd = ::open(log.c_str(), O_WRONLY);
        QVERIFY(fd >= 0);
        QCOMPARE(::pwrite(fd, &c, 1, off_t(at)), ssize_t(1));
        ::close(fd);
        const struct timespec times[2] = {before.st_atim, before.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, log.c_str(), times, 0), 0);
        struct stat after
        {
        };
        QCOMPARE(::stat(log.c_str(), &after), 0);
        QCOMPARE(after.st_ino, before.st_ino);
        QCOMPARE(after.st_size, before.st_size);
        QCOMPARE(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
        QCOMPARE(after.st_mtim.tv_sec, before.st_mtim.tv_sec);

        const LoadResult cached = loadJob(d);
        const LoadResult plain = loadJob(d, {}, false);
        QVERIFY(cached.timeline && plain.timeline);
        QCOMPARE(cached.logsFromStores, size_t(kWorkers - 1));
        QCOMPARE(events(*cached.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*plain.timeline, ClockMode::Corrected, false, 0, 0));
    }

    // The correction and link caches of logs that changed since, and temporary files a killed
    // writer left (older than an hour), are removed when the current caches are written; files
    // that are not syncline's by their names, fresh temporary files (a writer may be at work)
    // and links (never followed, never removed) stay.
    void staleCachesAndOrphansRemoved()
    {
        QTemporaryDir dir, elsewhere;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        const std::string place = d + "/.syncline-index";
        auto named = [&](const std::string &prefix, const std::string &suffix) {
            std::vector<std::string> out;
            for (const auto &e : fs::directory_iterator(place)) {
                const std::string n = e.path().filename().string();
                if (n.rfind(prefix, 0) == 0 && n.size() >= suffix.size() &&
                    n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
                    out.push_back(n);
            }
            return out;
        };
        const std::vector<std::string> oldScc = named("correction-", ".scc");
        const std::vector<std::string> oldSlk = named("links-", ".slk");
        QCOMPARE(oldScc.size(), size_t(1));
        QCOMPARE(oldSlk.size(), size_t(1));
        const std::string victim = elsewhere.path().toStdString() + "/victim.scc";
        testlogs::write(victim, "keep\n");
        auto plant = [&](const std::string &name, bool old) {
            testlogs::write(place + "/" + name, "x");
            if (old) {
                const auto t = fs::file_time_type::clock::now() - std::chrono::hours(2);
                fs::last_write_time(place + "/" + name, t);
            }
        };
        plant("correction-00000000000000aa.scc.tmp.AbC123", true);
        plant("timer_events.1.log.sidx.tmp.xYz789", true);
        plant("timer_events.1.log.sevt.tmp.q1w2e3", true);
        plant("links-00000000000000bb.slk.tmp.r4t5y6", false); // fresh: a writer at work
        plant("notes.txt.tmp.AbC123", true);                   // not a syncline name
        plant("notes.txt", true);
        fs::create_symlink(victim, place + "/correction-00000000000000cc.scc");

        // The job changes (a log grows): new caches, the old ones go.
        {
            std::ofstream out(logOf(d, 1), std::ios::app);
            out << testlogs::complete(localOf(1, kT0 + kDuration), 10, 1, "late");
        }
        QVERIFY(loadJob(d).timeline);
        const std::vector<std::string> nowScc = named("correction-", ".scc");
        const std::vector<std::string> nowSlk = named("links-", ".slk");
        QCOMPARE(nowSlk.size(), size_t(1));
        QVERIFY(nowSlk[0] != oldSlk[0]);
        QCOMPARE(nowScc.size(), size_t(2)); // the new one and the link
        QVERIFY(!fs::exists(place + "/" + oldScc[0]));
        QVERIFY(!fs::exists(place + "/correction-00000000000000aa.scc.tmp.AbC123"));
        QVERIFY(!fs::exists(place + "/timer_events.1.log.sidx.tmp.xYz789"));
        QVERIFY(!fs::exists(place + "/timer_events.1.log.sevt.tmp.q1w2e3"));
        QVERIFY(fs::exists(place + "/links-00000000000000bb.slk.tmp.r4t5y6"));
        QVERIFY(fs::exists(place + "/notes.txt.tmp.AbC123"));
        QVERIFY(fs::exists(place + "/notes.txt"));
        QVERIFY(fs::is_symlink(place + "/correction-00000000000000cc.scc"));
        QCOMPARE(readFile(victim), std::string("keep\n"));
        // The current caches are used.
        QCOMPARE(loadJob(d).logsFromStores, size_t(kWorkers));
    }

    // A correction cache whose job range lies outside the readable times (its hash right) is
    // not used: a windowed open would add its window to it. The window loads whole and equals
    // the windowed load from valid caches.
    void correctionRangeOutsideTimesRefused()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        const LoadResult good = loadJob(d, window(1.0, 1.5));
        QVERIFY(good.timeline && good.timeline->window.readOnlyWindow);
        std::vector<std::string> logs;
        for (int w = 0; w < kWorkers; ++w)
            logs.push_back(logOf(d, w));
        std::optional<CorrectionCache> c = CorrectionCache::load(logs, {});
        QVERIFY(c);
        c->range[0].origin = INT64_MAX - 100; // + 1 s of window: past int64
        QVERIFY(c->store(logs, {}));
        std::string why;
        QVERIFY(!CorrectionCache::load(logs, {}, &why));
        QVERIFY2(why.find("outside the readable times") != std::string::npos, why.c_str());
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        QVERIFY(win.timeline);
        QVERIFY(!win.timeline->window.readOnlyWindow); // loaded whole, then cut
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*good.timeline, ClockMode::Corrected, false, 0, 0));
    }

    // A link store whose directory gives a chunk a length past its file (the directory's hash
    // re-computed, so only the lengths can tell) is refused before anything is read or
    // allocated by that length; the window's links come from a whole load, as without caches.
    void linkChunkPastItsFileRefused()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        const LoadResult plain = loadJob(d, window(1.0, 1.5), false);
        QVERIFY(plain.timeline && !plain.timeline->links.empty());
        std::string slk;
        for (const auto &e : fs::directory_iterator(d + "/.syncline-index"))
            if (e.path().extension() == ".slk")
                slk = e.path().string();
        std::string b = readFile(slk);
        uint64_t dirOffset = 0;
        std::memcpy(&dirOffset, b.data() + b.size() - 8, 8);
        // The chunk entries end in (offset u64, length u32, hash u64): found by their hash.
        size_t edited = 0;
        for (size_t k = size_t(dirOffset) + 12; k + 16 <= b.size() - 16; ++k) {
            uint64_t off = 0, hash = 0;
            uint32_t len = 0;
            std::memcpy(&off, b.data() + k - 12, 8);
            std::memcpy(&len, b.data() + k - 4, 4);
            std::memcpy(&hash, b.data() + k, 8);
            if (len == 0 || off > dirOffset || len > dirOffset - off ||
                load::CacheFile::wordHash(std::string_view(b).substr(size_t(off), len)) != hash)
                continue;
            const uint32_t huge = 512u << 20; // 512 MiB: a file of a few KiB cannot hold it
            std::memcpy(b.data() + k - 4, &huge, 4);
            ++edited;
        }
        QVERIFY(edited > 0);
        const size_t hashAt = b.size() - 16;
        const uint64_t h = load::CacheFile::hash(
            std::string_view(b).substr(size_t(dirOffset), hashAt - size_t(dirOffset)));
        std::memcpy(b.data() + hashAt, &h, 8);
        testlogs::write(slk, b);
        rusage before{}, after{};
        ::getrusage(RUSAGE_SELF, &before);
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        ::getrusage(RUSAGE_SELF, &after);
        QVERIFY(win.timeline);
        // ru_maxrss in KiB: a buffer of the stated length would have raised it by 512 MiB.
        QVERIFY2(after.ru_maxrss - before.ru_maxrss < 128 * 1024,
                 qPrintable(QString::number(after.ru_maxrss - before.ru_maxrss)));
        QCOMPARE(win.timeline->links.size(), plain.timeline->links.size());
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*plain.timeline, ClockMode::Corrected, false, 0, 0));
    }
};

QTEST_APPLESS_MAIN(TstCacheSafety)
#include "tst_cachesafety.moc"
