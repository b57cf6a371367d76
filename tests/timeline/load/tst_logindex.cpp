// Windowed opening (docs/scale.md): the per-log index (LogIndex) and the job's correction cache
// are written by a full load, reused, and ignored when stale, corrupt, of another version or
// unwritable; a windowed load reads only the blocks it needs and gives exactly the events a full
// load cut to the window gives (same events, same corrected times, same ancestors), with nesting
// and long events across the window's edges. Real files, real JobLoader.
#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/store/logindex.h"

#include "indexjob.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

using namespace syncline;
using syncline::load::EventStore;
using syncline::load::LogIndex;
namespace fs = std::filesystem;

using namespace indexjob;

class TstLogIndex : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
    }

    void windowEqualsFullLoadCut_data()
    {
        QTest::addColumn<double>("a");
        QTest::addColumn<double>("b");
        QTest::addColumn<bool>("raw");
        QTest::addColumn<int>("how");
        // 0: decoded from the event stores; 1: no store (each log parsed whole, which writes
        // one); 2: no store and none written (only the index's blocks of the logs are parsed);
        // 3: no link store (the window's msg records, from the event stores, are paired).
        for (int how : {0, 1, 2, 3}) {
            const char *label = how == 0   ? "event store: "
                                : how == 1 ? "no event store: "
                                : how == 2 ? "index blocks: "
                                           : "no link store: ";
            auto row = [&](const char *name) {
                return &QTest::newRow(qPrintable(QString(label) + name));
            };
            *row("start") << 0.0 << 0.3 << false << how;
            *row("inside a phase, across checkpoints") << 1.05 << 1.35 << false << how;
            *row("across phase edges") << 0.35 << 1.25 << false << how;
            *row("1 ms") << 2.0004 << 2.0014 << false << how;
            *row("end, past the job") << 2.5 << 9.0 << false << how;
            *row("whole job") << 0.0 << 3.0 << false << how;
            *row("raw clocks") << 0.9 << 1.6 << true << how;
        }
    }
    void windowEqualsFullLoadCut()
    {
        QFETCH(double, a);
        QFETCH(double, b);
        QFETCH(bool, raw);
        QFETCH(int, how);
        const bool stores = how == 0 || how == 3;
        const ClockMode mode = raw ? ClockMode::Raw : ClockMode::Corrected;
        QTemporaryDir dir;
        writeJob(dir.path().toStdString());
        const std::string d = dir.path().toStdString();
        const LoadResult full = loadJob(d); // writes the indexes, stores and correction cache
        QVERIFY(full.timeline);
        QVERIFY(fs::exists(d + "/.syncline-index/timer_events.0.log.sidx"));
        for (int i = 0; i < kWorkers; ++i) {
            std::string why;
            QVERIFY2(EventStore::open(logOf(d, i), &why), why.c_str());
            if (!stores) // no store: the window's logs are parsed whole, which writes them
                fs::remove(EventStore::pathFor(logOf(d, i), true));
        }
        int linkStores = 0;
        for (const auto &e : fs::directory_iterator(d + "/.syncline-index"))
            if (e.path().extension() == ".slk") {
                ++linkStores;
                if (how == 3)
                    fs::remove(e.path());
            }
        QCOMPARE(linkStores, 1);
        const LoadResult win = loadJob(d, window(a, b, mode), how != 2);
        QVERIFY(win.timeline);
        const Timeline &w = *win.timeline;
        QVERIFY(w.window.active);
        QVERIFY(w.window.readOnlyWindow);
        QCOMPARE(w.window.fromEventStore, stores);
        for (int i = 0; i < kWorkers; ++i)
            QCOMPARE(bool(EventStore::open(logOf(d, i))), how != 2);
        const int64_t origin = full.timeline->originNs(mode);
        QCOMPARE(w.originNs(mode), origin);
        const int64_t A = origin + int64_t(a * 1e9), B = origin + int64_t(b * 1e9);
        QCOMPARE(w.window.beginNs, A);
        QCOMPARE(w.window.endNs, B);
        const auto expected = events(*full.timeline, mode, true, A, B);
        const auto got = events(w, mode, false, 0, 0);
        QVERIFY(!expected.empty());
        if (got != expected) {
            std::vector<EventKey> missing, extra;
            std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                                std::back_inserter(missing));
            std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                                std::back_inserter(extra));
            for (size_t i = 0; i < missing.size() && i < 5; ++i)
                qWarning("missing: rank %d tid %lld %s depth %d ls %lld le %lld",
                         std::get<0>(missing[i]), (long long)std::get<1>(missing[i]),
                         std::get<2>(missing[i]).c_str(), std::get<3>(missing[i]),
                         (long long)std::get<8>(missing[i]), (long long)std::get<9>(missing[i]));
            for (size_t i = 0; i < extra.size() && i < 5; ++i)
                qWarning("extra: rank %d tid %lld %s depth %d ls %lld le %lld",
                         std::get<0>(extra[i]), (long long)std::get<1>(extra[i]),
                         std::get<2>(extra[i]).c_str(), std::get<3>(extra[i]),
                         (long long)std::get<8>(extra[i]), (long long)std::get<9>(extra[i]));
            QCOMPARE(qsizetype(missing.size()), qsizetype(0));
            QCOMPARE(qsizetype(extra.size()), qsizetype(0));
        }
        // The clocks are the full load's (every sync sample, every message), and so are the
        // samples shown in the clock panel and the thread names.
        for (size_t i = 0; i < w.workers.size(); ++i) {
            QCOMPARE(
                w.workers[i].corrected.toGlobal(localOf(int(i), kT0 + 123456789)),
                full.timeline->workers[i].corrected.toGlobal(localOf(int(i), kT0 + 123456789)));
            QCOMPARE(w.workers[i].samples.size(), full.timeline->workers[i].samples.size());
            QCOMPARE(w.workers[i].clock.method, full.timeline->workers[i].clock.method);
            QCOMPARE(w.workers[i].tracks.front().threadName, std::string("main"));
        }
        QCOMPARE(w.causality.constraints, full.timeline->causality.constraints);
        // The problems are the full parse's (stored with the events), in the same order.
        if (stores) {
            QCOMPARE(w.problems.size(), full.timeline->problems.size());
            for (size_t i = 0; i < w.problems.size(); ++i) {
                QCOMPARE(w.problems[i].toString(), full.timeline->problems[i].toString());
                QCOMPARE(w.problems[i].kind, full.timeline->problems[i].kind);
            }
        }
        // The arrows: the full load's with both ends in the window (the job has messages).
        const auto links = [mode](const Timeline &tl, bool cutTo, int64_t a0, int64_t b0) {
            std::multiset<std::tuple<int, int, int, int, int64_t, int64_t>> out;
            for (const MessageLink &l : tl.links) {
                const int64_t f = tl.map(l.fromWorker, mode).toGlobal(l.fromLocal);
                const int64_t t = tl.map(l.toWorker, mode).toGlobal(l.toLocal);
                if (cutTo && !(f >= a0 && f <= b0 && t >= a0 && t <= b0))
                    continue;
                out.insert({tl.workers[l.fromWorker].info.rank, int(l.fromTrack),
                            tl.workers[l.toWorker].info.rank, int(l.toTrack), f, t});
            }
            return out;
        };
        const auto expectedLinks = links(*full.timeline, true, A, B);
        if (b - a >= 0.2)
            QVERIFY(!expectedLinks.empty());
        QCOMPARE(links(w, false, 0, 0), expectedLinks);
        // A window of a third of the job or less reads well under the whole job.
        if (how != 1 && b - a <= 1.0)
            QVERIFY2(w.window.bytesRead < jobBytes(d) * 2 / 3,
                     qPrintable(QString::number(w.window.bytesRead)));
    }

    void indexReusedNotRewritten()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        const std::string idx = LogIndex::pathFor(logOf(d, 0), true);
        std::string why;
        QVERIFY2(LogIndex::load(logOf(d, 0), &why), why.c_str());
        const int64_t before = mtimeNs(idx);
        QVERIFY(loadJob(d).timeline);
        QCOMPARE(mtimeNs(idx), before);
        const auto x = LogIndex::load(logOf(d, 0));
        QVERIFY(x->checkpoints.size() > 10);
        QCOMPARE(x->samples.size(), size_t(kDuration / 50'000'000));
    }

    void badIndexIgnoredAndRebuilt_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("reason");
        QTest::newRow("flipped byte") << "flip"
                                      << "corrupt";
        QTest::newRow("truncated") << "truncate"
                                   << "";
        QTest::newRow("garbage") << "garbage"
                                 << "magic";
        QTest::newRow("other version") << "version"
                                       << "version";
        QTest::newRow("empty") << "empty"
                               << "";
    }
    void badIndexIgnoredAndRebuilt()
    {
        QFETCH(QString, damage);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const LoadResult full = loadJob(d);
        const std::string idx = LogIndex::pathFor(logOf(d, 1), true);
        std::string bytes;
        {
            std::ifstream in(idx, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        QVERIFY(bytes.size() > 100);
        if (damage == "flip")
            bytes[bytes.size() / 2] ^= 0x5a;
        else if (damage == "truncate")
            bytes.resize(bytes.size() / 3);
        else if (damage == "garbage")
            bytes = std::string(4000, 'x');
        else if (damage == "empty")
            bytes.clear();
        else if (damage == "version") {
            // A well-formed file (its own hash right) of a version this reader does not know.
            const char magic[8] = {'S', 'Y', 'N', 'C', 'I', 'D', 'X', '1'};
            load::CacheFile::Writer w(magic, 99);
            w.str(bytes.substr(12, bytes.size() - 20));
            QVERIFY(w.writeTo(idx));
        }
        if (damage != "version")
            testlogs::write(idx, bytes);
        std::string why;
        QVERIFY(!LogIndex::load(logOf(d, 1), &why));
        QVERIFY2(why.find(reason.toStdString()) != std::string::npos, why.c_str());
        // Not trusted: the window comes from a full load and is still right.
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        QVERIFY(win.timeline);
        QVERIFY(!win.timeline->window.readOnlyWindow);
        const int64_t o = full.timeline->originNs(ClockMode::Corrected);
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*full.timeline, ClockMode::Corrected, true, o + 1'000'000'000,
                        o + 1'500'000'000));
        // ...which rebuilt it.
        QVERIFY2(LogIndex::load(logOf(d, 1), &why), why.c_str());
        QVERIFY(loadJob(d, window(1.0, 1.5)).timeline->window.readOnlyWindow);
    }

    // A damaged event store is never trusted: the window is still right (that log is parsed
    // whole instead), and the store is written again.
    void badEventStoreIgnoredAndRebuilt_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("chunks flipped") << "chunks";
        QTest::newRow("directory flipped") << "directory";
        QTest::newRow("truncated") << "truncate";
        QTest::newRow("garbage") << "garbage";
        QTest::newRow("empty") << "empty";
        QTest::newRow("other version") << "version";
    }
    void badEventStoreIgnoredAndRebuilt()
    {
        QFETCH(QString, damage);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const LoadResult full = loadJob(d);
        const std::string store = EventStore::pathFor(logOf(d, 1), true);
        std::string bytes;
        {
            std::ifstream in(store, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        QVERIFY(bytes.size() > 1000);
        uint64_t dirOffset = 0;
        std::memcpy(&dirOffset, bytes.data() + bytes.size() - 8, 8);
        QVERIFY(dirOffset > 0 && dirOffset < bytes.size());
        if (damage == "chunks") // every chunk: the directory still checks out, the reads do not
            for (size_t i = 0; i < dirOffset; i += 7)
                bytes[i] = char(bytes[i] ^ 0x21);
        else if (damage == "directory")
            bytes[dirOffset + (bytes.size() - dirOffset) / 2] ^= 0x5a;
        else if (damage == "truncate")
            bytes.resize(bytes.size() * 2 / 3);
        else if (damage == "garbage")
            bytes = std::string(bytes.size(), 'x');
        else if (damage == "version") {
            // A well-formed directory (its own hash right) of a version this reader does not
            // know: magic, version, body, hash.
            const uint32_t v = 99;
            std::memcpy(bytes.data() + dirOffset + 8, &v, 4);
            const size_t hashAt = bytes.size() - 16;
            const uint64_t h = load::CacheFile::hash(
                std::string_view(bytes).substr(dirOffset, hashAt - dirOffset));
            std::memcpy(bytes.data() + hashAt, &h, 8);
        } else
            bytes.clear();
        testlogs::write(store, bytes);
        std::string why;
        QCOMPARE(bool(EventStore::open(logOf(d, 1), &why)), damage == "chunks");
        if (damage == "version")
            QVERIFY2(why.find("version 99") != std::string::npos, why.c_str());
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        QVERIFY(win.timeline && win.timeline->window.readOnlyWindow);
        QVERIFY(!win.timeline->window.fromEventStore);
        const int64_t o = full.timeline->originNs(ClockMode::Corrected);
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*full.timeline, ClockMode::Corrected, true, o + 1'000'000'000,
                        o + 1'500'000'000));
        QVERIFY2(EventStore::open(logOf(d, 1), &why), why.c_str());
        const LoadResult again = loadJob(d, window(1.0, 1.5));
        QVERIFY(again.timeline->window.fromEventStore);
        QCOMPARE(events(*again.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*win.timeline, ClockMode::Corrected, false, 0, 0));
    }

    // A damaged link store is not trusted: the window is cut from a full load (with the same
    // arrows), which writes it again.
    void badLinkStoreIgnoredAndRebuilt()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        const LoadResult good = loadJob(d, window(1.0, 1.5));
        QVERIFY(good.timeline->window.readOnlyWindow && !good.timeline->links.empty());
        std::string slk;
        for (const auto &e : fs::directory_iterator(d + "/.syncline-index"))
            if (e.path().extension() == ".slk")
                slk = e.path().string();
        QVERIFY(!slk.empty());
        std::string bytes;
        {
            std::ifstream in(slk, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        uint64_t dirOffset = 0;
        std::memcpy(&dirOffset, bytes.data() + bytes.size() - 8, 8);
        QVERIFY(dirOffset > 0 && dirOffset < bytes.size());
        for (size_t i = 0; i < dirOffset; i += 5)
            bytes[i] = char(bytes[i] ^ 0x11);
        testlogs::write(slk, bytes);
        const LoadResult win = loadJob(d, window(1.0, 1.5));
        QVERIFY(win.timeline && !win.timeline->window.readOnlyWindow);
        QCOMPARE(win.timeline->links.size(), good.timeline->links.size());
        QCOMPARE(win.timeline->eventCount(), good.timeline->eventCount());
        const LoadResult again = loadJob(d, window(1.0, 1.5));
        QVERIFY(again.timeline->window.readOnlyWindow);
        QCOMPARE(again.timeline->links.size(), good.timeline->links.size());
    }

    // The store is compact: well under the log's own bytes per event (events and messages).
    void eventStoreSize()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        const LoadResult full = loadJob(d);
        QVERIFY(full.timeline);
        for (int w = 0; w < kWorkers; ++w) {
            const auto s = EventStore::open(logOf(d, w));
            QVERIFY(s);
            uint64_t events = 0;
            for (const auto &t : s->tracks)
                events += t.events;
            QCOMPARE(int64_t(events), int64_t(full.timeline->workers[size_t(w)].eventCount()));
            const double perEvent = double(s->storedBytes) / double(events);
            qInfo("worker %d: %llu events, store %.1f B/event, log %.1f B/event", w,
                  (unsigned long long)events, perEvent,
                  double(fs::file_size(logOf(d, w))) / double(events));
            QVERIFY2(perEvent < 24, qPrintable(QString::number(perEvent)));
        }
    }

    void corruptCorrectionCacheIgnored()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d).timeline);
        int damaged = 0;
        for (const auto &e : fs::directory_iterator(d + "/.syncline-index"))
            if (e.path().extension() == ".scc") {
                std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
                f.seekp(40);
                f.put('\x7f');
                ++damaged;
            }
        QCOMPARE(damaged, 1);
        QVERIFY(!JobLoader::indexedSpan({d}).known);
        const LoadResult win = loadJob(d, window(0.5, 0.7));
        QVERIFY(win.timeline && !win.timeline->window.readOnlyWindow);
        QVERIFY(JobLoader::indexedSpan({d}).known);
        QVERIFY(loadJob(d, window(0.5, 0.7)).timeline->window.readOnlyWindow);
        // Other options (another --align-on) are another cache: not this one.
        QVERIFY(!JobLoader::indexedSpan({d}, "allreduce").known);
    }

    // The job directory cannot hold the index: it goes to the cache dir ($XDG_CACHE_HOME), and a
    // windowed open uses it from there; with neither writable the job still opens.
    void unwritableJobDirectory()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        // A file where the index directory would be (this also blocks root, which chmod does
        // not); without root, the directory itself is made read-only too.
        testlogs::write(d + "/.syncline-index", "not a directory");
        const bool root = ::geteuid() == 0;
        if (!root)
            ::chmod(d.c_str(), 0555);
        const LoadResult full = loadJob(d);
        QVERIFY(full.timeline);
        QVERIFY(!fs::exists(LogIndex::pathFor(logOf(d, 0), true)));
        QVERIFY(fs::exists(LogIndex::pathFor(logOf(d, 0), false)));
        QVERIFY(LogIndex::pathFor(logOf(d, 0), false).rfind(m_cache.path().toStdString(), 0) == 0);
        QVERIFY(JobLoader::indexedSpan({d}).known);
        const LoadResult win = loadJob(d, window(1.0, 1.2));
        QVERIFY(win.timeline->window.readOnlyWindow);
        QVERIFY(win.timeline->window.fromEventStore);
        QVERIFY(fs::exists(EventStore::pathFor(logOf(d, 0), false)));
        // Neither place writable: still opens (a full load, cut).
        QTemporaryDir other;
        writeJob(other.path().toStdString());
        testlogs::write(other.path().toStdString() + "/.syncline-index", "x");
        const QByteArray saved = qgetenv("XDG_CACHE_HOME");
        testlogs::write(m_cache.path().toStdString() + "/blocker", "x");
        qputenv("XDG_CACHE_HOME", (m_cache.path() + "/blocker").toLocal8Bit());
        const LoadResult none = loadJob(other.path().toStdString(), window(1.0, 1.2));
        qputenv("XDG_CACHE_HOME", saved);
        QVERIFY(none.timeline);
        QVERIFY(!none.timeline->window.readOnlyWindow);
        QVERIFY(none.timeline->eventCount() > 0);
        if (!root)
            ::chmod(d.c_str(), 0755);
    }
};

QTEST_APPLESS_MAIN(TstLogIndex)
#include "tst_logindex.moc"
