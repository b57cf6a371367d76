// Tests TraceAttachment through JobLoader: a directory with syncline logs and the real Kineto
// traces of tests/data (ranks 0 and 1, wall-clock µs, distributedInfo.rank) loads as ONE worker
// per rank, the profiler's tracks beside the log's, mapped through that worker's corrected clock.
//
// The scenario (a known host offset): rank 1 runs on host-b, whose wall clock is D = 3.2 ms
// ahead — its trace's `ts` are rewritten +D µs — and whose monotonic clock has another origin
// than host-a's. Each rank's syncline log (written here by hand) carries its host's wall/mono
// anchor and sync exchanges with one time server, delays symmetric, so the corrected clocks are
// exact to the engine's bound. After loading, the two hosts' profiler events line up as they
// did in the original traces (event by event, within the bounds + 1 µs), while the raw view
// still shows host-b's events D late.
#include "tests/common/problemkinds.h"
#include "tests/common/testdata.h"
#include "tests/timeline/kinetotext.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace syncline;

namespace {

constexpr int64_t kHostBWallAheadNs = 3'200'000;     // D
constexpr int64_t kRefEpochNs = 1682725890000000000; // the time server's clock = wall − this
constexpr int64_t kMonoA = 5'000'000'000;            // host-a mono − time server
constexpr int64_t kMonoB = 12'345'678'901;           // host-b mono − time server
constexpr int64_t kDelayNs = 10'000;                 // one way, both ways
constexpr int kPidRank0 = 4037;                      // the trace of rank 0's main pid

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string tracePath(int rank)
{
    return testdata::dir() + "/hta_sampled_kineto_2rank/sampled_rank-" + std::to_string(rank) +
           ".json";
}

// The trace's text with every "ts": N (integer µs, as these files have) moved by `us`.
std::string shiftTs(const std::string &text, int64_t us)
{
    std::string out;
    out.reserve(text.size() + 1024);
    const std::string key = "\"ts\": ";
    size_t at = 0;
    for (size_t k; (k = text.find(key, at)) != std::string::npos;) {
        k += key.size();
        out.append(text, at, k - at);
        size_t e = k;
        while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])))
            ++e;
        out += std::to_string(std::stoll(text.substr(k, e - k)) + us);
        at = e;
    }
    out.append(text, at, std::string::npos);
    return out;
}

// A syncline log of `rank` on a host whose mono clock is server + monoMinusRef and whose wall
// clock reads true wall + wallAhead; it covers wall [fromWall, toWall] with one "step" event and
// a sync exchange every 100 ms.
std::string hostLog(int rank, int pid, int64_t monoMinusRef, int64_t wallAhead, int64_t fromWall,
                    int64_t toWall, const std::string &host)
{
    auto mono = [&](int64_t trueWall) { return trueWall - kRefEpochNs + monoMinusRef; };
    std::string h =
        testlogs::header(rank, 0, host, mono(fromWall), fromWall + wallAhead, "boot-" + host);
    h.replace(h.find("\"pid\":"), h.find(",\"clock\"") - h.find("\"pid\":"),
              "\"pid\":" + std::to_string(pid));
    std::string log = h + testlogs::begin(mono(fromWall) + 1000, 1, "step");
    int burst = 0;
    for (int64_t w = fromWall; w <= toWall; w += 100'000'000, ++burst) {
        const int64_t t1 = mono(w), t2 = w - kRefEpochNs + kDelayNs, t3 = t2 + 1000,
                      t4 = t3 + kDelayNs + monoMinusRef;
        log += "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) +
               ",\"seq\":0,\"ref\":\"127.0.0.1:1@srv\",\"t1\":" + std::to_string(t1) +
               ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
               ",\"t4\":" + std::to_string(t4) + "}\n";
    }
    log += testlogs::end(mono(toWall), 1, "step");
    log += "{\"t\":\"close\",\"ts\":" + std::to_string(mono(toWall) + 1) +
           ",\"events\":1,\"dropped\":0,\"open\":0}\n";
    return log;
}

LoadResult loadDir(const std::string &dir)
{
    LoadOptions o;
    o.paths = {dir};
    return JobLoader::load(o);
}

bool isProfilerTrack(const EventTrack &t)
{
    return t.threadName.size() > 11 && t.threadName.ends_with(" (profiler)");
}

// Global starts of a worker's events (only its profiler tracks when `profiler`), sorted.
std::vector<int64_t> starts(const Timeline &tl, size_t w, ClockMode mode, bool profiler)
{
    std::vector<int64_t> out;
    const Worker &wk = tl.workers[w];
    for (size_t t = 0; t < wk.tracks.size(); ++t)
        if (!profiler || isProfilerTrack(wk.tracks[t]))
            for (size_t i = 0; i < wk.tracks[t].count(); ++i)
                out.push_back(tl.startNs(w, t, i, mode));
    std::sort(out.begin(), out.end());
    return out;
}

bool anyProblem(const Timeline &tl, LoadProblem::Kind kind, const std::string &detail = {})
{
    return problemkinds::count(tl.problems, kind, detail) > 0;
}

} // namespace

class TstTraceAttachment : public QObject
{
    Q_OBJECT
private slots:
    void tracesJoinTheirRanksAndLineUp();
    void traceOfAnotherRunStaysApart();
    void relativeTraceWithBaseTimeJoinsItsWorker();
};

void TstTraceAttachment::tracesJoinTheirRanksAndLineUp()
{
    // The truth: the original traces alone (their µs on one clock), per rank.
    QTemporaryDir orig;
    for (int r : {0, 1})
        std::filesystem::copy_file(tracePath(r), orig.path().toStdString() + "/sampled_rank-" +
                                                     std::to_string(r) + ".json");
    const LoadResult truth = loadDir(orig.path().toStdString());
    QVERIFY2(truth.fatalError.empty(), truth.fatalError.c_str());
    QCOMPARE(truth.timeline->workers.size(), size_t(2));
    std::vector<int64_t> trueStarts[2] = {starts(*truth.timeline, 0, ClockMode::Raw, false),
                                          starts(*truth.timeline, 1, ClockMode::Raw, false)};
    QVERIFY(trueStarts[0].size() > 4000 && trueStarts[1].size() > 4000);

    // The job: rank 1's trace written with host-b's wall clock, plus both ranks' syncline logs.
    QTemporaryDir job;
    const std::string d = job.path().toStdString();
    testlogs::write(d + "/sampled_rank-0.json", readAll(tracePath(0)));
    testlogs::write(d + "/sampled_rank-1.json",
                    shiftTs(readAll(tracePath(1)), kHostBWallAheadNs / 1000));
    const int64_t from = trueStarts[0].front() - 1'000'000'000, to = from + 6'000'000'000;
    testlogs::write(d + "/timer_events.0.log",
                    hostLog(0, kPidRank0, kMonoA, 0, from, to, "host-a"));
    testlogs::write(d + "/timer_events.1.log", // another pid than its trace: matched by time
                    hostLog(1, 999, kMonoB, kHostBWallAheadNs, from, to, "host-b"));

    const LoadResult r = loadDir(d);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    // One worker per rank: the log's, with its trace attached; no duplicate rank.
    QCOMPARE(tl.workers.size(), size_t(2));
    QVERIFY(!anyProblem(tl, LoadProblem::Kind::DuplicateRank));
    for (int w : {0, 1}) {
        const Worker &wk = tl.workers[size_t(w)];
        QCOMPARE(wk.info.rank, w);
        QCOMPARE(wk.info.kind, SourceKind::SynclineLog);
        QCOMPARE(wk.info.attachedTraces.size(), size_t(1));
        QVERIFY(anyProblem(tl, LoadProblem::Kind::TraceAttached,
                           "attached to " + d + "/timer_events." + std::to_string(w) + ".log"));
        QCOMPARE(wk.clock.method, sync::ClockMethod::SyncSamples);
        QVERIFY2(wk.clock.boundNs > 0 && wk.clock.boundNs < 50'000,
                 std::to_string(wk.clock.boundNs).c_str());
        // The syncline track and the profiler's, side by side.
        const auto profilerTracks =
            std::count_if(wk.tracks.begin(), wk.tracks.end(), isProfilerTrack);
        QVERIFY(profilerTracks >= 2);
        QCOMPARE(size_t(wk.tracks.size() - profilerTracks), size_t(1));
        QCOMPARE(wk.eventCount(), trueStarts[w].size() + 1);
    }
    const std::vector<int64_t> got[2] = {starts(tl, 0, ClockMode::Corrected, true),
                                         starts(tl, 1, ClockMode::Corrected, true)};
    QCOMPARE(got[0].size(), trueStarts[0].size());
    QCOMPARE(got[1].size(), trueStarts[1].size());
    // Event by event: corrected − true is one constant for both hosts, to the bounds + 1 µs.
    const int64_t c = got[0].front() - trueStarts[0].front();
    const int64_t tolerance = tl.workers[0].clock.boundNs + tl.workers[1].clock.boundNs + 1000;
    int64_t worst = 0;
    for (int w : {0, 1})
        for (size_t i = 0; i < got[w].size(); ++i)
            worst = std::max(worst, std::abs(got[w][i] - trueStarts[w][i] - c));
    qInfo("profiler events of both hosts vs the truth: worst %lld ns (bounds %lld + %lld ns)",
          (long long)worst, (long long)tl.workers[0].clock.boundNs,
          (long long)tl.workers[1].clock.boundNs);
    QVERIFY2(worst <= tolerance,
             qPrintable(QStringLiteral("worst %1 ns > %2 ns").arg(worst).arg(tolerance)));
    // Raw (wall-clock anchors only): host-b's profiler events are its wall clock's D late.
    const std::vector<int64_t> raw1 = starts(tl, 1, ClockMode::Raw, true);
    const std::vector<int64_t> raw0 = starts(tl, 0, ClockMode::Raw, true);
    QCOMPARE(raw0.front() - trueStarts[0].front(), int64_t(0));
    QCOMPARE(raw1.front() - trueStarts[1].front(), kHostBWallAheadNs);
}

void TstTraceAttachment::traceOfAnotherRunStaysApart()
{
    // Rank 0's log is from an hour later, with another pid: the trace is not this worker's.
    QTemporaryDir job;
    const std::string d = job.path().toStdString();
    testlogs::write(d + "/sampled_rank-0.json", readAll(tracePath(0)));
    const int64_t later = 1682725897226747000 + 3'600'000'000'000;
    testlogs::write(d + "/timer_events.0.log",
                    hostLog(0, 1234, kMonoA, 0, later, later + 1'000'000'000, "host-a"));
    const LoadResult r = loadDir(d);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    QVERIFY(anyProblem(tl, LoadProblem::Kind::TraceNotAttached,
                       "profiler trace not attached to a syncline worker: no syncline log "
                       "of rank 0 overlaps it in wall-clock time")); // the wording
    QVERIFY(anyProblem(tl, LoadProblem::Kind::DuplicateRank, "rank 0 restart 0"));
    QVERIFY(std::any_of(tl.workers.begin(), tl.workers.end(), [](const Worker &w) {
        return w.info.kind == SourceKind::ChromeTrace && w.info.attachedTraces.empty();
    }));
}

// PyTorch 2.4+: ts in µs relative to baseTimeNanoseconds (written after the events). The trace
// joins its rank's worker as an absolute one does, each event at its original wall time to the ns
// in the raw view (the log's wall clock is the true one here).
void TstTraceAttachment::relativeTraceWithBaseTimeJoinsItsWorker()
{
    QTemporaryDir orig;
    std::filesystem::copy_file(tracePath(0), orig.path().toStdString() + "/sampled_rank-0.json");
    const LoadResult truth = loadDir(orig.path().toStdString());
    QVERIFY2(truth.fatalError.empty(), truth.fatalError.c_str());
    const std::vector<int64_t> trueStarts = starts(*truth.timeline, 0, ClockMode::Raw, false);

    QTemporaryDir job;
    const std::string d = job.path().toStdString();
    const std::string rebased = kinetotext::rebase(readAll(tracePath(0)), 1682725000000000077);
    QVERIFY(rebased.find("\"ts\": 1682725897226747") == std::string::npos);
    testlogs::write(d + "/sampled_rank-0.json", rebased);
    const int64_t from = trueStarts.front() - 1'000'000'000, to = from + 6'000'000'000;
    testlogs::write(d + "/timer_events.0.log",
                    hostLog(0, kPidRank0, kMonoA, 0, from, to, "host-a"));
    const LoadResult r = loadDir(d);
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(1));
    QCOMPARE(tl.workers[0].info.attachedTraces.size(), size_t(1));
    QVERIFY(!anyProblem(tl, LoadProblem::Kind::TraceNotAttached));
    const std::vector<int64_t> raw = starts(tl, 0, ClockMode::Raw, true);
    QCOMPARE(raw.size(), trueStarts.size());
    for (size_t i = 0; i < raw.size(); ++i)
        QCOMPARE(raw[i], trueStarts[i]);
}

QTEST_APPLESS_MAIN(TstTraceAttachment)
#include "tst_traceattachment.moc"
