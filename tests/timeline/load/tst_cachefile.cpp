// CacheFile::open, the one read-side trust rule of the loader's four caches (the index `.sidx`,
// the event store `.sevt`, the correction cache `.scc`, the link store `.slk`): a record opens
// only when the file is a regular file (never read through a link), owned by this user or root,
// whole, and of this version. Then, per cache kind on a real job, each damage — a stale stamp (the
// log rewritten), another version (hash re-computed, so only the version tells), a cut file, a
// link to a valid copy, another user's file — is refused: the load equals the one before the
// damage, and the cache is written again (a regular file the next load uses). Cost: 6-8 s on
// two busy cores (3 one-second logs loaded about 120 times).
#include "timeline/load/jobloader.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/store/logindex.h"

#include "indexjob.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace syncline;
using syncline::load::CacheFile;
using syncline::load::CorrectionCache;
using syncline::load::EventStore;
using syncline::load::LogIndex;
namespace fs = std::filesystem;
using namespace indexjob;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'T', 'E', 'S', 'T'};

std::string readFile(const std::string &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &p, const std::string &bytes)
{
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

bool isRegular(const std::string &p)
{
    struct stat st
    {
    };
    return ::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A Whole record "key", 42; or, as a Directory file, `chunks` then that record and its offset.
std::string record(uint32_t version, const std::string &key = "key")
{
    CacheFile::Writer w(kMagic, version);
    w.str(key);
    w.u32(42);
    return w.finished();
}

std::string directoryFile(uint32_t version)
{
    const std::string chunks = "chunk bytes before the directory";
    const uint64_t at = chunks.size();
    return chunks + record(version) + std::string(reinterpret_cast<const char *>(&at), 8);
}

std::string whyNot(const std::string &path, CacheFile::Layout layout, uint32_t version = 7)
{
    std::string why;
    const auto o = CacheFile::open(path, kMagic, version, layout, &why);
    return o ? std::string("opened") : why;
}

// The file at `path` with its record's version raised by one and its hash re-computed: only the
// version is wrong. `directory`: the record is the one the last 8 bytes point to.
void bumpVersion(const std::string &path, bool directory)
{
    std::string b = readFile(path);
    uint64_t at = 0, end = b.size();
    if (directory) {
        std::memcpy(&at, b.data() + b.size() - 8, 8);
        end = b.size() - 8;
    }
    uint32_t v = 0;
    std::memcpy(&v, b.data() + at + 8, 4);
    ++v;
    std::memcpy(b.data() + at + 8, &v, 4);
    const uint64_t h = CacheFile::hash(std::string_view(b).substr(at, end - 8 - at));
    std::memcpy(b.data() + end - 8, &h, 8);
    writeFile(path, b);
}

enum class Damage
{
    Stale,
    OtherVersion,
    Cut,
    Link,
    ForeignOwner
};

} // namespace

class TstCacheFile : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
    }

    void recordsOpen()
    {
        QTemporaryDir dir;
        const std::string whole = dir.path().toStdString() + "/a.sidx";
        const std::string withDir = dir.path().toStdString() + "/a.sevt";
        writeFile(whole, record(7));
        writeFile(withDir, directoryFile(7));
        std::string why;
        auto a = CacheFile::open(whole, kMagic, 7, CacheFile::Layout::Whole, &why);
        QVERIFY2(a, why.c_str());
        QVERIFY(a->keyIs("key"));
        QCOMPARE(a->reader().u32(), uint32_t(42));
        QVERIFY(a->reader().finish());
        auto b = CacheFile::open(withDir, kMagic, 7, CacheFile::Layout::Directory, &why);
        QVERIFY2(b, why.c_str());
        QCOMPARE(b->recordOffset(), uint64_t(32));
        QCOMPARE(b->fileSize(), uint64_t(readFile(withDir).size()));
        QVERIFY(b->fd() >= 0);
        auto c = CacheFile::open(whole, kMagic, 7, CacheFile::Layout::Whole, &why);
        QVERIFY(!c->keyIs("other key")); // written for something else
    }

    void otherVersionOrMagicRefused()
    {
        QTemporaryDir dir;
        const std::string p = dir.path().toStdString() + "/a.sidx";
        writeFile(p, record(6));
        QVERIFY(whyNot(p, CacheFile::Layout::Whole).find("version 6") != std::string::npos);
        writeFile(p, directoryFile(8));
        QVERIFY(whyNot(p, CacheFile::Layout::Directory).find("version 8") != std::string::npos);
        constexpr char other[8] = {'S', 'Y', 'N', 'C', 'O', 'T', 'H', 'R'};
        CacheFile::Writer w(other, 7);
        writeFile(p, w.finished());
        QVERIFY(whyNot(p, CacheFile::Layout::Whole).find("bad magic") != std::string::npos);
    }

    void everyCutRefused()
    {
        QTemporaryDir dir;
        const std::string p = dir.path().toStdString() + "/a.sevt";
        for (bool directory : {false, true}) {
            const std::string full = directory ? directoryFile(7) : record(7);
            const auto layout = directory ? CacheFile::Layout::Directory : CacheFile::Layout::Whole;
            for (size_t n = 0; n < full.size(); ++n) {
                writeFile(p, full.substr(0, n));
                QVERIFY2(whyNot(p, layout) != "opened", std::to_string(n).c_str());
            }
            writeFile(p, full);
            QCOMPARE(whyNot(p, layout), std::string("opened"));
        }
    }

    // A link under a cache name is not read through, though what it points to is a valid file;
    // nor is a file in a place that is a link, nor a FIFO.
    void linksAndOddFilesRefused()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeFile(d + "/valid.sidx", record(7));
        fs::create_symlink(d + "/valid.sidx", d + "/link.sidx");
        QCOMPARE(whyNot(d + "/link.sidx", CacheFile::Layout::Whole), std::string("a symbolic link"));
        fs::create_directory(d + "/real");
        writeFile(d + "/real/a.sidx", record(7));
        fs::create_directory_symlink(d + "/real", d + "/place");
        QVERIFY(whyNot(d + "/place/a.sidx", CacheFile::Layout::Whole).find("symbolic link") !=
                std::string::npos);
        QCOMPARE(::mkfifo((d + "/fifo.sidx").c_str(), 0644), 0);
        QCOMPARE(whyNot(d + "/fifo.sidx", CacheFile::Layout::Whole),
                 std::string("not a regular file"));
        QCOMPARE(whyNot("", CacheFile::Layout::Whole), std::string("cache place refused"));
    }

    void foreignOwnerRefused()
    {
        if (::geteuid() != 0)
            QSKIP("giving a file to another user needs root");
        QTemporaryDir dir;
        const std::string p = dir.path().toStdString() + "/a.sidx";
        writeFile(p, record(7));
        QCOMPARE(::chown(p.c_str(), 54321, 54321), 0);
        QCOMPARE(whyNot(p, CacheFile::Layout::Whole),
                 std::string("owned by another user (uid 54321)"));
    }

    void eachCacheNeverTrustedWhenDamaged_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("damage");
        for (const char *kind : {"sidx", "sevt", "scc", "slk"})
            for (Damage d : {Damage::Stale, Damage::OtherVersion, Damage::Cut, Damage::Link,
                             Damage::ForeignOwner})
                QTest::addRow("%s/%d", kind, int(d)) << QString(kind) << int(d);
    }

    void eachCacheNeverTrustedWhenDamaged()
    {
        QFETCH(QString, kind);
        QFETCH(int, damage);
        const Damage dmg = Damage(damage);
        if (dmg == Damage::ForeignOwner && ::geteuid() != 0)
            QSKIP("giving a file to another user needs root");
        QTemporaryDir dir, elsewhere;
        const std::string d = dir.path().toStdString();
        writeJob(d, 1'000'000'000);
        std::vector<std::string> logs;
        for (int w = 0; w < kWorkers; ++w)
            logs.push_back(logOf(d, w));
        const LoadResult first = loadJob(d);
        QVERIFY(first.timeline);
        const auto expected = events(*first.timeline, ClockMode::Corrected, false, 0, 0);
        const LoadWindow win = window(0.2, 0.6);
        const LoadResult firstWin = loadJob(d, win);
        QVERIFY(firstWin.timeline);
        const auto expectedWin = events(*firstWin.timeline, ClockMode::Corrected, false, 0, 0);
        QCOMPARE(loadJob(d).logsFromStores, size_t(kWorkers)); // the caches are used

        const std::string key = CorrectionCache::keyOf(logs, load::ClockCorrector::Options());
        std::vector<std::string> files;
        const bool directory = kind == "sevt" || kind == "slk";
        if (kind == "sidx" || kind == "sevt")
            for (const std::string &log : logs)
                files.push_back(kind == "sidx" ? LogIndex::pathFor(log, true)
                                               : EventStore::pathFor(log, true));
        else
            files.push_back(CorrectionCache::fileOf(logs, key, true,
                                                    kind == "scc" ? "correction-" : "links-",
                                                    kind == "scc" ? ".scc" : ".slk"));
        for (const std::string &f : files)
            QVERIFY2(isRegular(f), f.c_str());
        for (const std::string &f : files) {
            switch (dmg) {
            case Damage::Stale:
                break;
            case Damage::OtherVersion:
                bumpVersion(f, directory);
                break;
            case Damage::Cut: {
                const std::string b = readFile(f);
                writeFile(f, b.substr(0, b.size() / 2));
                break;
            }
            case Damage::Link: {
                const std::string copy =
                    elsewhere.path().toStdString() + "/" + fs::path(f).filename().string();
                fs::copy_file(f, copy);
                fs::remove(f);
                fs::create_symlink(copy, f);
                break;
            }
            case Damage::ForeignOwner:
                QCOMPARE(::chown(f.c_str(), 54321, 54321), 0);
                break;
            }
        }
        if (dmg == Damage::Stale) // the same bytes written again: a new ctime, so a new stamp
            for (const std::string &log : logs)
                testlogs::write(log, readFile(log));

        // Never trusted: the loads equal those before the damage...
        const LoadResult again = loadJob(d);
        QVERIFY(again.timeline);
        QCOMPARE(events(*again.timeline, ClockMode::Corrected, false, 0, 0), expected);
        if (kind == "sidx" || kind == "sevt" || dmg == Damage::Stale)
            QCOMPARE(again.logsFromStores, size_t(0));
        const LoadResult againWin = loadJob(d, win);
        QVERIFY(againWin.timeline);
        QCOMPARE(events(*againWin.timeline, ClockMode::Corrected, false, 0, 0), expectedWin);
        // ...and the caches are written again, and used by the next load.
        const std::string newKey = CorrectionCache::keyOf(logs, load::ClockCorrector::Options());
        std::string why;
        for (const std::string &log : logs) {
            QVERIFY2(LogIndex::load(log, &why), why.c_str());
            QVERIFY2(EventStore::open(log, &why), why.c_str());
            QVERIFY(isRegular(LogIndex::pathFor(log, true)));
            QVERIFY(isRegular(EventStore::pathFor(log, true)));
        }
        QVERIFY2(CorrectionCache::load(logs, load::ClockCorrector::Options(), &why), why.c_str());
        QVERIFY(isRegular(CorrectionCache::fileOf(logs, newKey, true, "links-", ".slk")));
        QCOMPARE(loadJob(d).logsFromStores, size_t(kWorkers));
    }
};

QTEST_GUILESS_MAIN(TstCacheFile)
#include "tst_cachefile.moc"
