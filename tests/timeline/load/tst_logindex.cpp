// Windowed opening (docs/scale.md): the per-log index (LogIndex) and the job's correction cache
// are written by a full load, reused, and ignored when stale, corrupt, of another version or
// unwritable; a windowed load reads only the blocks it needs and gives exactly the events a full
// load cut to the window gives (same events, same corrected times, same ancestors), with nesting
// and long events across the window's edges. Real files, real JobLoader.
#include "timeline/load/cachefile.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/logindex.h"

#include "../testlogs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

using namespace syncline;
using syncline::load::LogIndex;
namespace fs = std::filesystem;

namespace {

constexpr int kWorkers = 3;
constexpr int64_t kT0 = 1'000'000'000;       // true time of the job's start
constexpr int64_t kDuration = 3'000'000'000; // 3 s

// Local clock of worker w at true time t: hosts seconds apart, drifting by 20 ppm per worker.
int64_t localOf(int w, int64_t t)
{
    return t + int64_t(w) * 5'000'000'000LL + 3'000'000 * w + (t - kT0) * 20 * w / 1'000'000;
}

struct Line
{
    int64_t at; // true time the recorder wrote it
    std::string text;
};

// A job with sync samples, messages between neighbours, and nesting at every scale: an epoch
// span over the whole run, 400 ms phases, 2 ms steps of forward/backward with an X kernel, a
// 700 ms X checkpoint on a second thread written when it ends, instants, and (worker 1) a span
// that never ends.
void writeJob(const std::string &dir, int64_t duration = kDuration)
{
    std::vector<std::vector<Line>> lines(kWorkers);
    for (int w = 0; w < kWorkers; ++w) {
        auto L = [w](int64_t t) { return localOf(w, t); };
        auto &out = lines[size_t(w)];
        out.push_back({INT64_MIN, testlogs::header(w, 0, "host-" + std::to_string(w), L(kT0),
                                                   1700000000000000000LL + w * 1000,
                                                   "boot-" + std::to_string(w))});
        out.push_back({INT64_MIN + 1, "{\"t\":\"thread\",\"tid\":1,\"name\":\"main\"}\n"});
        out.push_back({kT0, testlogs::begin(L(kT0), 1, "epoch", "{\"epoch\":0}")});
        for (int64_t t = kT0; t < kT0 + duration; t += 50'000'000) { // sync every 50 ms
            const int64_t t2 = t + 20'000, t3 = t2 + 5'000;
            out.push_back(
                {t + 50'000, "{\"t\":\"sync\",\"burst\":" + std::to_string(t / 50'000'000) +
                                 ",\"seq\":0,\"ref\":\"ts:1\",\"t1\":" + std::to_string(L(t)) +
                                 ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
                                 ",\"t4\":" + std::to_string(L(t + 50'000)) + "}\n"});
        }
        int step = 0;
        for (int64_t p = kT0 + 1'000'000; p + 400'000'000 <= kT0 + duration; p += 400'000'000) {
            out.push_back({p, testlogs::begin(L(p), 1, "phase")});
            for (int64_t s = p + 100'000; s + 2'000'000 < p + 400'000'000; s += 2'000'000, ++step) {
                const std::string args = "{\"step\":" + std::to_string(step) + "}";
                out.push_back({s, testlogs::begin(L(s), 1, "step", args)});
                out.push_back({s + 10, testlogs::begin(L(s + 10), 1, "forward")});
                out.push_back({s + 700'000, testlogs::end(L(s + 700'000), 1, "forward")});
                out.push_back({s + 710'000, testlogs::begin(L(s + 710'000), 1, "backward")});
                out.push_back(
                    {s + 1'500'000, testlogs::complete(L(s + 800'000), 600'000, 1, "kernel")});
                out.push_back({s + 1'600'000, testlogs::end(L(s + 1'600'000), 1, "backward")});
                // A message to the next worker, received 60 µs after it was sent.
                const std::string id = "m" + std::to_string(w) + "-" + std::to_string(step);
                out.push_back(
                    {s + 1'650'000, "{\"t\":\"msg\",\"ts\":" + std::to_string(L(s + 1'650'000)) +
                                        ",\"tid\":1,\"dir\":\"send\",\"peer\":" +
                                        std::to_string((w + 1) % kWorkers) + ",\"id\":\"" + id +
                                        "\"}\n"});
                const int peer = (w + 1) % kWorkers;
                lines[size_t(peer)].push_back(
                    {s + 1'710'000,
                     "{\"t\":\"msg\",\"ts\":" + std::to_string(localOf(peer, s + 1'710'000)) +
                         ",\"tid\":1,\"dir\":\"recv\",\"peer\":" + std::to_string(w) +
                         ",\"id\":\"" + id + "\"}\n"});
                out.push_back({s + 1'800'000, testlogs::end(L(s + 1'800'000), 1, "step")});
            }
            out.push_back({p + 399'000'000, testlogs::end(L(p + 399'000'000), 1, "phase")});
        }
        for (int64_t c = kT0 + 200'000'000; c + 700'000'000 < kT0 + duration; c += 1'000'000'000)
            out.push_back(
                {c + 700'000'000, testlogs::complete(L(c), 700'000'000, 2, "checkpoint")});
        for (int64_t i = kT0; i < kT0 + duration; i += 100'000'000)
            out.push_back({i, "{\"t\":\"I\",\"ts\":" + std::to_string(L(i)) +
                                  ",\"tid\":2,\"name\":\"tick\"}\n"});
        if (w == 1)
            out.push_back(
                {kT0 + 1'500'000'000, testlogs::begin(L(kT0 + 1'500'000'000), 3, "hang")});
        out.push_back({kT0 + duration - 1, testlogs::end(L(kT0 + duration - 1), 1, "epoch")});
    }
    for (int w = 0; w < kWorkers; ++w) {
        auto &out = lines[size_t(w)];
        std::stable_sort(out.begin(), out.end(),
                         [](const Line &a, const Line &b) { return a.at < b.at; });
        std::string text;
        for (const Line &l : out)
            text += l.text;
        testlogs::write(dir + "/timer_events." + std::to_string(w) + ".log", text);
    }
}

// One event as the user sees it: worker, thread, name, depth, its parent's name and start, global
// and local times, flags and args.
using EventKey = std::tuple<int, int64_t, std::string, int, std::string, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int, std::string>;

std::multiset<EventKey> events(const Timeline &tl, ClockMode mode, bool cut, int64_t a, int64_t b)
{
    std::multiset<EventKey> out;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const auto &m = tl.map(w, mode);
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t gs = m.toGlobal(t.localStart[i]), ge = m.toGlobal(t.localEnd[i]);
                if (cut && !(gs <= b && ge >= a))
                    continue;
                const int32_t p = t.parent[i];
                const int64_t args = t.argsId(uint32_t(i));
                out.insert(
                    {tl.workers[w].info.rank, t.tid, std::string(tl.names.name(t.nameId[i])),
                     t.depth[i], p >= 0 ? std::string(tl.names.name(t.nameId[size_t(p)])) : "",
                     p >= 0 ? t.localStart[size_t(p)] : -1, gs, ge, t.localStart[i], t.localEnd[i],
                     t.flags[i], args >= 0 ? std::string(tl.args.text(uint32_t(args))) : ""});
            }
    }
    return out;
}

LoadResult loadJob(const std::string &dir, LoadWindow window = {})
{
    LoadOptions o;
    o.paths = {dir};
    o.window = window;
    o.indexIntervalBytes = 16 << 10; // many checkpoints in a small job
    return JobLoader::load(o);
}

LoadWindow window(double a, double b, ClockMode mode = ClockMode::Corrected)
{
    LoadWindow w;
    w.use = true;
    w.mode = mode;
    w.beginNs = int64_t(a * 1e9);
    w.endNs = int64_t(b * 1e9);
    return w;
}

int64_t mtimeNs(const std::string &p)
{
    struct stat st
    {
    };
    ::stat(p.c_str(), &st);
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

int64_t jobBytes(const std::string &dir)
{
    int64_t n = 0;
    for (int w = 0; w < kWorkers; ++w)
        n += int64_t(fs::file_size(dir + "/timer_events." + std::to_string(w) + ".log"));
    return n;
}

std::string logOf(const std::string &dir, int w)
{
    return dir + "/timer_events." + std::to_string(w) + ".log";
}

} // namespace

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
        QTest::newRow("start") << 0.0 << 0.3 << false;
        QTest::newRow("inside a phase, across checkpoints") << 1.05 << 1.35 << false;
        QTest::newRow("across phase edges") << 0.35 << 1.25 << false;
        QTest::newRow("1 ms") << 2.0004 << 2.0014 << false;
        QTest::newRow("end, past the job") << 2.5 << 9.0 << false;
        QTest::newRow("whole job") << 0.0 << 3.0 << false;
        QTest::newRow("raw clocks") << 0.9 << 1.6 << true;
    }
    void windowEqualsFullLoadCut()
    {
        QFETCH(double, a);
        QFETCH(double, b);
        QFETCH(bool, raw);
        const ClockMode mode = raw ? ClockMode::Raw : ClockMode::Corrected;
        QTemporaryDir dir;
        writeJob(dir.path().toStdString());
        const std::string d = dir.path().toStdString();
        const LoadResult full = loadJob(d); // writes the indexes and the correction cache
        QVERIFY(full.timeline);
        QVERIFY(fs::exists(d + "/.syncline-index/timer_events.0.log.sidx"));
        const LoadResult win = loadJob(d, window(a, b, mode));
        QVERIFY(win.timeline);
        const Timeline &w = *win.timeline;
        QVERIFY(w.window.active);
        QVERIFY(w.window.readOnlyWindow);
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
        if (b - a <= 1.0)
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

    // A log that grows between opens (a live job): its index is stale (size and mtime) and is
    // not used; the window is cut from a full load, which rewrites that log's index (the
    // others' are kept) and the correction, so the next window reads only the window again
    // and sees the new events.
    void growingLog()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d, 2'000'000'000);
        QVERIFY(loadJob(d).timeline);
        const int64_t other = mtimeNs(LogIndex::pathFor(logOf(d, 2), true));
        const auto before = LogIndex::load(logOf(d, 0));
        QVERIFY(before);
        writeJob(d); // the same logs, each a second longer (append-only growth)
        std::string why;
        QVERIFY(!LogIndex::load(logOf(d, 0), &why));
        QVERIFY2(why.find("stale") != std::string::npos, why.c_str());
        const LoadResult cut = loadJob(d, window(2.2, 2.6));
        QVERIFY(cut.timeline);
        QVERIFY(!cut.timeline->window.readOnlyWindow);
        const auto after = LogIndex::load(logOf(d, 0));
        QVERIFY(after);
        QVERIFY(mtimeNs(LogIndex::pathFor(logOf(d, 2), true)) != other);
        // The new index continues the old one: same checkpoints over the part that was there
        // (only what lies past the old end, and the ends of events open there, are new).
        QVERIFY(after->checkpoints.size() > before->checkpoints.size());
        size_t same = 0;
        while (same < before->checkpoints.size() &&
               before->checkpoints[same].offset == after->checkpoints[same].offset &&
               before->checkpoints[same].line == after->checkpoints[same].line)
            ++same;
        QVERIFY(same + 2 >= before->checkpoints.size());
        const LoadResult win = loadJob(d, window(2.2, 2.6));
        QVERIFY(win.timeline->window.readOnlyWindow);
        QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*cut.timeline, ClockMode::Corrected, false, 0, 0));
        QVERIFY(win.timeline->eventCount() > 0);
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
