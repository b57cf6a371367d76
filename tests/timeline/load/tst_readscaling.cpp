// Readers on inputs built to make them superlinear: the time for 2N records stays within 2.5×
// the time for N (tests/common/scaling.h; CPU time, least of 3, same run), so nothing a file
// contains can hang a reader. One case per parser path that once scanned a growing list per
// record, plus the behaviour each fix must keep.
#include "tests/common/problemkinds.h"
#include "tests/common/scaling.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/parse/chrome/asynclanes.h"
#include "timeline/load/parse/chrome/chrometraceparser.h"
#include "timeline/load/parse/log/logparser.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <random>

using namespace syncline;
using namespace syncline::load;

namespace {

using problemkinds::count;
using Kind = LoadProblem::Kind;

void expectLinear(const scaling::Result &r)
{
    qInfo("%s", r.describe().c_str());
    QVERIFY2(r.ratio() < scaling::kMaxRatio, r.describe().c_str());
}

// Writes the file for k = 1 and 2 once (`make(count)`), then measures `read(path)`.
template <class Make, class Read>
scaling::Result measureFiles(const QTemporaryDir &dir, const std::string &stem, size_t n,
                             Make &&make, Read &&read)
{
    const std::string paths[2] = {dir.path().toStdString() + "/" + stem + ".1",
                                  dir.path().toStdString() + "/" + stem + ".2"};
    testlogs::write(paths[0], make(n));
    testlogs::write(paths[1], make(2 * n));
    return scaling::measure([&](int k) {
        const double t0 = scaling::threadCpuSeconds();
        read(paths[k - 1]);
        return scaling::threadCpuSeconds() - t0;
    });
}

// The lanes a first-fit layout gives: each span, in (start, longer first) order, takes the
// lowest lane whose last span ended at or before its start (before it, for an instant).
std::vector<uint32_t> firstFit(std::vector<AsyncSpan> spans, uint32_t *laneCount)
{
    std::stable_sort(spans.begin(), spans.end(), [](const AsyncSpan &a, const AsyncSpan &b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::vector<int64_t> laneEnd;
    std::vector<uint32_t> out(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        const AsyncSpan &s = spans[i];
        size_t lane = 0;
        while (lane < laneEnd.size() &&
               (s.end > s.start ? laneEnd[lane] > s.start : laneEnd[lane] >= s.start))
            ++lane;
        if (lane == laneEnd.size())
            laneEnd.push_back(s.end);
        laneEnd[lane] = std::max(laneEnd[lane], s.end);
        out[i] = uint32_t(lane);
    }
    *laneCount = uint32_t(laneEnd.size());
    return out;
}

std::string asyncTrace(size_t spans)
{
    // `spans` async spans of one (pid, cat), each its own id, all still open at the end: every
    // one overlaps every other, so each needs a lane of its own.
    std::string s = "{\"traceEvents\":[\n";
    for (size_t i = 0; i < spans; ++i)
        s += std::string(i ? "," : "") + "{\"ph\":\"b\",\"cat\":\"c\",\"id\":" +
             std::to_string(i) + ",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":" +
             std::to_string(i) + "}\n";
    return s + "]}\n";
}

} // namespace

class TstReadScaling : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { scaling::keepFreedMemory(); }
    void unmatchedEndsAreLinear();
    void lostEndsStillCloseTheirEnclosingEvent();
    void endsWithArgsAreLinear();
    void asyncLanesAreLinear();
    void asyncLanesAreFirstFit();
    void asyncLanesKeepTheTrackCap();
    void nestedAsyncEndsAreLinear();
    void asyncEndsCloseTheirName();
    void distinctSyncRefsAreLinear();
    void syncRefsAreCapped();
};

// N nested B, then N E whose name matches no open event (each is reported and dropped): the
// parser used to search the whole open stack for every such E.
void TstReadScaling::unmatchedEndsAreLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    auto make = [](size_t n) {
        std::string s = testlogs::header(0);
        s += testlogs::complete(1, 1, 1, "stray"); // the E's name is a known name, never open
        for (size_t i = 0; i < n; ++i)
            s += testlogs::begin(int64_t(10 + i), 1, "open");
        for (size_t i = 0; i < n; ++i)
            s += testlogs::end(int64_t(10 + n + i), 1, "stray");
        return s;
    };
    size_t events = 0;
    const scaling::Result r = measureFiles(dir, "ends", 20000, make, [&](const std::string &p) {
        events = LogParser::parseFile(p).worker.tracks.at(0).count();
    });
    QCOMPARE(events, size_t(2 * 20000 + 1)); // the last read: 2N open events and the X
    expectLinear(r);
}

// N nested B with args, then their N E with args (merged into the B's): the E's args entry
// used to be found by a scan back over the args of every event opened after it.
void TstReadScaling::endsWithArgsAreLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    auto make = [](size_t n) {
        std::string s = testlogs::header(0);
        for (size_t i = 0; i < n; ++i)
            s += testlogs::begin(int64_t(10 + i), 1, "open", "{\"a\":1}");
        for (size_t i = 0; i < n; ++i)
            s += "{\"t\":\"E\",\"ts\":" + std::to_string(10 + n + i) +
                 ",\"tid\":1,\"name\":\"open\",\"args\":{\"b\":2}}\n";
        return s;
    };
    std::string lastArgs;
    const scaling::Result r = measureFiles(dir, "args", 20000, make, [&](const std::string &p) {
        const ParsedFile f = LogParser::parseFile(p);
        lastArgs = std::string(f.args.text(f.worker.tracks.at(0).argRefs.front().second));
    });
    QCOMPARE(lastArgs, std::string("{\"a\":1,\"b\":2}"));
    expectLinear(r);
}

// What a name-matching E does is unchanged: it closes the innermost open event of its name and
// everything open inside it; an E of a name that is not open is dropped; the depth stays right.
void TstReadScaling::lostEndsStillCloseTheirEnclosingEvent()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string s = testlogs::header(0);
    s += testlogs::begin(10, 1, "A");   // 0
    s += testlogs::begin(20, 1, "B");   // 1
    s += testlogs::begin(30, 1, "A");   // 2
    s += testlogs::begin(40, 1, "C");   // 3
    s += testlogs::end(50, 1, "D");     // no D open: dropped
    s += testlogs::end(60, 1, "B");     // closes C, A(2), B at 60
    s += testlogs::end(70, 1, "B");     // no B open any more: dropped
    s += testlogs::begin(80, 1, "B");   // 4
    s += testlogs::end(90, 1, "A");     // closes B(4) and A(0) at 90
    s += testlogs::begin(100, 1, "A");  // 5
    s += testlogs::end(110, 1, "A");    // plain match
    s += testlogs::begin(120, 1, "A");  // 6, left open
    testlogs::write(path, s);
    const ParsedFile f = LogParser::parseFile(path);
    const EventTrack &t = f.worker.tracks.at(0);
    QCOMPARE(t.count(), size_t(7));
    const int64_t ends[] = {90, 60, 60, 60, 90, 110};
    for (size_t i = 0; i < 6; ++i) {
        QCOMPARE(t.localEnd[i], ends[i]);
        QVERIFY(!(t.flags[i] & EventOpen));
    }
    QVERIFY(t.flags[6] & EventOpen);
    QCOMPARE(count(f.problems, Kind::MisnestedEnd), 2);
    QCOMPARE(count(f.problems, Kind::LostEnd), 2);
}

// N async spans open at once: the lane layout used to try every lane for every span.
void TstReadScaling::asyncLanesAreLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    size_t tracks = 0;
    const size_t n = 10000;
    const scaling::Result r =
        measureFiles(dir, "trace.json", n, asyncTrace,
                     [&](const std::string &p) {
                         tracks = ChromeTraceParser::parseFile(p).worker.tracks.size();
                     });
    QCOMPARE(tracks, 2 * n); // a lane (an async track) each // a lane (an async track) each
    expectLinear(r);
}

// The faster layout gives exactly the lanes of first fit: random spans with many ties of
// starts and ends, instants among them.
void TstReadScaling::asyncLanesAreFirstFit()
{
    std::mt19937_64 rng(26);
    for (int round = 0; round < 200; ++round) {
        std::vector<AsyncSpan> spans;
        const int n = 1 + int(rng() % 300);
        const int64_t range = 1 + int64_t(rng() % 100);
        for (int i = 0; i < n; ++i) {
            const int64_t start = int64_t(rng() % uint64_t(range));
            const int64_t len = rng() % 4 == 0 ? 0 : int64_t(rng() % uint64_t(range / 2 + 1));
            spans.push_back({start, start + len, uint32_t(i)});
        }
        std::vector<AsyncSpan> a = spans;
        uint32_t lanesA = 0, lanesB = 0;
        const std::vector<uint32_t> got = AsyncLanes::assign(a, &lanesA);
        const std::vector<uint32_t> want = firstFit(spans, &lanesB);
        QCOMPARE(lanesA, lanesB);
        QCOMPARE(got, want);
    }
}

// Lanes are tracks: a trace cannot get past ParsedFile::kMaxTracks by async spans; what does
// not fit is dropped with a problem that says so.
void TstReadScaling::asyncLanesKeepTheTrackCap()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/trace.json";
    testlogs::write(path, asyncTrace(ParsedFile::kMaxTracks + 4000));
    const ParsedFile f = ChromeTraceParser::parseFile(path);
    QCOMPARE(f.worker.tracks.size(), size_t(ParsedFile::kMaxTracks));
    QCOMPARE(count(f.problems, Kind::TooManyThreads, "4000 async span(s)"), 1);
}

std::string asyncEvent(char ph, const std::string &name, int64_t ts)
{
    return std::string("{\"ph\":\"") + ph + "\",\"cat\":\"c\",\"id\":7,\"name\":\"" + name +
           "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) + "}";
}

// N nested async spans "outer" of one id, N "inner" inside them, then the N ends of "outer"
// (each closes the innermost open "outer", below every "inner") and N ends of a name never
// opened (each closes the innermost open span): an end used to search the open spans of its id
// for its name and erase from the middle of them.
void TstReadScaling::nestedAsyncEndsAreLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    auto make = [](size_t n) {
        std::string s = "{\"traceEvents\":[\n";
        int64_t ts = 0;
        for (size_t i = 0; i < n; ++i)
            s += asyncEvent('b', "outer", ++ts) + ",\n";
        for (size_t i = 0; i < n; ++i)
            s += asyncEvent('b', "inner", ++ts) + ",\n";
        for (size_t i = 0; i < n; ++i)
            s += asyncEvent('e', "outer", ++ts) + ",\n";
        for (size_t i = 0; i < n; ++i)
            s += asyncEvent('e', "stray", ++ts) + (i + 1 < n ? ",\n" : "\n");
        return s + "]}\n";
    };
    size_t events = 0, open = 0;
    const size_t n = 10000;
    const scaling::Result r = measureFiles(dir, "nested.json", n, make, [&](const std::string &p) {
        const ParsedFile f = ChromeTraceParser::parseFile(p);
        events = open = 0;
        for (const EventTrack &t : f.worker.tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                ++events;
                open += t.flags[i] & EventOpen ? 1 : 0;
            }
    });
    QCOMPARE(events, 4 * n); // the last read: 2N of each name, every one closed
    QCOMPARE(open, size_t(0));
    expectLinear(r);
}

// Which span an async end closes: the innermost open one of its name (those opened inside it
// stay open), else the innermost open one; with none open it is dropped with a problem.
void TstReadScaling::asyncEndsCloseTheirName()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/trace.json";
    const std::string events[] = {
        asyncEvent('b', "A", 10), // A1
        asyncEvent('b', "B", 20), // B1
        asyncEvent('b', "A", 30), // A2
        asyncEvent('b', "C", 40), // C1
        asyncEvent('e', "A", 50), // closes A2 (C1 stays open)
        asyncEvent('e', "X", 60), // no X open: closes the innermost open, C1
        asyncEvent('e', "A", 70), // closes A1 (B1 stays open)
        asyncEvent('e', "", 80),  // no name: closes B1
        asyncEvent('e', "A", 90), // nothing open: dropped
        asyncEvent('b', "D", 100), // left open
    };
    std::string s = "{\"traceEvents\":[\n";
    for (size_t i = 0; i < std::size(events); ++i)
        s += events[i] + (i + 1 < std::size(events) ? ",\n" : "\n");
    testlogs::write(path, s + "]}\n");
    const ParsedFile f = ChromeTraceParser::parseFile(path);
    std::map<std::pair<std::string, int64_t>, std::pair<int64_t, bool>> got; // (name, start) → (end, open)
    for (const EventTrack &t : f.worker.tracks)
        for (size_t i = 0; i < t.count(); ++i)
            got[{std::string(f.names.name(t.nameId[i])), t.localStart[i]}] = {
                t.localEnd[i], (t.flags[i] & EventOpen) != 0};
    const std::map<std::pair<std::string, int64_t>, std::pair<int64_t, bool>> want = {
        {{"A", 10'000}, {70'000, false}}, {{"B", 20'000}, {80'000, false}},
        {{"A", 30'000}, {50'000, false}}, {{"C", 40'000}, {60'000, false}},
        {{"D", 100'000}, {100'000, true}}};
    QCOMPARE(got, want);
    QCOMPARE(count(f.problems, Kind::AsyncEndWithoutBegin, "1 async end(s)"), 1);
    QCOMPARE(count(f.problems, Kind::OpenEvents, "1 async begin(s)"), 1);
}

std::string syncRecords(size_t n)
{
    std::string s = testlogs::header(0);
    for (size_t i = 0; i < n; ++i) {
        const int64_t t = 1000 + int64_t(i) * 100;
        s += "{\"t\":\"sync\",\"burst\":" + std::to_string(i) + ",\"seq\":0,\"ref\":\"srv" +
             std::to_string(i) + "@boot\",\"t1\":" + std::to_string(t) +
             ",\"t2\":" + std::to_string(t + 10) + ",\"t3\":" + std::to_string(t + 20) +
             ",\"t4\":" + std::to_string(t + 30) + "}\n";
    }
    return s;
}

// N sync records, each against a reference of its own: the reference was looked up by a scan.
void TstReadScaling::distinctSyncRefsAreLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    const scaling::Result r = measureFiles(dir, "refs", 20000, syncRecords,
                                           [&](const std::string &p) { LogParser::parseFile(p); });
    expectLinear(r);
}

// A log has one reference (two after the time server moved): past SyncSampleSet::kMaxRefs, a
// sample against a further reference is dropped with a warning on its line, and the reference
// with the most samples is still the one used.
void TstReadScaling::syncRefsAreCapped()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string s = syncRecords(SyncSampleSet::kMaxRefs + 10);
    for (int i = 0; i < 3; ++i)
        s += "{\"t\":\"sync\",\"burst\":1,\"seq\":" + std::to_string(i) +
             ",\"ref\":\"srv5@boot\",\"t1\":1,\"t2\":2,\"t3\":3,\"t4\":4}\n";
    testlogs::write(path, s);
    const ParsedFile f = LogParser::parseFile(path);
    QCOMPARE(f.worker.refId, std::string("srv5@boot"));
    QCOMPARE(f.worker.samples.size(), size_t(4));
    QCOMPARE(count(f.problems, Kind::TooManySyncReferences), 6); // the first 5 with their line
    QCOMPARE(int(std::count_if(f.problems.begin(), f.problems.end(),
                               [](const LoadProblem &p) {
                                   return p.kind == Kind::TooManySyncReferences && p.line > 0;
                               })),
             5);
}

QTEST_APPLESS_MAIN(TstReadScaling)
#include "tst_readscaling.moc"
