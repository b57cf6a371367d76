// Counters and async events through JobLoader, on real files:
//  - a syncline log's `C` records (format 1.1): one CounterTrack per name, local times, values
//    exact; a null value is no sample; malformed C lines are reported with file:line and every
//    other record of the file still loads; a header of a newer minor version still loads;
//  - the real Kineto trace of tests/data (rank 0) with Chrome `C` and `b`/`e`/`n` events added
//    in the Trace Event Format's shapes: one counter per (pid, name [+ id], args key), async
//    spans matched by cat + id (+ scope) and laid out in lanes that never overlap, the trace's
//    own X events unchanged, bad counter values and async ends without a begin reported;
//  - a Kineto trace attached to a syncline worker: its counters move onto the worker's clock
//    exactly like its events (corrected like events).
#include "tests/common/problemkinds.h"
#include "tests/common/testdata.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/parse/chrome/asynclanes.h"
#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace syncline;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

LoadResult loadPaths(std::vector<std::string> paths)
{
    LoadOptions o;
    o.paths = std::move(paths);
    return JobLoader::load(o);
}

// The first problem of `kind` whose message contains `detail`.
const LoadProblem *findProblem(const Timeline &tl, LoadProblem::Kind kind,
                               const std::string &detail = {})
{
    for (const LoadProblem &p : tl.problems)
        if (p.kind == kind && p.message.find(detail) != std::string::npos)
            return &p;
    return nullptr;
}

std::string counterLine(int64_t ts, const std::string &name, const std::string &value)
{
    return "{\"t\":\"C\",\"ts\":" + std::to_string(ts) + ",\"tid\":7,\"name\":\"" + name +
           "\",\"value\":" + value + "}\n";
}

// The real trace's text with `extra` events inserted at the start of its traceEvents array.
std::string withEvents(const std::string &trace, const std::string &extra)
{
    std::string out = trace;
    const size_t at = out.find("\"traceEvents\": [") + std::strlen("\"traceEvents\": [");
    out.insert(at, extra);
    return out;
}

const CounterTrack *counterNamed(const Worker &w, const std::string &label)
{
    for (const CounterTrack &c : w.counters)
        if (c.label() == label)
            return &c;
    return nullptr;
}

} // namespace

class TstCounters : public QObject
{
    Q_OBJECT
private slots:
    void logCounterRecords();
    void logNewerMinorVersionLoads();
    void chromeCountersAndAsync();
    void asyncLanesNeverOverlap();
    void attachedTraceCountersFollowTheWorkersClock();
};

void TstCounters::logCounterRecords()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string h = testlogs::header(0);
    h.replace(h.find("\"version\":1"), 11, "\"version\":1,\"minor\":1");
    std::string log = h;                                                                 // line 1
    log += testlogs::begin(2000, 7, "step");                                             // 2
    log += counterLine(2100, "loss", "0.75");                                            // 3
    log += counterLine(2200, "gpu_mem", "1073741824");                                   // 4
    log += "{\"t\":\"C\",\"ts\":2300,\"tid\":7,\"name\":\"loss\",\"value\":\"high\"}\n"; // 5
    log += "{\"t\":\"C\",\"ts\":2400,\"tid\":7,\"name\":\"loss\"}\n";       // 6: no value
    log += counterLine(2500, "loss", "null");                               // 7: NaN at the writer
    log += counterLine(2600, "loss", "2.5e-1");                             // 8
    log += "{\"value\":-3,\"name\":\"gpu_mem\",\"ts\":2700,\"t\":\"C\"}\n"; // 9: any key order
    log += testlogs::end(3000, 7, "step");                                  // 10
    testlogs::write(path, log);

    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(1));
    const Worker &w = tl.workers[0];
    QCOMPARE(w.eventCount(), size_t(1)); // counters are not events
    QCOMPARE(w.counters.size(), size_t(2));
    // Sorted by (pid, name): gpu_mem before loss.
    QCOMPARE(w.counters[0].name, std::string("gpu_mem"));
    QCOMPARE(w.counters[0].localTs, (std::vector<int64_t>{2200, 2700}));
    QCOMPARE(w.counters[0].value, (std::vector<double>{1073741824.0, -3.0}));
    QCOMPARE(w.counters[0].minValue, -3.0);
    QCOMPARE(w.counters[0].maxValue, 1073741824.0);
    QCOMPARE(w.counters[1].name, std::string("loss"));
    QCOMPARE(w.counters[1].series, std::string());
    QCOMPARE(w.counters[1].localTs, (std::vector<int64_t>{2100, 2600}));
    QCOMPARE(w.counters[1].value, (std::vector<double>{0.75, 0.25}));
    // The two malformed C lines, each with its line number; nothing else is reported as bad.
    const LoadProblem *bad = findProblem(tl, LoadProblem::Kind::MalformedLine, "value:");
    QVERIFY(bad);
    QCOMPARE(bad->line, int64_t(5));
    QCOMPARE(bad->file, path);
    const LoadProblem *missing = findProblem(tl, LoadProblem::Kind::MalformedLine, "\"value\"");
    QVERIFY(missing);
    QCOMPARE(missing->line, int64_t(6));
    for (const LoadProblem &p : tl.problems)
        QVERIFY2(p.severity != LoadProblem::Severity::Error, p.message.c_str());
    QCOMPARE(problemkinds::count(tl.problems, LoadProblem::Kind::MalformedLine), 2);
}

void TstCounters::logNewerMinorVersionLoads()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/timer_events.0.log";
    std::string h = testlogs::header(0);
    h.replace(h.find("\"version\":1"), 11, "\"version\":1,\"minor\":7");
    testlogs::write(path, h + testlogs::complete(2000, 50, 1, "x") +
                              "{\"t\":\"Q\",\"ts\":2100,\"what\":\"a 1.7 record\"}\n" +
                              counterLine(2200, "loss", "1"));
    const LoadResult r = loadPaths({path});
    QVERIFY(r.timeline);
    QCOMPARE(r.timeline->eventCount(), size_t(1));
    QCOMPARE(r.timeline->workers[0].counters.size(), size_t(1));
    const LoadProblem *note = findProblem(*r.timeline, LoadProblem::Kind::BadHeader, "1.7");
    QVERIFY(note);
    QCOMPARE(note->severity, LoadProblem::Severity::Info);
}

void TstCounters::chromeCountersAndAsync()
{
    const std::string original =
        readAll(testdata::dir() + "/hta_sampled_kineto_2rank/sampled_rank-0.json");
    QTemporaryDir dir;
    const std::string plain = dir.path().toStdString() + "/plain_rank-0.json";
    testlogs::write(plain, original);
    // Kineto's pid/tid and µs; a two-key memory counter, a counter with an id, a bad value,
    // nested and overlapping async spans of one cat, one with a scope, an instant, a lost end.
    const int64_t t0 = 1682725898236567;
    auto us = [&](int64_t d) { return std::to_string(t0 + d); };
    const std::string extra =
        "{\"ph\": \"C\", \"name\": \"GPU memory\", \"pid\": 4037, \"ts\": " + us(0) +
        ", \"args\": {\"allocated\": 1000, \"reserved\": 4096}},\n"
        "{\"ph\": \"C\", \"name\": \"GPU memory\", \"pid\": 4037, \"ts\": " +
        us(100) +
        ", \"args\": {\"allocated\": 3000.5, \"reserved\": 4096}},\n"
        "{\"ph\": \"C\", \"name\": \"GPU memory\", \"pid\": 4037, \"ts\": " +
        us(50) +
        ", \"args\": {\"allocated\": 2000}},\n"
        "{\"ph\": \"C\", \"name\": \"queue\", \"id\": 3, \"pid\": 4037, \"ts\": " +
        us(10) +
        ", \"args\": {\"depth\": 2}},\n"
        "{\"ph\": \"C\", \"name\": \"queue\", \"id\": 3, \"pid\": 4037, \"ts\": " +
        us(20) +
        ", \"args\": {\"depth\": \"many\"}},\n"
        "{\"ph\": \"b\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x1\", \"pid\": "
        "4037, "
        "\"tid\": 1, \"ts\": " +
        us(0) +
        ", \"args\": {\"bytes\": 64}},\n"
        "{\"ph\": \"b\", \"cat\": \"nccl\", \"name\": \"chunk\", \"id\": \"0x1\", \"pid\": 4037, "
        "\"tid\": 1, \"ts\": " +
        us(10) +
        "},\n"
        "{\"ph\": \"e\", \"cat\": \"nccl\", \"name\": \"chunk\", \"id\": \"0x1\", \"pid\": 4037, "
        "\"tid\": 1, \"ts\": " +
        us(30) +
        "},\n"
        "{\"ph\": \"e\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x1\", \"pid\": "
        "4037, "
        "\"tid\": 2, \"ts\": " +
        us(80) +
        "},\n"
        "{\"ph\": \"b\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x2\", \"pid\": "
        "4037, "
        "\"tid\": 1, \"ts\": " +
        us(40) +
        "},\n"
        "{\"ph\": \"e\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x2\", \"pid\": "
        "4037, "
        "\"tid\": 1, \"ts\": " +
        us(120) +
        "},\n"
        "{\"ph\": \"n\", \"cat\": \"nccl\", \"name\": \"progress\", \"id\": \"0x2\", \"pid\": "
        "4037, "
        "\"tid\": 1, \"ts\": " +
        us(60) +
        "},\n"
        "{\"ph\": \"b\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x1\", \"scope\": "
        "\"other\", \"pid\": 4037, \"tid\": 1, \"ts\": " +
        us(200) +
        "},\n"
        "{\"ph\": \"e\", \"cat\": \"nccl\", \"name\": \"allreduce\", \"id\": \"0x9\", \"pid\": "
        "4037, "
        "\"tid\": 1, \"ts\": " +
        us(300) +
        "},\n"
        "{\"ph\": \"b\", \"cat\": \"nccl\", \"name\": \"noid\", \"pid\": 4037, \"tid\": 1, "
        "\"ts\": " +
        us(5) + "},\n";
    const std::string withAsync = dir.path().toStdString() + "/sampled_rank-0.json";
    testlogs::write(withAsync, withEvents(original, extra));

    const LoadResult base = loadPaths({plain});
    const LoadResult r = loadPaths({withAsync});
    QVERIFY(base.timeline && r.timeline);
    const Worker &w = r.timeline->workers[0];
    const Worker &b = base.timeline->workers[0];
    QCOMPARE(w.info.rank, 0);
    QVERIFY(b.counters.empty());

    // Counters: (pid 4037, "GPU memory", allocated/reserved) and ("queue 3", depth).
    QCOMPARE(w.counters.size(), size_t(3));
    const CounterTrack *alloc = counterNamed(w, "GPU memory · allocated");
    const CounterTrack *reserved = counterNamed(w, "GPU memory · reserved");
    const CounterTrack *queue = counterNamed(w, "queue 3 · depth");
    QVERIFY(alloc && reserved && queue);
    QCOMPARE(alloc->pid, int64_t(4037));
    const int64_t t0ns = t0 * 1000;
    QCOMPARE(alloc->localTs, (std::vector<int64_t>{t0ns, t0ns + 50000, t0ns + 100000}));
    QCOMPARE(alloc->value, (std::vector<double>{1000, 2000, 3000.5}));
    QCOMPARE(reserved->value, (std::vector<double>{4096, 4096}));
    QCOMPARE(queue->value, (std::vector<double>{2}));
    QVERIFY(findProblem(*r.timeline, LoadProblem::Kind::BadCounterValue,
                        "counter \"queue 3\" series \"depth\""));

    // The trace's own tracks and events are as without the additions.
    std::vector<const EventTrack *> async, threads;
    for (const EventTrack &t : w.tracks)
        (t.async ? async : threads).push_back(&t);
    QCOMPARE(threads.size(), b.tracks.size());
    size_t events = 0;
    for (const EventTrack *t : threads)
        events += t->count();
    QCOMPARE(events, b.eventCount());
    // Async tracks come after the threads.
    QVERIFY(!w.tracks.back().async || w.tracks.front().async == false);

    // Async: key (cat nccl, id 0x1): allreduce[0,80) with chunk[10,30) inside it (one tree);
    // id 0x2: allreduce[40,120) overlaps the first tree -> lane 2, with its instant progress@60
    // inside it; the scoped allreduce@200 (another key; open: no end) starts after lane 1's tree
    // ended -> lane 1. One lost end (0x9), one begin without an id.
    QCOMPARE(async.size(), size_t(2));
    for (const EventTrack *t : async) {
        QCOMPARE(t->category, std::string("nccl"));
        QVERIFY(t->threadName.find("async nccl #") != std::string::npos);
        QVERIFY(t->tid < 0);
    }
    auto names = [&](const EventTrack *t) {
        std::string out;
        for (size_t i = 0; i < t->count(); ++i)
            out += std::string(out.empty() ? "" : " ") +
                   std::string(r.timeline->names.name(t->nameId[i])) + "@" +
                   std::to_string((t->localStart[i] - t0ns) / 1000) + "-" +
                   std::to_string((t->localEnd[i] - t0ns) / 1000) + ":" +
                   std::to_string(t->depth[i]);
        return out;
    };
    const auto lane0 = names(async[0]), lane1 = names(async[1]);
    const auto openEnd = std::to_string((w.info.lastLocalNs - t0ns) / 1000);
    QCOMPARE(
        QString::fromStdString(lane0),
        QString::fromStdString("allreduce@0-80:0 chunk@10-30:1 allreduce@200-" + openEnd + ":0"));
    QCOMPARE(QString::fromStdString(lane1), QStringLiteral("allreduce@40-120:0 progress@60-60:1"));
    QVERIFY(async[0]->threadName.ends_with("#1") && async[1]->threadName.ends_with("#2"));
    QVERIFY(async[0]->flags[2] & EventOpen);
    QVERIFY(async[1]->flags[1] & EventInstant);
    QVERIFY(async[0]->flags[0] & EventHasArgs);
    QVERIFY(findProblem(*r.timeline, LoadProblem::Kind::AsyncEndWithoutBegin, "1 async end(s)"));
    QVERIFY(findProblem(*r.timeline, LoadProblem::Kind::AsyncWithoutId, "\"noid\""));
    QVERIFY(!findProblem(*r.timeline, LoadProblem::Kind::UnsupportedPhase, "phase 'C'"));
    QVERIFY(!findProblem(*r.timeline, LoadProblem::Kind::UnsupportedPhase, "phase 'b'"));
}

void TstCounters::asyncLanesNeverOverlap()
{
    // Random spans: no two spans of a lane overlap, and a span only opens a new lane when it
    // overlaps a span of every lane before it.
    std::mt19937 rng(17);
    std::vector<load::AsyncSpan> spans;
    for (uint32_t i = 0; i < 400; ++i) {
        const int64_t s = int64_t(rng() % 10000);
        const int64_t len = (i % 10 == 0) ? 0 : int64_t(rng() % 800);
        spans.push_back({s, s + len, i});
    }
    uint32_t lanes = 0;
    const std::vector<uint32_t> lane = load::AsyncLanes::assign(spans, &lanes);
    QVERIFY(lanes > 1);
    QVERIFY(lanes < 40);
    for (size_t i = 0; i < spans.size(); ++i)
        for (size_t j = 0; j < i; ++j) {
            if (lane[i] != lane[j])
                continue;
            const auto &a = spans[j], &c = spans[i]; // a starts no later than c
            const bool disjoint = c.end > c.start ? c.start >= a.end : c.start > a.end;
            QVERIFY2(disjoint, qPrintable(QStringLiteral("spans %1 and %2 collide").arg(j).arg(i)));
        }
    // Greedy: span i is in lane L > 0 only when some span of each lane < L overlaps it.
    for (size_t i = 0; i < spans.size(); ++i)
        for (uint32_t l = 0; l < lane[i]; ++l) {
            bool blocked = false;
            for (size_t j = 0; j < i && !blocked; ++j)
                blocked = lane[j] == l &&
                          (spans[i].end > spans[i].start ? spans[j].end > spans[i].start
                                                         : spans[j].end >= spans[i].start);
            QVERIFY(blocked);
        }
}

void TstCounters::attachedTraceCountersFollowTheWorkersClock()
{
    // A rank-0 log whose host wall clock is 1 ms ahead of its anchor-less truth: the trace's
    // events and counters are moved by the same shift onto the log's clock.
    const std::string original =
        readAll(testdata::dir() + "/hta_sampled_kineto_2rank/sampled_rank-0.json");
    const int64_t t0 = 1682725898236567;
    const std::string extra =
        "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 4037, \"ts\": " + std::to_string(t0) +
        ", \"args\": {\"bytes\": 5}},\n";
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::write(d + "/sampled_rank-0.json", withEvents(original, extra));
    const int64_t wall0 = (t0 - 1000) * 1000, mono0 = 42'000'000'000;
    std::string log = testlogs::header(0, 0, "node-a", mono0, wall0) +
                      testlogs::begin(mono0 + 10, 1, "step") +
                      testlogs::end(mono0 + 2'000'000'000, 1, "step");
    std::string h = log.substr(0, log.find('\n'));
    log.replace(0, h.size(), std::string(h).replace(h.find("\"pid\":100"), 9, "\"pid\":4037"));
    testlogs::write(d + "/timer_events.0.log", log);
    const LoadResult r = loadPaths({d});
    QVERIFY(r.timeline);
    QCOMPARE(r.timeline->workers.size(), size_t(1));
    const Worker &w = r.timeline->workers[0];
    QCOMPARE(w.info.attachedTraces.size(), size_t(1));
    const CounterTrack *mem = counterNamed(w, "mem · bytes");
    QVERIFY(mem);
    // local = wall + (mono0 − wall0)
    QCOMPARE(mem->localTs, (std::vector<int64_t>{t0 * 1000 + mono0 - wall0}));
    // The corrected map places it where the worker's own events of that time go.
    QCOMPARE(r.timeline->toGlobal(0, mem->localTs[0], ClockMode::Raw), t0 * 1000);
}

QTEST_APPLESS_MAIN(TstCounters)
#include "tst_counters.moc"
