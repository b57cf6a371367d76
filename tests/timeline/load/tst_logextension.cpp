// A log that grows between loads (docs/scale.md "A growing log", LogExtension): when it grew by
// appending, its index and event store are extended in place — the old bytes are not parsed
// again, the store file keeps its old bytes and gets the new chunks after them — and the load
// gives exactly what a fresh parse of the grown files gives (events, nesting, ends of the events
// that were open at the old end, args, flags, messages and arrows, clocks, problems). A log
// rewritten with the same size, truncated, replaced, or changed before its old end is parsed
// whole and its files rebuilt. Real files appended to, real JobLoader.
#include "timeline/load/store/eventstore.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/store/logextension.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/parse/problemlog.h"

#include "indexjob.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sys/stat.h>

using namespace syncline;
using namespace indexjob;
using syncline::load::EventStore;
using syncline::load::LogExtension;
using syncline::load::LogIndex;
using syncline::load::ProblemLog;

namespace {

std::string readFile(const std::string &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void append(const std::string &p, std::string_view bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::app);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

uint64_t inodeOf(const std::string &p)
{
    struct stat st
    {
    };
    return ::stat(p.c_str(), &st) == 0 ? uint64_t(st.st_ino) : 0;
}

// The problems, each as "<kind key> <file:line: message>", with its log's name instead of its
// path (the fresh copy is elsewhere).
std::vector<std::string> problems(const Timeline &tl)
{
    std::vector<std::string> out;
    for (const LoadProblem &p : tl.problems) {
        LoadProblem q = p;
        const std::string dir = fs::path(p.file).parent_path().string();
        q.file = fs::path(p.file).filename().string();
        for (size_t at; !dir.empty() && (at = q.message.find(dir)) != std::string::npos;)
            q.message.replace(at, dir.size(), "DIR");
        out.push_back(std::string(LoadProblem::kindKey(q.kind)) + " " + q.toString());
    }
    return out;
}

std::multiset<std::tuple<int, int, int, int, int64_t, int64_t>> links(const Timeline &tl)
{
    std::multiset<std::tuple<int, int, int, int, int64_t, int64_t>> out;
    for (const MessageLink &l : tl.links)
        out.insert({tl.workers[l.fromWorker].info.rank, int(l.fromTrack),
                    tl.workers[l.toWorker].info.rank, int(l.toTrack), l.fromLocal, l.toLocal});
    return out;
}

// Everything compared between a load of the grown job and a fresh load of the same files.
void compareLoads(const Timeline &got, const Timeline &fresh)
{
    QCOMPARE(got.workers.size(), fresh.workers.size());
    QCOMPARE(events(got, ClockMode::Corrected, false, 0, 0),
             events(fresh, ClockMode::Corrected, false, 0, 0));
    QCOMPARE(events(got, ClockMode::Raw, false, 0, 0), events(fresh, ClockMode::Raw, false, 0, 0));
    QCOMPARE(problems(got), problems(fresh));
    QCOMPARE(links(got), links(fresh));
    for (size_t w = 0; w < got.workers.size(); ++w) {
        const Worker &a = got.workers[w], &b = fresh.workers[w];
        QCOMPARE(a.samples.size(), b.samples.size());
        QCOMPARE(a.info.firstLocalNs, b.info.firstLocalNs);
        QCOMPARE(a.info.lastLocalNs, b.info.lastLocalNs);
        QCOMPARE(a.info.closedCleanly, b.info.closedCleanly);
        QCOMPARE(a.tracks.size(), b.tracks.size());
        for (size_t t = 0; t < a.tracks.size(); ++t)
            QCOMPARE(a.tracks[t].threadName, b.tracks[t].threadName);
        for (int64_t at : {kT0, kT0 + 1'234'567'890, kT0 + kDuration})
            QCOMPARE(a.corrected.toGlobal(localOf(int(w), at)),
                     b.corrected.toGlobal(localOf(int(w), at)));
    }
}

// The job's logs as they are in `from`, loaded fresh in a directory of their own beside it
// (so `from` must be a folder inside the test's temporary directory, never the directory itself).
LoadResult freshLoad(const std::string &from)
{
    static int n = 0;
    const std::string d = from + "-fresh" + std::to_string(n++);
    fs::create_directories(d);
    for (int w = 0; w < kWorkers; ++w)
        fs::copy_file(logOf(from, w), logOf(d, w), fs::copy_options::overwrite_existing);
    return loadJob(d);
}

} // namespace

class TstLogExtension : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
    }

    // Logs appended to between loads, cut at each step where the recorder (or a reader racing
    // it) could leave them: at a line end, or in the middle of a line (a torn last line, parsed
    // again once complete), once or twice.
    void appendedLogExtended_data()
    {
        QTest::addColumn<QList<double>>("cuts"); // fractions of each log, one load at each
        QTest::addColumn<bool>("midLine");
        QTest::newRow("at a line end") << QList<double>{0.55} << false;
        QTest::newRow("partial last line") << QList<double>{0.55} << true;
        QTest::newRow("grown twice, torn then whole") << QList<double>{0.3, 0.7} << true;
        QTest::newRow("a few bytes") << QList<double>{0.999} << true;
    }
    void appendedLogExtended()
    {
        QFETCH(QList<double>, cuts);
        QFETCH(bool, midLine);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job";
        fs::create_directories(d);
        const std::vector<std::string> texts = jobTexts();
        std::vector<size_t> written(kWorkers, 0);
        auto growTo = [&](double f) {
            for (int w = 0; w < kWorkers; ++w) {
                const std::string &t = texts[size_t(w)];
                size_t cut = std::min(size_t(double(t.size()) * f), t.size() - 1);
                const size_t nl = t.rfind('\n', cut);
                const size_t lineStart = nl == std::string::npos || f >= 1.0 ? cut : nl + 1;
                if (f >= 1.0)
                    cut = t.size();
                else if (midLine) // the middle of the line: a record still being written
                    cut = lineStart + (t.find('\n', lineStart) - lineStart) / 2;
                else
                    cut = lineStart;
                cut = std::max(cut, written[size_t(w)]);
                append(logOf(d, w),
                       std::string_view(t).substr(written[size_t(w)], cut - written[size_t(w)]));
                written[size_t(w)] = cut;
            }
        };
        for (double f : cuts) {
            growTo(f);
            const LoadResult part = loadJob(d);
            QVERIFY(part.timeline);
            compareLoads(*part.timeline, *freshLoad(d).timeline);
        }
        // What the stores and indexes hold before the last growth.
        std::vector<std::string> storeBefore(kWorkers);
        std::vector<uint64_t> storeInode(kWorkers);
        std::vector<LogIndex> indexBefore;
        for (int w = 0; w < kWorkers; ++w) {
            const std::string p = EventStore::pathFor(logOf(d, w), true);
            storeBefore[size_t(w)] = readFile(p);
            storeInode[size_t(w)] = inodeOf(p);
            std::optional<LogIndex> x = LogIndex::load(logOf(d, w));
            QVERIFY(x);
            QVERIFY(x->resume.possible);
            indexBefore.push_back(std::move(*x));
        }
        growTo(1.0);
        for (int w = 0; w < kWorkers; ++w) {
            std::string why;
            QVERIFY2(LogExtension::prepare(logOf(d, w), &why), why.c_str());
        }
        const LoadResult grown = loadJob(d);
        QVERIFY(grown.timeline);
        const LoadResult fresh = freshLoad(d);
        QVERIFY(fresh.timeline);
        compareLoads(*grown.timeline, *fresh.timeline);
        QVERIFY(grown.timeline->eventCount() > 0);
        for (int w = 0; w < kWorkers; ++w) {
            // Extended in place: the same file, its old bytes unchanged, new ones after them.
            const std::string p = EventStore::pathFor(logOf(d, w), true);
            const std::string now = readFile(p);
            QCOMPARE(inodeOf(p), storeInode[size_t(w)]);
            QVERIFY(now.size() > storeBefore[size_t(w)].size());
            QVERIFY(now.compare(0, storeBefore[size_t(w)].size(), storeBefore[size_t(w)]) == 0);
            std::string why;
            QVERIFY2(EventStore::open(logOf(d, w), &why), why.c_str());
            // The index keeps its old checkpoints and continues after them.
            const std::optional<LogIndex> x = LogIndex::load(logOf(d, w), &why);
            QVERIFY2(x, why.c_str());
            const LogIndex &old = indexBefore[size_t(w)];
            QVERIFY(x->checkpoints.size() > old.checkpoints.size());
            for (size_t k = 0; k < old.checkpoints.size(); ++k) {
                QCOMPARE(x->checkpoints[k].offset, old.checkpoints[k].offset);
                QCOMPARE(x->checkpoints[k].line, old.checkpoints[k].line);
            }
            QCOMPARE(x->stamp.size, int64_t(texts[size_t(w)].size()));
        }
        // A window through the extended stores is the fresh load cut to it.
        for (auto [a, b] : {std::pair{0.2, 0.9}, std::pair{1.5, 2.9}}) {
            const LoadResult win = loadJob(d, window(a, b));
            QVERIFY(win.timeline);
            QVERIFY(win.timeline->window.fromEventStore);
            const int64_t o = fresh.timeline->originNs(ClockMode::Corrected);
            QCOMPARE(events(*win.timeline, ClockMode::Corrected, false, 0, 0),
                     events(*fresh.timeline, ClockMode::Corrected, true, o + int64_t(a * 1e9),
                            o + int64_t(b * 1e9)));
        }
    }

    // A log that changed in any other way is parsed whole, and its store and index rebuilt
    // (a new file): the load is still exactly the fresh one.
    void changedLogRebuilt_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("reason");
        QTest::newRow("rewritten, same size") << "same size"
                                              << "same size";
        QTest::newRow("truncated") << "truncate"
                                   << "truncated";
        QTest::newRow("old end rewritten, then grown") << "tail"
                                                       << "old bytes changed";
        QTest::newRow("head rewritten, then grown") << "head"
                                                    << "old bytes changed";
        QTest::newRow("replaced by a longer copy") << "replace"
                                                   << "replaced";
    }
    void changedLogRebuilt()
    {
        QFETCH(QString, change);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job";
        fs::create_directories(d);
        const std::vector<std::string> texts = jobTexts();
        const std::string &t0 = texts[0];
        const size_t half = t0.rfind('\n', t0.size() / 2) + 1;
        for (int w = 0; w < kWorkers; ++w)
            testlogs::write(logOf(d, w), w == 0 ? t0.substr(0, half) : texts[size_t(w)]);
        QVERIFY(loadJob(d).timeline);
        const std::string store = EventStore::pathFor(logOf(d, 0), true);
        const uint64_t inode = inodeOf(store);
        QVERIFY(inode != 0);
        std::string text = t0.substr(0, half);
        // A change of one digit keeps the size and stays a valid log (an args value).
        auto changeArgs = [&](size_t near) {
            const size_t at = text.find("\"step\":", near);
            QVERIFY(at != std::string::npos);
            char &digit = text[at + 7];
            digit = digit == '9' ? '8' : char(digit + 1);
        };
        if (change == "same size") {
            changeArgs(half / 2);
            testlogs::write(logOf(d, 0), text);
        } else if (change == "truncate") {
            testlogs::write(logOf(d, 0), t0.substr(0, t0.rfind('\n', half / 2) + 1));
        } else if (change == "tail" || change == "head") {
            changeArgs(change == "tail" ? half - 3000 : 0);
            text += t0.substr(half);
            testlogs::write(logOf(d, 0), text);
        } else {
            testlogs::write(logOf(d, 0) + ".new", t0);
            fs::rename(logOf(d, 0) + ".new", logOf(d, 0));
        }
        std::string why;
        QVERIFY(!LogExtension::prepare(logOf(d, 0), &why));
        QVERIFY2(why.find(reason.toStdString()) != std::string::npos, why.c_str());
        const LoadResult got = loadJob(d);
        QVERIFY(got.timeline);
        compareLoads(*got.timeline, *freshLoad(d).timeline);
        QVERIFY(inodeOf(store) != inode); // written anew (temporary file, renamed over)
        QVERIFY2(EventStore::open(logOf(d, 0), &why), why.c_str());
        QVERIFY2(LogIndex::load(logOf(d, 0), &why), why.c_str());
    }

    // The bytes past a log's last '\n' may be a record still being written, or a valid record
    // without its newline: the continuation starts before them, and is given up when they are
    // a whole record (its parse could change once more bytes follow).
    void continuationStopsAtTheLastCompleteLine()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job"; // freshLoad copies beside it
        fs::create_directories(d);
        const std::vector<std::string> texts = jobTexts();
        const std::string &t = texts[0];
        const size_t cut = t.rfind('\n', t.size() / 2) + 1;
        const size_t lineEnd = t.find('\n', cut);
        for (int w = 0; w < kWorkers; ++w)
            testlogs::write(logOf(d, w), texts[size_t(w)]);
        // Torn: the continuation is the start of the torn line.
        testlogs::write(logOf(d, 0), t.substr(0, cut + (lineEnd - cut) / 2));
        QVERIFY(loadJob(d).timeline);
        std::optional<LogIndex> x = LogIndex::load(logOf(d, 0));
        QVERIFY(x && x->resume.possible);
        QCOMPARE(x->resume.offset, int64_t(cut));
        QCOMPARE(x->resume.line, int64_t(std::count(t.begin(), t.begin() + ptrdiff_t(cut), '\n')));
        // A whole record without its '\n': not continuable (the log is parsed whole if it grows).
        testlogs::write(logOf(d, 0), t.substr(0, lineEnd));
        QVERIFY(loadJob(d).timeline);
        x = LogIndex::load(logOf(d, 0));
        QVERIFY(x);
        QVERIFY(!x->resume.possible);
        append(logOf(d, 0), t.substr(lineEnd));
        std::string why;
        QVERIFY(!LogExtension::prepare(logOf(d, 0), &why));
        QVERIFY2(why.find("cannot be continued") != std::string::npos, why.c_str());
        compareLoads(*loadJob(d).timeline, *freshLoad(d).timeline);
    }

    // A full load of a job that did not change since a load wrote its indexes and stores
    // decodes the stores instead of parsing the logs, and gives exactly the fresh parse; a log
    // whose store does not decode (a damaged chunk) is parsed and its store written again; a
    // log with problems (not continuable) is parsed.
    void unchangedJobDecodedFromStores()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job";
        fs::create_directories(d);
        std::vector<std::string> texts = jobTexts();
        texts[2].insert(texts[2].find('\n', texts[2].size() / 3) + 1, "{\"t\":\"B\",\"ts\":\n");
        for (int w = 0; w < kWorkers; ++w)
            testlogs::write(logOf(d, w), texts[size_t(w)]);
        const LoadResult first = loadJob(d);
        QVERIFY(first.timeline);
        QCOMPARE(first.logsFromStores, size_t(0));
        const LoadResult again = loadJob(d);
        QVERIFY(again.timeline);
        QCOMPARE(again.logsFromStores, size_t(kWorkers - 1)); // log 2 has a malformed line
        const LoadResult fresh = freshLoad(d);
        QVERIFY(fresh.timeline);
        QCOMPARE(fresh.logsFromStores, size_t(0));
        compareLoads(*again.timeline, *fresh.timeline);
        const std::vector<std::string> reported = problems(*again.timeline);
        QCOMPARE(std::count_if(reported.begin(), reported.end(),
                               [](const std::string &p) {
                                   return p.rfind("malformed_line timer_events.2.log:", 0) == 0;
                               }),
                 1);
        // Log 0's store damaged in a chunk (its directory intact): parsed, store rewritten.
        const std::string store = EventStore::pathFor(logOf(d, 0), true);
        std::string bytes = readFile(store);
        QVERIFY(bytes.size() > 1000);
        bytes[100] = char(bytes[100] ^ 0x5a);
        testlogs::write(store, bytes);
        QVERIFY(EventStore::open(logOf(d, 0))); // the directory still checks out
        const LoadResult damaged = loadJob(d);
        QVERIFY(damaged.timeline);
        QCOMPARE(damaged.logsFromStores, size_t(kWorkers - 2));
        compareLoads(*damaged.timeline, *fresh.timeline);
        const LoadResult repaired = loadJob(d);
        QCOMPARE(repaired.logsFromStores, size_t(kWorkers - 1));
        compareLoads(*repaired.timeline, *fresh.timeline);
        // Without writing indexes (the option), every log is parsed.
        QCOMPARE(loadJob(d, {}, false).logsFromStores, size_t(0));
    }

    // The recorder's `note` records (every log of a torchrun job has one: the time server it
    // uses) are the parse's problems too, and they carry over: an unchanged log with notes is
    // decoded from its store and a grown one extended, with every note, old and new, reported
    // at its line as a parse reports it. A log with more notes than a parse shows in full (the
    // rest summarised as a count) is parsed whole, and so stays exact too.
    void logWithRecorderNotesDecodedAndExtended()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job";
        fs::create_directories(d);
        auto note = [](int64_t ts, const std::string &msg) {
            return "{\"t\":\"note\",\"ts\":" + std::to_string(ts) +
                   ",\"level\":\"info\",\"msg\":\"" + msg + "\"}\n";
        };
        std::vector<std::string> texts = jobTexts();
        std::vector<size_t> half(kWorkers);
        for (int w = 0; w < kWorkers; ++w) {
            std::string &t = texts[size_t(w)];
            const size_t afterHeader = t.find('\n') + 1;
            const int early = w == 1 ? 6 : 2; // log 1: more than a parse shows in full
            std::string notes;
            for (int k = 0; k < early; ++k)
                notes += note(kT0, "early note " + std::to_string(k));
            t.insert(afterHeader, notes);
            half[size_t(w)] = t.rfind('\n', t.size() / 2) + 1;
            // Another note in the part appended later (log 0 and 2: one more, still in full).
            if (w != 1)
                t.insert(t.find('\n', half[size_t(w)] + t.size() / 10) + 1,
                         note(kT0 + kDuration / 2, "late note"));
            testlogs::write(logOf(d, w), t.substr(0, half[size_t(w)]));
        }
        auto notes = [](const Timeline &tl) {
            return std::count_if(tl.problems.begin(), tl.problems.end(), [](const LoadProblem &p) {
                return p.kind == LoadProblem::Kind::RecorderNote && p.line > 0;
            });
        };
        const LoadResult first = loadJob(d);
        QVERIFY(first.timeline);
        QCOMPARE(first.logsFromStores, size_t(0));
        const LoadResult again = loadJob(d);
        QVERIFY(again.timeline);
        QCOMPARE(again.logsFromStores, size_t(kWorkers - 1)); // all but log 1
        compareLoads(*again.timeline, *freshLoad(d).timeline);
        QCOMPARE(notes(*again.timeline), 2 * (kWorkers - 1) + ProblemLog::kShownPerKind);
        for (int w = 0; w < kWorkers; ++w) {
            append(logOf(d, w), std::string_view(texts[size_t(w)]).substr(half[size_t(w)]));
            std::string why;
            QCOMPARE(bool(LogExtension::prepare(logOf(d, w), &why)), w != 1);
        }
        const LoadResult grown = loadJob(d);
        QVERIFY(grown.timeline);
        compareLoads(*grown.timeline, *freshLoad(d).timeline);
        QCOMPARE(notes(*grown.timeline), 3 * (kWorkers - 1) + ProblemLog::kShownPerKind);
        const LoadResult unchanged = loadJob(d);
        QCOMPARE(unchanged.logsFromStores, size_t(kWorkers - 1));
        compareLoads(*unchanged.timeline, *freshLoad(d).timeline);
    }

    // A log whose old bytes gave problems (a torn record, a record without a type) is not
    // continued when it grows — the problem log's counts would not carry over — but parsed
    // whole: every problem, old and new, is still reported with its line.
    void logWithProblemsParsedWholeWhenGrown()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString() + "/job";
        fs::create_directories(d);
        std::vector<std::string> texts = jobTexts();
        for (std::string &t : texts) {
            const size_t early = t.find('\n', t.size() / 10) + 1;
            t.insert(early, "{\"t\":\"B\",\"ts\":12,\"na\n{\"ts\":1,\"tid\":99,\"name\":\"x\"}\n");
            const size_t late = t.find('\n', t.size() * 8 / 10) + 1;
            t.insert(late, "not json at all\n");
        }
        std::vector<size_t> half(kWorkers);
        for (int w = 0; w < kWorkers; ++w) {
            const std::string &t = texts[size_t(w)];
            half[size_t(w)] = t.rfind('\n', t.size() / 2) + 1;
            testlogs::write(logOf(d, w), t.substr(0, half[size_t(w)]));
        }
        const LoadResult first = loadJob(d);
        QVERIFY(first.timeline);
        auto malformed = [](const Timeline &tl) {
            return std::count_if(tl.problems.begin(), tl.problems.end(), [](const LoadProblem &p) {
                return p.kind == LoadProblem::Kind::MalformedLine;
            });
        };
        QCOMPARE(malformed(*first.timeline), 2 * kWorkers);
        for (int w = 0; w < kWorkers; ++w) {
            append(logOf(d, w), std::string_view(texts[size_t(w)]).substr(half[size_t(w)]));
            std::string why;
            QVERIFY(!LogExtension::prepare(logOf(d, w), &why));
            QVERIFY2(why.find("cannot be continued") != std::string::npos, why.c_str());
        }
        const LoadResult grown = loadJob(d);
        QVERIFY(grown.timeline);
        QCOMPARE(malformed(*grown.timeline), 3 * kWorkers);
        compareLoads(*grown.timeline, *freshLoad(d).timeline);
    }

    // A job written again longer (not by appending: the old last lines differ): its indexes
    // are stale and not used; the window is cut from a full load, which rebuilds them and the
    // correction, so the next window reads only the window again and sees the new events.
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
};

QTEST_APPLESS_MAIN(TstLogExtension)
#include "tst_logextension.moc"
