// JobLoader on the real traces in tests/data (expected numbers computed independently with
// Python's json module) and the loader's options: the config (log path templates, overdue
// kinds), clock correction from sync samples, a missing path, cancelling. The reading rules of
// log format v1 on generated logs are in tst_jobloaderrules.cpp.
#include "tests/common/testdata.h"
#include "tests/timeline/load/jobloadertest.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>

using namespace syncline;
using namespace jobloadertest;

class TstJobLoader : public QObject
{
    Q_OBJECT
private slots:
    void kinetoTwoRanks();
    void chromeMetadataOddTypes();
    void horovodUnclosedArray();
    void lostEndInDemoLog();
    void overdueFromConfig();
    void overdueIndependentOfNameOrder();
    void configLogPathTemplate();
    void configLogPathEmptyPlaceholderDir();
    void syncSamplesCorrectClocks();
    void noCorrectKeepsRawClockSummary();
    void missingPathIsFatal();
    void cancelStopsLoading();
};

void TstJobLoader::kinetoTwoRanks()
{
    const LoadResult r = loadPaths({testdata::dir() + "/hta_sampled_kineto_2rank"});
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    QCOMPARE(tl.workers[0].info.rank, 0); // from distributedInfo.rank
    QCOMPARE(tl.workers[1].info.rank, 1);
    QCOMPARE(tl.workers[0].eventCount(), size_t(4811));
    QCOMPARE(tl.workers[1].eventCount(), size_t(4676));
    QCOMPARE(tl.workers[0].tracks.size(), size_t(8)); // one per (pid, tid)
    QCOMPARE(tl.workers[1].tracks.size(), size_t(8));
    int maxDepth = 0;
    for (const auto &w : tl.workers)
        for (const auto &t : w.tracks) {
            maxDepth = std::max(maxDepth, t.maxDepth);
            QVERIFY(checkInvariants(t));
        }
    QCOMPARE(maxDepth, 10);                 // 11 levels: depth 0..10
    // 403 distinct names + "", ProfilerStep#551 and #552 being one ("ProfilerStep", N in args).
    QCOMPARE(tl.names.size(), size_t(403));
    QCOMPARE(totalDuration(tl.workers[0]), int64_t(7917027000));
    QCOMPARE(totalDuration(tl.workers[1]), int64_t(8020966000));
    QCOMPARE(tl.workers[0].info.firstLocalNs, int64_t(1682725897226747000));
    QCOMPARE(tl.workers[0].info.pid, int64_t(4037));
    // The string pid/tid "Spans"/"PyTorch Profiler" becomes a named track.
    bool spans = false;
    for (const auto &t : tl.workers[0].tracks)
        spans = spans || t.threadName == "Spans / PyTorch Profiler";
    QVERIFY(spans);
    // aten::mm on rank 0: 231 events, 11042000 ns in all.
    const uint32_t mm = tl.names.find("aten::mm");
    int64_t n = 0, total = 0;
    for (const auto &t : tl.workers[0].tracks)
        for (size_t i = 0; i < t.count(); ++i)
            if (t.nameId[i] == mm) {
                ++n;
                total += t.localEnd[i] - t.localStart[i];
                QVERIFY(t.argsId(uint32_t(i)) >= 0);
            }
    QCOMPARE(n, int64_t(231));
    QCOMPARE(total, int64_t(11042000));
}

// Metadata of unexpected types costs a warning, never the trace: a
// non-string process name, a string rank (digits: taken), an object rank (ignored: the next
// free rank).
void TstJobLoader::chromeMetadataOddTypes()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto trace = [](const std::string &rank) {
        return std::string(R"({"distributedInfo":{"rank":)") + rank +
               R"(},"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":5}},)"
               R"({"ph":"X","name":"step","pid":1,"tid":1,"ts":10,"dur":5},)"
               R"({"ph":"X","name":"step","pid":1,"tid":1,"ts":20,"dur":5}]})";
    };
    testlogs::write(d + "/a.json", trace("\"3\""));
    testlogs::write(d + "/b.json", trace(R"({"x":1})"));
    const LoadResult r = loadPaths({d});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    QCOMPARE(tl.workers[0].info.rank, 3); // "3" taken
    QCOMPARE(tl.workers[1].info.rank, 4); // the next free rank
    QCOMPARE(tl.eventCount(), size_t(4));
    QCOMPARE(countKind(tl, LoadProblem::Kind::BadMetadata, "args.name"), 2);
    QCOMPARE(countProblems(tl, "distributedInfo.rank is a string (\"3\"); taken as rank 3"),
             1); // the wording
    QCOMPARE(countKind(tl, LoadProblem::Kind::BadMetadata, "distributedInfo.rank"), 2);
    QCOMPARE(countKind(tl, LoadProblem::Kind::BadMetadata), 4);
}

void TstJobLoader::horovodUnclosedArray()
{
    const LoadResult r = loadPaths({testdata::dir() + "/bluefog_timeline_1agent/ybc1.json"});
    QVERIFY2(r.fatalError.empty(), r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(1));
    const Worker &w = tl.workers[0];
    QCOMPARE(w.eventCount(), size_t(3538));
    QCOMPARE(w.tracks.size(), size_t(42));
    QCOMPARE(countKind(tl, LoadProblem::Kind::TruncatedJson), 1);
    QCOMPARE(countKind(tl, LoadProblem::Kind::EndWithoutBegin), 0);
    std::map<std::string, std::pair<int, int64_t>> byName;
    for (const auto &t : w.tracks)
        for (size_t i = 0; i < t.count(); ++i) {
            QVERIFY(!(t.flags[i] & EventOpen));
            auto &e = byName[std::string(tl.names.name(t.nameId[i]))];
            ++e.first;
            e.second += t.localEnd[i] - t.localStart[i];
        }
    // E events carry no name: every event got its name from its B.
    QCOMPARE(byName.size(), size_t(6));
    QCOMPARE(byName["FORWARD"], std::make_pair(880, int64_t(3388731000)));
    QCOMPARE(byName["ENQUEUE_ALLREDUCE"], std::make_pair(881, int64_t(2369226000)));
    QCOMPARE(byName["MPI_ALLREDUCE"], std::make_pair(881, int64_t(545009000)));
    QCOMPARE(byName["GRADIENT COMPT."], std::make_pair(880, int64_t(2799718000)));
    QCOMPARE(byName["MPI_BROADCAST"], std::make_pair(8, int64_t(623000)));
    QCOMPARE(totalDuration(w), int64_t(9106145000));
    QCOMPARE(w.info.rank, 1); // digits of "ybc1"
    bool named = false;
    for (const auto &t : w.tracks)
        named = named || t.threadName == "broadcast.conv1.bias / tid 1";
    QVERIFY(named); // process_name metadata names the tracks
}

// A real demo log (tests/data/demo_excerpt: rank 0 of `make demo`, 700 lines) with one E lost:
// the last child of the trainer's third step. Its parent's E closes it at the parent's end
// (reported), and every event keeps the depth it has in the intact log — nothing later is
// drawn one level too deep, no parent stays open.
void TstJobLoader::lostEndInDemoLog()
{
    const std::string src = testdata::dir() + "/demo_excerpt/timer_events.0.log";
    const LoadResult intact = loadPaths({src});
    QVERIFY(intact.timeline);
    const Worker &w0 = intact.timeline->workers[0];
    // The trainer thread: the track with the "step" events.
    const uint32_t stepId = intact.timeline->names.find("step");
    size_t ti = 0;
    while (ti < w0.tracks.size() &&
           std::find(w0.tracks[ti].nameId.begin(), w0.tracks[ti].nameId.end(), stepId) ==
               w0.tracks[ti].nameId.end())
        ++ti;
    QVERIFY(ti < w0.tracks.size());
    const EventTrack &t = w0.tracks[ti];
    // The third step and its last direct child.
    int step = -1, seen = 0;
    for (size_t i = 0; i < t.count() && step < 0; ++i)
        if (t.nameId[i] == stepId && t.depth[i] == 0 && ++seen == 3)
            step = int(i);
    QVERIFY(step >= 0);
    int child = -1;
    for (size_t i = size_t(step) + 1; i < t.count(); ++i)
        if (t.parent[i] == step)
            child = int(i);
    QVERIFY(child >= 0);
    const std::string childName(intact.timeline->names.name(t.nameId[size_t(child)]));
    // Drop exactly that E line (its ts, tid and name) from a copy of the log.
    const std::string endLine = "{\"t\":\"E\",\"ts\":" + std::to_string(t.localEnd[size_t(child)]) +
                                ",\"tid\":" + std::to_string(t.tid) + ",\"name\":\"" + childName +
                                "\"";
    QTemporaryDir dir;
    const std::string cut = dir.path().toStdString() + "/timer_events.0.log";
    {
        std::ifstream in(src);
        std::ofstream out(cut);
        int dropped = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind(endLine, 0) == 0 && dropped++ == 0)
                continue;
            out << line << '\n';
        }
        QCOMPARE(dropped, 1);
    }
    const LoadResult r = loadPaths({cut});
    QVERIFY(r.timeline);
    const EventTrack &u = r.timeline->workers[0].tracks[ti];
    QCOMPARE(u.count(), t.count());
    QCOMPARE(countKind(*r.timeline, LoadProblem::Kind::LostEnd,
                       "E \"step\" on tid " + std::to_string(t.tid) + " while \"" + childName +
                           "\" still open"),
             1);
    for (size_t i = 0; i < t.count(); ++i) {
        QCOMPARE(u.localStart[i], t.localStart[i]);
        QCOMPARE(int(u.depth[i]), int(t.depth[i]));
        QCOMPARE(u.parent[i], t.parent[i]);
        QCOMPARE(bool(u.flags[i] & EventOpen), bool(t.flags[i] & EventOpen));
        if (int(i) != child)
            QCOMPARE(u.localEnd[i], t.localEnd[i]);
    }
    QCOMPARE(u.localEnd[size_t(child)], t.localEnd[size_t(step)]); // closed with its parent
}

void TstJobLoader::overdueFromConfig()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json", "{\"log_path\":\"timer_events.log\",\"event_kinds\":["
                                              "{\"name\":\"step\",\"expected_max_ms\":1}]}");
    testlogs::write(d + "/timer_events.0.log", testlogs::header(0) + testlogs::begin(0, 1, "step") +
                                                   testlogs::end(999999, 1, "step") +
                                                   testlogs::begin(2000000, 1, "step") +
                                                   testlogs::end(3000001, 1, "step"));
    const LoadResult r = loadPaths({d});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const EventTrack &t = r.timeline->workers[0].tracks[0];
    QVERIFY(!(t.flags[0] & EventOverdue));
    QVERIFY(t.flags[1] & EventOverdue); // 1000001 ns > 1 ms
}

void TstJobLoader::overdueIndependentOfNameOrder()
{
    // Two files that intern the same names in opposite order, parsed by one thread: the
    // overdue flag follows the name, never a name id of a file parsed before.
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/timer_config.json", "{\"log_path\":\"timer_events.log\",\"event_kinds\":["
                                              "{\"name\":\"slow\",\"expected_max_ms\":0.001}]}");
    const char *order[2][2] = {{"slow", "fast"}, {"fast", "slow"}};
    for (int rank = 0; rank < 2; ++rank) {
        std::string text = testlogs::header(rank);
        for (int k = 0; k < 2; ++k)
            text += testlogs::begin(10000 * (k + 1), 1, order[rank][k]) +
                    testlogs::end(10000 * (k + 1) + 5000, 1, order[rank][k]);
        testlogs::write(d + "/timer_events." + std::to_string(rank) + ".log", text);
    }
    LoadOptions o;
    o.paths = {d};
    o.threads = 1;
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    for (const Worker &w : tl.workers) {
        const EventTrack &t = w.tracks[0];
        QCOMPARE(t.count(), size_t(2));
        for (size_t i = 0; i < t.count(); ++i) {
            const bool slow = tl.names.name(t.nameId[i]) == "slow";
            QCOMPARE(bool(t.flags[i] & EventOverdue), slow); // 5000 ns > 1000 ns for "slow" only
        }
    }
}

void TstJobLoader::configLogPathTemplate()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    QDir(dir.path()).mkpath("logs/job1");
    testlogs::write(d + "/timer_config.json", "{\"log_path\":\"logs/{run_id}/rank{rank}.log\"}");
    testlogs::write(d + "/logs/job1/rank0.log",
                    testlogs::header(0) + testlogs::begin(1, 1, "a") + testlogs::end(2, 1, "a"));
    testlogs::write(d + "/logs/job1/rank1.log",
                    testlogs::header(1) + testlogs::begin(1, 1, "a") + testlogs::end(2, 1, "a"));
    testlogs::write(d + "/logs/job1/other.txt", "ignored");
    const LoadResult r = loadPaths({d + "/timer_config.json"});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(2));
    QCOMPARE(r.timeline->workers[1].info.rank, 1);
}

void TstJobLoader::configLogPathEmptyPlaceholderDir()
{
    // With TORCHELASTIC_RUN_ID unset the recorder writes "logs/{run_id}/rank{rank}.log" as
    // "logs//rank0.log", i.e. logs/rank0.log: the config still finds it.
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    QDir(dir.path()).mkpath("logs/job1");
    testlogs::write(d + "/timer_config.json", "{\"log_path\":\"logs/{run_id}/rank{rank}.log\"}");
    testlogs::write(d + "/logs/rank0.log",
                    testlogs::header(0) + testlogs::begin(1, 1, "a") + testlogs::end(2, 1, "a"));
    testlogs::write(d + "/logs/job1/rank1.log",
                    testlogs::header(1) + testlogs::begin(1, 1, "a") + testlogs::end(2, 1, "a"));
    const LoadResult r = loadPaths({d + "/timer_config.json"});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    QCOMPARE(r.timeline->workers.size(), size_t(2));
    QCOMPARE(r.timeline->workers[0].info.rank, 0);
    QCOMPARE(r.timeline->workers[1].info.rank, 1);
}

void TstJobLoader::syncSamplesCorrectClocks()
{
    // Two hosts; the reference clock = host A local + 1 s = host B local − 3 ms. Symmetric 20 µs
    // one-way delay, so the truth sits in the middle of every sample's bound.
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const int64_t offA = 1000000000, offB = -3000000;
    for (int rank = 0; rank < 2; ++rank) {
        const int64_t off = rank == 0 ? offA : offB;
        std::string text =
            testlogs::header(rank, 0, rank == 0 ? "a" : "b", 1000,
                             1700000000000000000LL + rank * 777, rank == 0 ? "boot-a" : "boot-b");
        for (int burst = 0; burst < 30; ++burst)
            for (int seq = 0; seq < 4; ++seq) {
                const int64_t t1 = 10000000 + burst * 100000000LL + seq * 100000;
                const int64_t t2 = t1 + off + 20000, t3 = t2 + 1000, t4 = t3 - off + 20000;
                text += "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) +
                        ",\"seq\":" + std::to_string(seq) +
                        ",\"ref\":\"srv\",\"t1\":" + std::to_string(t1) +
                        ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
                        ",\"t4\":" + std::to_string(t4) + "}\n";
            }
        // The same true instant (reference 2.000 s) on both workers.
        const int64_t local = 2000000000 - off;
        text += testlogs::begin(local, 1, "mark") + testlogs::end(local + 1000, 1, "mark");
        testlogs::write(d + "/w." + std::to_string(rank) + ".log", text);
    }
    const LoadResult r = loadPaths({d});
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers[0].clock.method, sync::ClockMethod::SyncSamples);
    QCOMPARE(tl.workers[1].clock.method, sync::ClockMethod::SyncSamples);
    const int64_t g0 = tl.startNs(0, 0, 0, ClockMode::Corrected),
                  g1 = tl.startNs(1, 0, 0, ClockMode::Corrected);
    QVERIFY2(std::llabs(g0 - g1) <= 2000, std::to_string(g0 - g1).c_str()); // same instant
    // Raw mode shows the wall-clock anchors' view: 777 ns apart in anchors, 1.003 s in offsets.
    Timeline copy = tl;
    QCOMPARE(copy.startNs(1, 0, 0, ClockMode::Raw) - copy.startNs(0, 0, 0, ClockMode::Raw),
             int64_t(777 + offA - offB));
    // Rank 0 sits at the same place in both modes (the shared wall-clock epoch).
    QVERIFY2(std::llabs(copy.startNs(0, 0, 0, ClockMode::Raw) - g0) <= 1,
             std::to_string(copy.startNs(0, 0, 0, ClockMode::Raw) - g0).c_str());
    QCOMPARE(tl.originNs(ClockMode::Corrected), std::min(g0, g1));
}

void TstJobLoader::noCorrectKeepsRawClockSummary()
{
    // --no-correct: corrected = raw, and each worker's clock summary (stats, Clocks panel) is
    // that raw wall-clock mapping: offset = anchor.wall_ns − anchor.mono_ns, method none.
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    for (int rank = 0; rank < 2; ++rank)
        testlogs::write(
            d + "/w." + std::to_string(rank) + ".log",
            testlogs::header(rank, 0, "node-a", 1000 + rank, 1700000000000000000LL + rank * 777) +
                testlogs::begin(5000, 1, "step") + testlogs::end(6000, 1, "step"));
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(2));
    for (int rank = 0; rank < 2; ++rank) {
        const Worker &w = tl.workers[size_t(rank)];
        QCOMPARE(w.clock.method, sync::ClockMethod::None);
        QCOMPARE(w.clock.workerId, rank);
        QCOMPARE(w.clock.offsetNs, 1700000000000000000LL + rank * 777 - (1000 + rank));
        QVERIFY(w.clock.map.segments().empty()); // the summary does not duplicate `corrected`
        QCOMPARE(w.corrected.toGlobal(5000), w.raw.toGlobal(5000));
    }
    QCOMPARE(tl.startNs(1, 0, 0, ClockMode::Corrected) - tl.startNs(0, 0, 0, ClockMode::Corrected),
             int64_t(777 - 1));
    QVERIFY(std::any_of(tl.clockNotes.begin(), tl.clockNotes.end(), [](const std::string &n) {
        return n.find("clock correction disabled") != std::string::npos;
    }));
}

void TstJobLoader::missingPathIsFatal()
{
    const LoadResult r = loadPaths({"/nonexistent/dir"});
    QVERIFY(!r.timeline);
    QCOMPARE(r.fatalError, std::string("/nonexistent/dir: no such file or directory"));
}

void TstJobLoader::cancelStopsLoading()
{
    std::atomic<bool> cancel{true};
    LoadOptions o;
    o.paths = {testdata::dir() + "/hta_sampled_kineto_2rank"};
    o.cancel = &cancel;
    const LoadResult r = JobLoader::load(o);
    QVERIFY(r.cancelled);
    QVERIFY(!r.timeline);
}

QTEST_APPLESS_MAIN(TstJobLoader)
#include "tst_jobloader.moc"
