// JobLoader on generated logs covering the robustness rules of log format v1: malformed and torn
// lines, duplicate ranks and membership changes, records out of order, ends without a begin and
// misnesting, open events, a missing header, intervals among begin/end pairs, args. The real
// traces and the loader's options are in tst_jobloader.cpp.
#include "tests/common/testdata.h"
#include "tests/timeline/load/jobloadertest.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/parse/problemlog.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>

using namespace syncline;
using namespace jobloadertest;

class TstJobLoaderRules : public QObject
{
    Q_OBJECT
private slots:
    void malformedLinesReported();
    void unusableSyncSamplesAreNotCalledMissing();
    void tornLastLineSkippedQuietly();
    void duplicateRankReported();
    void membershipChangeIsTwoIncarnations();
    void outOfOrderRecordsSorted();
    void endWithoutBeginAndMisnesting();
    void openEventsKept();
    void headerMissingRankFromFileName();
    void intervalsNestWithBeginEnd();
    void argsStoredApartAndMerged();
    void argsSharedAcrossEventsAndFiles();
    void threadsPerFileBounded();
};

void TstJobLoaderRules::malformedLinesReported()
{
    QTemporaryDir dir;
    std::string text = testlogs::header(0) + testlogs::begin(2000, 1, "step");
    text += "{\"t\":\"B\",\"ts\":2100,\"tid\":1,\"name\":\"bad\"\n"; // line 3: unterminated object
    text += "not json at all\n";                                     // line 4
    for (int i = 0; i < 6; ++i)
        text += "{\"t\":\"X\",\"ts\":2.5,\"dur\":1,\"tid\":1,\"name\":\"frac\"}\n"; // lines 5..10
    text += testlogs::end(3000, 1, "step");
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    testlogs::write(path, text);
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.eventCount(), size_t(1)); // the rest loads
    QCOMPARE(tl.workers[0].tracks[0].localEnd[0], int64_t(3000));
    std::vector<std::string> shown;
    for (const auto &p : tl.problems)
        if (p.kind == LoadProblem::Kind::MalformedLine && p.line > 0)
            shown.push_back(p.toString());
    QCOMPARE(shown.size(), size_t(5)); // first five in full
    QCOMPARE(shown[0], path + ":3: malformed line: ',' or '}' expected at column 40");
    QCOMPARE(shown[1], path + ":4: malformed line: not a JSON object at column 1");
    QCOMPARE(
        shown[2],
        path +
            ":5: malformed line: ts: expected an integer, got a fraction or exponent at column 15");
    QCOMPARE(countKind(tl, LoadProblem::Kind::MalformedLine), 6); // five in full, one summary
    QCOMPARE(countProblems(tl, "… and 3 more: malformed lines (8 in all)"), 1); // the wording
}

void TstJobLoaderRules::tornLastLineSkippedQuietly()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    testlogs::write(path, testlogs::header(0) + testlogs::begin(2000, 1, "a") +
                              testlogs::end(2500, 1, "a") + "{\"t\":\"B\",\"ts\":26");
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    QCOMPARE(r.timeline->eventCount(), size_t(1));
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::MalformedLine), 0);
}

void TstJobLoaderRules::duplicateRankReported()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/a.log", testlogs::header(3) + testlogs::begin(2000, 1, "a") +
                                      testlogs::end(2100, 1, "a"));
    testlogs::write(d + "/b.log", testlogs::header(3) + testlogs::begin(2000, 1, "b") +
                                      testlogs::end(2100, 1, "b"));
    const LoadResult r = loadPaths({d});
    QVERIFY(r.timeline);
    QCOMPARE(r.timeline->workers.size(), size_t(2)); // both kept
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::DuplicateRank, "rank 3 restart 0"), 1);
}

// torchelastic re-forming the group after a second agent joined: rank 0 again with restart
// count 0 but world size 2. Two workers, an Info (not the duplicate warning), labels by world
// size; the same world size again is a duplicate, labelled by pid.
void TstJobLoaderRules::membershipChangeIsTwoIncarnations()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto header = [](int world, int pid) {
        std::string h = testlogs::header(0, 0, "host-a");
        h.replace(h.find("\"world_size\":2"), 14, "\"world_size\":" + std::to_string(world));
        h.replace(h.find("\"pid\":100"), 9, "\"pid\":" + std::to_string(pid));
        return h;
    };
    const std::string events = testlogs::begin(2000, 1, "step") + testlogs::end(2100, 1, "step");
    testlogs::write(d + "/timer_events.0.log", header(1, 41) + events);
    testlogs::write(d + "/timer_events.0.r0.p42.log", header(2, 42) + events);
    LoadResult r = loadPaths({d});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    QCOMPARE(countKind(tl, LoadProblem::Kind::DuplicateRank), 0);
    QCOMPARE(countKind(tl, LoadProblem::Kind::MembershipChange), 1);
    QCOMPARE(countProblems(tl, "rank 0 restart 0 with world size 2 (also in " + d +
                                   "/timer_events.0.log, world size 1): a membership change"),
             1); // the wording
    std::vector<std::string> labels;
    for (const Worker &w : tl.workers)
        labels.push_back(w.label());
    std::sort(labels.begin(), labels.end());
    QCOMPARE(labels, (std::vector<std::string>{"rank 0 · host-a · restart 0 · world 1",
                                               "rank 0 · host-a · restart 0 · world 2"}));
    testlogs::write(d + "/timer_events.0.r0.p43.log", header(2, 43) + events);
    r = loadPaths({d});
    QCOMPARE(r.timeline->workers.size(), size_t(3));
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::DuplicateRank, "rank 0 restart 0"), 1);
    labels.clear();
    for (const Worker &w : r.timeline->workers)
        labels.push_back(w.label());
    std::sort(labels.begin(), labels.end());
    QCOMPARE(labels, (std::vector<std::string>{"rank 0 · host-a · restart 0 · world 1",
                                               "rank 0 · host-a · restart 0 · world 2 · pid 42",
                                               "rank 0 · host-a · restart 0 · world 2 · pid 43"}));
}

void TstJobLoaderRules::outOfOrderRecordsSorted()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    testlogs::write(path, testlogs::header(0) + testlogs::begin(5000, 1, "late") +
                              testlogs::end(6000, 1, "late") + testlogs::begin(2000, 1, "early") +
                              testlogs::end(3000, 1, "early"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const EventTrack &t = r.timeline->workers[0].tracks[0];
    QCOMPARE(t.count(), size_t(2));
    QCOMPARE(r.timeline->names.name(t.nameId[0]), std::string_view("early"));
    QCOMPARE(t.localStart[1], int64_t(5000));
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::RecordOutOfOrder), 1);
}

void TstJobLoaderRules::endWithoutBeginAndMisnesting()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    testlogs::write(path, testlogs::header(0) + testlogs::end(1500, 1, "orphan") +
                              testlogs::begin(2000, 1, "outer") +
                              testlogs::begin(2100, 1, "inner") + testlogs::end(2200, 1, "outer") +
                              testlogs::end(2300, 1, "inner") + testlogs::end(2400, 1, "outer"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(countKind(tl, LoadProblem::Kind::EndWithoutBegin, "E \"orphan\""), 1);
    // E "outer" while "inner" is open: as Chrome and Perfetto do, it closes inner and outer
    // (a lost E of inner is the usual cause); the later E records have nothing open.
    QCOMPARE(countKind(tl, LoadProblem::Kind::LostEnd), 1);
    QCOMPARE(countProblems(tl, "misnesting: E \"outer\" on tid 1 while \"inner\" still open"),
             1); // the wording
    QCOMPARE(countKind(tl, LoadProblem::Kind::EndWithoutBegin, "E \"inner\""), 1);
    QCOMPARE(countKind(tl, LoadProblem::Kind::EndWithoutBegin, "E \"outer\""), 1);
    QCOMPARE(countKind(tl, LoadProblem::Kind::EndWithoutBegin), 3);
    const EventTrack &t = tl.workers[0].tracks[0];
    QCOMPARE(t.count(), size_t(2));
    QCOMPARE(t.localEnd[0], int64_t(2200)); // outer
    QCOMPARE(t.localEnd[1], int64_t(2200)); // inner, closed with it
    QVERIFY(!(t.flags[0] & EventOpen) && !(t.flags[1] & EventOpen));
    QCOMPARE(int(t.depth[1]), 1);
    // An E whose name no open event has is still dropped, and says so.
    const std::string other = dir.path().toStdString() + "/w.1.log";
    testlogs::write(other, testlogs::header(1) + testlogs::begin(2000, 1, "outer") +
                               testlogs::end(2100, 1, "stranger") +
                               testlogs::end(2400, 1, "outer"));
    const LoadResult r2 = loadPaths({other});
    QVERIFY(r2.timeline);
    QCOMPARE(countKind(*r2.timeline, LoadProblem::Kind::MisnestedEnd, "\"stranger\""), 1);
    QCOMPARE(r2.timeline->workers[0].tracks[0].localEnd[0], int64_t(2400));
}

void TstJobLoaderRules::openEventsKept()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    testlogs::write(path, testlogs::header(0) + testlogs::begin(2000, 1, "hang") +
                              testlogs::begin(2100, 1, "inner") + testlogs::end(2200, 1, "inner") +
                              "{\"t\":\"hb\",\"ts\":9000,\"events\":3,\"dropped\":0,\"buffer_"
                              "full\":0,\"bytes\":10}\n");
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const EventTrack &t = r.timeline->workers[0].tracks[0];
    QCOMPARE(t.count(), size_t(2));
    QVERIFY(t.flags[0] & EventOpen);
    QCOMPARE(t.localEnd[0], int64_t(9000)); // the worker's last local time seen
    QVERIFY(!(t.flags[1] & EventOpen));
    QVERIFY(!r.timeline->workers[0].info.closedCleanly);
    QCOMPARE(r.timeline->workers[0].info.lastHeartbeatLocalNs, int64_t(9000));
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::OpenEvents, "1 event(s)"), 1);
}

void TstJobLoaderRules::headerMissingRankFromFileName()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.17.log";
    testlogs::write(path, testlogs::begin(2000, 1, "a") + testlogs::end(2100, 1, "a"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    QCOMPARE(r.timeline->workers[0].info.rank, 17);
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::BadHeader, "rank 17"), 1);
    QCOMPARE(r.timeline->eventCount(), size_t(1));
    // A header line that is JSON but cannot be read (a number past double's range, found by
    // fuzz_linescanner): reported, and the rank is the file name's too (it was 0 before).
    const std::string bad = dir.path().toStdString() + "/timer_events.5.log";
    testlogs::write(bad, "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":5,"
                         "\"anchor\":{\"mono_ns\":1,\"wall_ns\":176443800012345E789}}\n" +
                             testlogs::begin(2000, 1, "a") + testlogs::end(2100, 1, "a"));
    const LoadResult b = loadPaths({bad});
    QVERIFY(b.timeline);
    QCOMPARE(b.timeline->workers.size(), size_t(1));
    QCOMPARE(b.timeline->workers[0].info.rank, 5);
    QCOMPARE(countKind(*b.timeline, LoadProblem::Kind::BadHeader,
                       "the header could not be read; rank 5"),
             1);
    QCOMPARE(b.timeline->eventCount(), size_t(1));
}

void TstJobLoaderRules::intervalsNestWithBeginEnd()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    // X records are written after the interval, so they arrive after the enclosing B.
    testlogs::write(
        path, testlogs::header(0) + testlogs::begin(1000, 7, "step") +
                  testlogs::complete(1100, 50, 7, "k1") + testlogs::complete(1120, 10, 7, "k2") +
                  testlogs::end(2000, 7, "step") + testlogs::complete(1990, 30, 7, "overlaps"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const EventTrack &t = r.timeline->workers[0].tracks[0];
    QCOMPARE(t.count(), size_t(4));
    QCOMPARE(std::vector<int>(t.depth.begin(), t.depth.end()), std::vector<int>({0, 1, 2, 0}));
    QCOMPARE(std::vector<int32_t>(t.parent.begin(), t.parent.end()),
             std::vector<int32_t>({-1, 0, 1, -1}));
    QVERIFY(t.flags[1] & EventInterval);
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::PartialOverlap), 1);
    QCOMPARE(t.firstIndexEndingAfter(1125), 0);
    QCOMPARE(t.firstIndexEndingAfter(2001), 3);
    QCOMPARE(t.lastIndexStartingBefore(1119), 1);
}

void TstJobLoaderRules::argsStoredApartAndMerged()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    testlogs::write(
        path,
        testlogs::header(0) + testlogs::begin(1000, 1, "step", "{\"step\":12}") +
            "{\"t\":\"E\",\"ts\":1500,\"tid\":1,\"name\":\"step\",\"args\":{\"loss\":0.5}}\n" +
            testlogs::begin(1600, 1, "plain") + testlogs::end(1700, 1, "plain"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const EventTrack &t = r.timeline->workers[0].tracks[0];
    QCOMPARE(t.argCount(), size_t(1));
    QCOMPARE(r.timeline->args[size_t(t.argsId(0))], std::string("{\"step\":12,\"loss\":0.5}"));
    QCOMPARE(t.argsId(1), int64_t(-1));
    QVERIFY(t.flags[0] & EventHasArgs);
}

// Args are interned: events and files with the same text share one id, each text is
// kept byte for byte, and an E that merges more args in gives that event a new text without
// touching the events that shared the old one.
void TstJobLoaderRules::argsSharedAcrossEventsAndFiles()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const std::string odd = R"({ "s" : "a \"q\" \u00e9", "f": 1.50, "n": null, "a": [true, {}] })";
    for (int rank = 0; rank < 2; ++rank) {
        std::string log = testlogs::header(rank);
        for (int step = 0; step < 3; ++step) {
            const int64_t t = 1000 * (step + 1);
            const std::string a = "{\"step\":" + std::to_string(step) + "}";
            log += testlogs::begin(t, 1, "step", a) + testlogs::begin(t + 10, 1, "fwd", a) +
                   testlogs::end(t + 100, 1, "fwd");
            if (step == 1)
                log += R"({"t":"E","ts":)" + std::to_string(t + 200) +
                       R"(,"tid":1,"name":"step","args":{"loss":0.25}})" + "\n";
            else
                log += testlogs::end(t + 200, 1, "step");
        }
        log += testlogs::begin(9000, 1, "odd", odd) + testlogs::end(9100, 1, "odd");
        testlogs::write(d + "/timer_events." + std::to_string(rank) + ".log", log);
    }
    const LoadResult r = loadPaths({d});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    // 3 step texts + the merged step-1 text + the odd one, once for both workers.
    QCOMPARE(tl.args.size(), size_t(5));
    for (const Worker &w : tl.workers) {
        const EventTrack &t = w.tracks[0];
        QCOMPARE(t.count(), size_t(7));
        QCOMPARE(t.argCount(), size_t(7));
        auto text = [&](uint32_t i) { return tl.args[size_t(t.argsId(i))]; };
        QCOMPARE(text(0), std::string(R"({"step":0})"));
        QCOMPARE(t.argsId(0), t.argsId(1)); // step 0 and its fwd share one id
        QCOMPARE(text(2), std::string(R"({"step":1,"loss":0.25})"));
        QCOMPARE(text(3), std::string(R"({"step":1})")); // fwd of step 1 keeps the old text
        QCOMPARE(text(6), odd);
        QCOMPARE(t.argsId(0), tl.workers[0].tracks[0].argsId(0)); // shared across files
    }
}

// A file with more distinct tids than ParsedFile::kMaxTracks (1M tids, one
// event each, took ~630 bytes a track): the first kMaxTracks threads load, records of further
// tids are dropped and reported, and known threads keep getting their events.
void TstJobLoaderRules::threadsPerFileBounded()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/w.0.log";
    const int extra = 100, n = int(load::ParsedFile::kMaxTracks) + extra;
    std::string text = testlogs::header(0);
    for (int i = 0; i < n; ++i)
        text += testlogs::complete(10000 + 10 * i, 5, 1000 + i, "x");
    text += testlogs::begin(2000000, 1000, "late") + testlogs::end(2000010, 1000, "late");
    text += "{\"t\":\"thread\",\"tid\":" + std::to_string(1000 + n - 1) + ",\"name\":\"t\"}\n";
    testlogs::write(path, text);
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(1));
    const Worker &w = tl.workers[0];
    QCOMPARE(w.tracks.size(), load::ParsedFile::kMaxTracks);
    QCOMPARE(w.eventCount(), load::ParsedFile::kMaxTracks + 1); // + "late" on a known thread
    QCOMPARE(w.tracks.back().tid, int64_t(1000 + load::ParsedFile::kMaxTracks - 1));
    // The first drops in full (with file:line), then one summary with the count.
    const auto first =
        std::find_if(tl.problems.begin(), tl.problems.end(), [](const LoadProblem &p) {
            return p.kind == LoadProblem::Kind::TooManyThreads && p.line > 0;
        });
    QVERIFY(first != tl.problems.end());
    QCOMPARE(first->line, int64_t(2 + load::ParsedFile::kMaxTracks));
    QCOMPARE(first->severity, LoadProblem::Severity::Warning);
    QCOMPARE(countKind(tl, LoadProblem::Kind::TooManyThreads), load::ProblemLog::kShownPerKind + 1);
    QVERIFY2(countProblems(tl, "too many threads (" + std::to_string(extra + 1) + " in all)") == 1,
             tl.problems.back().message.c_str()); // the summary's wording
}

// A worker whose every burst contradicts itself (the burst's best lower bound above its best
// upper bound: each exchange valid alone) cannot be corrected; the note says it has samples and
// why they do not help, never "no sync samples".
void TstJobLoaderRules::unusableSyncSamplesAreNotCalledMissing()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    for (int rank = 0; rank < 2; ++rank) {
        std::string text = testlogs::header(rank, 0, "node-" + std::to_string(rank), 1000,
                                            1700000000000000000LL, "boot-" + std::to_string(rank));
        for (int b = 0; b < 84; ++b) {
            const int64_t t = 1000 + int64_t(b) * 1'000'000'000;
            // Rank 0: offset 5 µs, consistent. Rank 1: the first exchange bounds the offset
            // above by 100 ns, the second below by 990 ns.
            const int64_t ex[2][4] = {
                {t, rank ? t + 100 : t + 5050, rank ? t + 100 : t + 5060, rank ? t + 10 : t + 110},
                {t + 1000, rank ? t + 2000 : t + 6040, rank ? t + 2000 : t + 6050,
                 rank ? t + 1010 : t + 1090}};
            for (int q = 0; q < 2; ++q)
                text += "{\"t\":\"sync\",\"burst\":" + std::to_string(b) + ",\"seq\":" +
                        std::to_string(q) + ",\"ref\":\"srv@h\",\"t1\":" +
                        std::to_string(ex[q][0]) + ",\"t2\":" + std::to_string(ex[q][1]) +
                        ",\"t3\":" + std::to_string(ex[q][2]) + ",\"t4\":" +
                        std::to_string(ex[q][3]) + "}\n";
            text += testlogs::complete(t + 5000, 1000, 1, "step");
        }
        testlogs::write(d + "/timer_events." + std::to_string(rank) + ".log", text);
    }
    const LoadResult r = loadPaths({d});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.at(1).samples.size(), size_t(168));
    QCOMPARE(tl.workers.at(1).clock.method, sync::ClockMethod::None);
    std::string notes;
    for (const std::string &n : tl.clockNotes)
        notes += n + "\n";
    QVERIFY2(notes.find("no sync samples") == std::string::npos, notes.c_str());
    QVERIFY2(notes.find("rank 1: not corrected (its 168 sync samples give no usable bound") !=
                 std::string::npos,
             notes.c_str());
}

QTEST_APPLESS_MAIN(TstJobLoaderRules)
#include "tst_jobloaderrules.moc"
