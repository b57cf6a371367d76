// LogParser on real log files written into a temporary directory: the reliability cases
// that concern the syncline log reader itself (docs/log-format.md, "Reliability").
#include "tests/common/problemkinds.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/parse/log/logparser.h"

#include <QtTest>

#include <algorithm>
#include <climits>
#include <map>

using namespace syncline;
using namespace syncline::load;

namespace {

int countProblems(const std::vector<LoadProblem> &problems, const std::string &needle)
{
    return int(std::count_if(problems.begin(), problems.end(), [&](const LoadProblem &p) {
        return p.message.find(needle) != std::string::npos;
    }));
}

using problemkinds::count;
using Kind = LoadProblem::Kind;

std::string record(const std::string &type, int64_t ts, const std::string &tid,
                   const std::string &name)
{
    return "{\"t\":\"" + type + "\",\"ts\":" + std::to_string(ts) + ",\"tid\":" + tid +
           ",\"name\":\"" + name + "\"}\n";
}

} // namespace

class TstLogParser : public QObject
{
    Q_OBJECT

private slots:
    void extremeTidsAreOrdinaryThreads_data();
    void extremeTidsAreOrdinaryThreads();
    void headerlessWithoutRankGetsNextFreeRank();
    void unknownVersionLoadsNothing_data();
    void unknownVersionLoadsNothing();
    void extremeTimesAreReportedNotWrapped();
    void headerIntsOutOfRangeAreReported();
    void hugeNameIsCutInProblems();
    void snapshotRestoreContinuesAsOnePass_data();
    void snapshotRestoreContinuesAsOnePass();
    void wallPairsReadAndChecked();
};

void TstLogParser::extremeTidsAreOrdinaryThreads_data()
{
    QTest::addColumn<QString>("firstTid");
    QTest::newRow("INT64_MIN") << QString("-9223372036854775808");
    QTest::newRow("INT64_MAX") << QString("9223372036854775807");
    QTest::newRow("zero") << QString("0");
}

// The first record with a tid used to hit the parser's "no last track" sentinel (INT64_MIN):
// it was taken as the cached last track and the (empty) track list was indexed.
void TstLogParser::extremeTidsAreOrdinaryThreads()
{
    QFETCH(QString, firstTid);
    const std::string tid = firstTid.toStdString();
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    testlogs::write(path, testlogs::header(0) + "{\"t\":\"thread\",\"tid\":" + tid +
                              ",\"name\":\"odd\"}\n" + record("B", 2000, tid, "a") +
                              record("B", 2100, "7", "b") + record("E", 2200, "7", "b") +
                              record("E", 2300, tid, "a"));
    const ParsedFile f = LogParser::parseFile(path);
    QVERIFY(f.usable);
    QCOMPARE(f.worker.tracks.size(), size_t(2));
    const auto odd = std::find_if(f.worker.tracks.begin(), f.worker.tracks.end(),
                                  [&](const EventTrack &t) { return t.tid == std::stoll(tid); });
    QVERIFY(odd != f.worker.tracks.end());
    QCOMPARE(odd->threadName, std::string("odd"));
    QCOMPARE(odd->count(), size_t(1));
    QCOMPARE(odd->localStart[0], int64_t(2000));
    QCOMPARE(odd->localEnd[0], int64_t(2300));
    QVERIFY(!(odd->flags[0] & EventOpen));
    QVERIFY(f.problems.empty());

    // The whole loader too (every reader goes through LogParser).
    LoadOptions o;
    o.paths = {path};
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->eventCount(), size_t(2));
}

// A log whose header is gone and whose name has no digits used to be dropped whole ("rank
// unknown"); like a Chrome trace without a rank it now takes the next free rank.
void TstLogParser::headerlessWithoutRankGetsNextFreeRank()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/w.0.log", testlogs::header(0) + testlogs::begin(2000, 1, "a") +
                                        testlogs::end(2100, 1, "a"));
    testlogs::write(d + "/w.1.log", testlogs::header(1) + testlogs::begin(2000, 1, "a") +
                                        testlogs::end(2100, 1, "a"));
    const std::string orphan = d + "/events.log";
    testlogs::write(orphan, testlogs::begin(5000, 4, "lost-header") +
                                testlogs::end(5100, 4, "lost-header") +
                                testlogs::complete(5200, 50, 4, "x"));
    const ParsedFile f = LogParser::parseFile(orphan);
    QVERIFY(f.usable);
    QVERIFY(!f.rankKnown);

    LoadOptions o;
    o.paths = {d};
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(3));
    QCOMPARE(tl.workers[2].info.sourceFile, orphan);
    QCOMPARE(tl.workers[2].info.rank, 2);
    QCOMPARE(tl.workers[2].eventCount(), size_t(2));
    const auto info =
        std::find_if(tl.problems.begin(), tl.problems.end(), [&](const LoadProblem &p) {
            return p.file == orphan && p.kind == Kind::RankAssigned;
        });
    QVERIFY(info != tl.problems.end());
    QCOMPARE(info->severity, LoadProblem::Severity::Info);
    QCOMPARE(info->message, std::string("no rank in the file; rank 2 assigned")); // the wording
    QVERIFY(std::none_of(tl.problems.begin(), tl.problems.end(), [](const LoadProblem &p) {
        return p.severity == LoadProblem::Severity::Error;
    }));
}

void TstLogParser::unknownVersionLoadsNothing_data()
{
    QTest::addColumn<QString>("version");
    QTest::addColumn<bool>("loads");
    QTest::newRow("1") << "1" << true;
    QTest::newRow("2") << "2" << false;
    QTest::newRow("1.9") << "1.9" << false;
    QTest::newRow("string") << "\"1\"" << false;
}

// A header naming a format version this reader does not know: its records
// may mean something else, so none of them load, and the Error says why; version 1 loads.
void TstLogParser::unknownVersionLoadsNothing()
{
    QFETCH(QString, version);
    QFETCH(bool, loads);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string head = testlogs::header(0);
    const std::string v1 = "\"version\":1";
    head.replace(head.find(v1), v1.size(), "\"version\":" + version.toStdString());
    testlogs::write(path, head + testlogs::begin(2000, 1, "a") + testlogs::end(2100, 1, "a"));
    const ParsedFile f = LogParser::parseFile(path);
    QCOMPARE(f.usable, loads);
    QCOMPARE(count(f.problems, Kind::BadHeader,
                   "unsupported log format version " + version.toStdString()),
             loads ? 0 : 1);
    if (!loads)
        QVERIFY(f.worker.tracks.empty() ||
                std::all_of(f.worker.tracks.begin(), f.worker.tracks.end(),
                            [](const EventTrack &t) { return t.count() == 0; }));
}

// Times past int64 arithmetic: an X whose ts + dur overflows used to wrap
// into a negative duration and drag the job's origin to -9.2e18 for every event. Every time a
// record carries must lie within ±2^62 ns (parsedfile.h, kMaxTimeNs); a record outside is
// reported with its line and dropped, and the rest of the file loads unchanged.
void TstLogParser::extremeTimesAreReportedNotWrapped()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    testlogs::write(path, testlogs::header(0) + testlogs::begin(2000, 1, "a") +
                              testlogs::complete(INT64_MAX - 10, 100, 1, "wraps") +      // line 3
                              testlogs::complete(4000, INT64_MAX, 1, "long") +           // line 4
                              testlogs::begin(INT64_MIN, 1, "early") +                   // line 5
                              testlogs::complete((int64_t(1) << 62) - 5, 5, 1, "edge") + // kept
                              "{\"t\":\"sync\",\"burst\":0,\"seq\":0,\"ref\":\"s\",\"t1\":10,"
                              "\"t2\":-9223372036854775808,\"t3\":5,\"t4\":20}\n" + // line 7
                              testlogs::end(3000, 1, "a"));
    const ParsedFile f = LogParser::parseFile(path);
    QVERIFY(f.usable);
    QCOMPARE(count(f.problems, Kind::TimeOutOfRange), 4);
    QCOMPARE(countProblems(f.problems, "outside the readable range"), 3); // lines 3, 5, 7
    QCOMPARE(countProblems(f.problems, "past the readable range"), 1);    // line 4
    for (const LoadProblem &p : f.problems)
        if (p.kind == Kind::TimeOutOfRange)
            QVERIFY2(p.line == 3 || p.line == 4 || p.line == 5 || p.line == 7,
                     p.toString().c_str());
    QCOMPARE(f.worker.tracks.size(), size_t(1));
    const EventTrack &t = f.worker.tracks[0];
    QCOMPARE(t.count(), size_t(2)); // "a" and "edge"
    for (size_t i = 0; i < t.count(); ++i)
        QVERIFY(t.localEnd[i] >= t.localStart[i]);
    QVERIFY(f.worker.samples.empty());
    QCOMPARE(f.worker.info.firstLocalNs, int64_t(1000)); // the header's start_ns, not -9.2e18

    // The whole loader: two events, none with a negative duration.
    LoadOptions o;
    o.paths = {path};
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    QCOMPARE(r.timeline->eventCount(), size_t(2));
}

// Header integers outside their type: "rank": 1e10 was cast from a double
// (undefined behaviour; -2147483648 here), 10000000000 wrapped. Each is now a warning naming the
// key and the range, and the documented default is used.
void TstLogParser::headerIntsOutOfRangeAreReported()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string head = testlogs::header(0);
    const auto set = [&](const std::string &from, const std::string &to) {
        head.replace(head.find(from), from.size(), to);
    };
    set("\"rank\":0", "\"rank\":1e10");
    set("\"world_size\":2", "\"world_size\":10000000000");
    set("\"restart\":0", "\"restart\":-1");
    set("\"wall_ns\":1700000000000000000", "\"wall_ns\":1e300");
    testlogs::write(path, head + testlogs::begin(2000, 1, "a") + testlogs::end(2100, 1, "a"));
    const ParsedFile f = LogParser::parseFile(path);
    QVERIFY(f.usable);
    QCOMPARE(countProblems(f.problems, "header: \"rank\" is 10000000000.0, expected an integer in "
                                       "0..2147483647; 0 used"),
             1);
    QCOMPARE(countProblems(f.problems, "header: \"world_size\" is 10000000000, expected an "
                                       "integer in 1..2147483647; 1 used"),
             1);
    QCOMPARE(count(f.problems, Kind::BadHeader, "\"restart\" is -1"), 1);
    QCOMPARE(count(f.problems, Kind::BadHeader, "\"wall_ns\" is 1e+300"), 1);
    QCOMPARE(count(f.problems, Kind::BadHeader), 4);
    QCOMPARE(f.worker.info.rank, 0);
    QCOMPARE(f.worker.info.worldSize, 1);
    QCOMPARE(f.worker.info.restart, 0);
    QCOMPARE(f.worker.info.anchorWallNs, int64_t(0));
    QCOMPARE(f.worker.tracks.size(), size_t(1));
    QCOMPARE(f.worker.tracks[0].count(), size_t(1));
}

// A 16 MB event name quoted twice in a misnesting warning made a 32 MB problem line:
// problems are cut at ProblemLog::kMaxMessageBytes and say how long they were.
void TstLogParser::hugeNameIsCutInProblems()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    const std::string huge(16 << 20, 'n');
    testlogs::write(path, testlogs::header(0) + testlogs::begin(2000, 1, huge) +
                              testlogs::end(2100, 1, huge + "x") + testlogs::end(2200, 1, huge));
    const ParsedFile f = LogParser::parseFile(path);
    QVERIFY(f.usable);
    QCOMPARE(count(f.problems, Kind::MisnestedEnd, "E \"nnnn"), 1);
    for (const LoadProblem &p : f.problems)
        QVERIFY2(p.message.size() < ProblemLog::kMaxMessageBytes + 100,
                 p.message.substr(0, 80).c_str());
    QCOMPARE(count(f.problems, Kind::MisnestedEnd, "bytes in all)"), 1);
    QCOMPARE(f.worker.tracks.size(), size_t(1));
    QCOMPARE(f.worker.tracks[0].count(), size_t(1));
    QVERIFY(!(f.worker.tracks[0].flags[0] & EventOpen)); // the matching E still closed it
}

// Wall-clock pairs on hb and close (format 1.2): kept in order; a pair without its spread, with
// a wall time out of range or a negative spread is reported at its line and left out (the
// record's other keys still count); one not later than the one before is left out silently; a
// heartbeat without a pair (format 1.1, other writers) is no problem.
void TstLogParser::wallPairsReadAndChecked()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    auto hb = [](int64_t ts, const std::string &wall) {
        return "{\"t\":\"hb\",\"ts\":" + std::to_string(ts) +
               ",\"events\":0,\"dropped\":1,\"buffer_full\":0,\"bytes\":0" + wall + "}\n";
    };
    testlogs::write(path, testlogs::header(0) + hb(2000, "") +                         // 2
                              hb(3000, ",\"wall_ns\":1700000000000003000,\"wall_spread_ns\":9") +
                              hb(4000, ",\"wall_ns\":1700000000000004000") +          // 4
                              hb(5000, ",\"wall_ns\":9223372036854775807,\"wall_spread_ns\":1") +
                              hb(6000, ",\"wall_ns\":1700000000000006000,\"wall_spread_ns\":-1") +
                              hb(2500, ",\"wall_ns\":1700000000000002500,\"wall_spread_ns\":9") +
                              "{\"t\":\"close\",\"ts\":7000,\"events\":0,\"dropped\":3,\"open\":0,"
                              "\"wall_ns\":1700000000000007000,\"wall_spread_ns\":8}\n");
    const ParsedFile f = LogParser::parseFile(path);
    QVERIFY(f.usable);
    QCOMPARE(f.worker.wallPairs.size(), size_t(2));
    QVERIFY((f.worker.wallPairs[0] == WallPair{3000, 1'700'000'000'000'003'000, 9}));
    QVERIFY((f.worker.wallPairs[1] == WallPair{7000, 1'700'000'000'000'007'000, 8}));
    QCOMPARE(f.worker.info.droppedEvents, int64_t(3));
    QCOMPARE(f.worker.info.lastHeartbeatLocalNs, int64_t(2500));
    std::vector<int64_t> lines;
    for (const LoadProblem &p : f.problems)
        if (p.kind != Kind::OpenEvents)
            lines.push_back(p.line);
    QCOMPARE(lines, (std::vector<int64_t>{4, 5, 6}));
    QCOMPARE(countProblems(f.problems, "wall_spread_ns"), 3); // missing, then out of range twice
}

QTEST_APPLESS_MAIN(TstLogParser)
#include "tst_logparser.moc"

void TstLogParser::snapshotRestoreContinuesAsOnePass_data()
{
    QTest::addColumn<int>("splitLine"); // lines of the log fed before the snapshot
    for (int k = 1; k <= 12; ++k)
        QTest::newRow(qPrintable("after line " + QString::number(k))) << k;
}

// A parser that has read the header line and been given another parser's snapshot at a line
// boundary reads the rest of the log as the one-pass parse did: the events open at the
// boundary get the same ends (and the args their E merges), the events after it are the same,
// an out-of-order record after it is reported at the same line, and the worker's fields
// (local range, sync samples of both references, heartbeat, drops, close) are the same.
void TstLogParser::snapshotRestoreContinuesAsOnePass()
{
    QFETCH(int, splitLine);
    const std::vector<std::string> lines = {
        testlogs::header(0),
        testlogs::begin(1000, 1, "step", "{\"step\":1}"),
        "{\"t\":\"sync\",\"burst\":0,\"seq\":0,\"ref\":\"a\",\"t1\":900,\"t2\":950,"
        "\"t3\":960,\"t4\":1010}\n",
        testlogs::begin(1100, 2, "io"),
        testlogs::begin(1200, 1, "fwd"),
        "{\"t\":\"hb\",\"ts\":1250,\"events\":3,\"dropped\":2,\"buffer_full\":0,\"bytes\":9,"
        "\"wall_ns\":1700000000000001250,\"wall_spread_ns\":40}\n",
        testlogs::end(1300, 1, "fwd"),
        "{\"t\":\"sync\",\"burst\":0,\"seq\":1,\"ref\":\"b\",\"t1\":1310,\"t2\":1320,"
        "\"t3\":1330,\"t4\":1340}\n",
        testlogs::begin(1290, 1, "late"), // out of order on tid 1 (its last time is 1300)
        "{\"t\":\"E\",\"ts\":1500,\"tid\":1,\"name\":\"late\",\"args\":{\"k\":2}}\n",
        testlogs::begin(1600, 1, "bwd"),
        testlogs::end(1650, 1, "bwd"),
        "{\"t\":\"E\",\"ts\":1700,\"tid\":1,\"name\":\"step\",\"args\":{\"done\":1}}\n",
        testlogs::end(1800, 2, "io"),
        "{\"t\":\"close\",\"ts\":1900,\"events\":6,\"dropped\":2,\"open\":0,"
        "\"wall_ns\":1700000000000001901,\"wall_spread_ns\":30}\n",
    };
    QVERIFY(splitLine < int(lines.size()));
    std::string all, prefix, rest;
    for (size_t i = 0; i < lines.size(); ++i) {
        all += lines[i];
        (int(i) < splitLine ? prefix : rest) += lines[i];
    }
    LogParser whole("w.log");
    QCOMPARE(whole.feed(all), all.size());
    const ParsedFile w = whole.finish();

    LogParser first("w.log");
    QCOMPARE(first.feed(prefix), prefix.size());
    const LogParser::Resume state = first.snapshot();
    QCOMPARE(state.line, int64_t(splitLine));
    QCOMPARE(state.bytes, int64_t(prefix.size()));
    // Per tid: the one-pass parse's index of each event the resumed parse holds: first the
    // events open at the split (the prefix parse's stacks), then those after it.
    std::map<int64_t, std::vector<size_t>> inWhole;
    for (size_t ti = 0; ti < first.partial().worker.tracks.size(); ++ti) {
        const EventTrack &t = first.partial().worker.tracks[ti];
        QCOMPARE(state.threads[ti].tid, t.tid);
        QCOMPARE(state.threads[ti].open.size(), first.openStacks()[ti].size());
        auto &m = inWhole[t.tid];
        for (uint32_t e : first.openStacks()[ti])
            m.push_back(e);
        m.push_back(t.count()); // marks where the events after the split start
    }
    LogParser resumed("w.log");
    QCOMPARE(resumed.feed(lines[0]), lines[0].size());
    QVERIFY(resumed.restore(state));
    QVERIFY(resumed.takeProblems().empty());
    QCOMPARE(resumed.feed(rest), rest.size());
    const ParsedFile r = resumed.finish();

    QCOMPARE(r.worker.info.firstLocalNs, w.worker.info.firstLocalNs);
    QCOMPARE(r.worker.info.lastLocalNs, w.worker.info.lastLocalNs);
    QCOMPARE(r.worker.info.lastHeartbeatLocalNs, w.worker.info.lastHeartbeatLocalNs);
    QCOMPARE(w.worker.wallPairs.size(), size_t(2));
    QVERIFY(r.worker.wallPairs == w.worker.wallPairs);
    QCOMPARE(r.worker.info.droppedEvents, w.worker.info.droppedEvents);
    QCOMPARE(r.worker.info.closedCleanly, w.worker.info.closedCleanly);
    QCOMPARE(r.worker.refId, w.worker.refId);
    QCOMPARE(r.worker.samples.size(), w.worker.samples.size());
    for (size_t i = 0; i < w.worker.samples.size(); ++i)
        QCOMPARE(r.worker.samples[i].t1, w.worker.samples[i].t1);
    QCOMPARE(r.bytes, w.bytes);
    // Problems after the split: the same, at the same lines.
    std::vector<std::string> wp, rp;
    for (const LoadProblem &p : w.problems)
        if (p.line > splitLine || p.line == 0)
            wp.push_back(std::to_string(p.line) + " " + p.message);
    for (const LoadProblem &p : r.problems)
        rp.push_back(std::to_string(p.line) + " " + p.message);
    QCOMPARE(rp, wp);
    // Events: the same as the one-pass parse's (both in file order, not yet sorted).
    size_t compared = 0;
    for (const EventTrack &rt : r.worker.tracks) {
        const auto wt = std::find_if(w.worker.tracks.begin(), w.worker.tracks.end(),
                                     [&](const EventTrack &t) { return t.tid == rt.tid; });
        QVERIFY(wt != w.worker.tracks.end());
        std::vector<size_t> map = inWhole.count(rt.tid) ? inWhole[rt.tid] : std::vector<size_t>{0};
        const size_t after = map.back(); // the whole parse's first event after the split
        map.pop_back();
        QCOMPARE(rt.count() - map.size(), wt->count() - after);
        for (size_t i = 0; i < rt.count(); ++i) {
            const size_t j = i < map.size() ? map[i] : after + (i - map.size());
            QCOMPARE(rt.localStart[i], wt->localStart[j]);
            QCOMPARE(rt.localEnd[i], wt->localEnd[j]);
            QCOMPARE(rt.flags[i], wt->flags[j]);
            QCOMPARE(r.names.name(rt.nameId[i]), w.names.name(wt->nameId[j]));
            const int64_t ra = rt.argsId(i), wa = wt->argsId(j);
            QCOMPARE(ra >= 0, wa >= 0);
            if (ra >= 0)
                QCOMPARE(r.args.text(uint32_t(ra)), w.args.text(uint32_t(wa)));
            ++compared;
        }
    }
    QVERIFY(compared > 0 || splitLine >= 12);
}
