// Compare (per-name and per-rank deltas of two runs, impact order, ranks in one run only),
// CompareAnchor (parse, k-th instance per rank, the earliest rank), CompareTimeline (stacked /
// interleaved order, "B · rank N" labels, B shifted onto A's anchor, names remapped) and
// CompareExporter (the JSON shape and the CSV header of docs/cli.md), on constructed runs whose
// differences are known by hand.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/compare.h"
#include "timeline/report/compareanchor.h"
#include "timeline/report/compareexporter.h"
#include "timeline/report/comparetimeline.h"
#include "timeline/report/countercsvexporter.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/stats.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace syncline;

namespace {

constexpr int64_t kWallA = 1700000000000000000LL;
constexpr int64_t kWallB = 1700000100000000000LL; // B ran 100 s later

std::string step(int64_t ts, int64_t dur, const std::string &name = "step")
{
    return testlogs::begin(ts, 1, name) + testlogs::end(ts + dur, 1, name);
}

std::shared_ptr<Timeline> load(const std::string &dir)
{
    LoadOptions o;
    o.paths = {dir};
    o.correctClocks = false;
    return JobLoader::load(o).timeline;
}

// Run A — rank 0: "step" of 10, 20, 30, 40 µs starting every 100 µs, each of the first two
// holding a 5 µs "fwd"; rank 1: two steps of 50 µs.
std::shared_ptr<Timeline> runA(QTemporaryDir &dir)
{
    const std::string d = dir.path().toStdString() + "/a";
    QDir().mkpath(QString::fromStdString(d));
    std::string r0 = testlogs::header(0, 0, "node-a", 1000, kWallA);
    for (int i = 0; i < 4; ++i) {
        const int64_t t = 100000 * (i + 1);
        r0 += testlogs::begin(t, 1, "step");
        if (i < 2)
            r0 += step(t + 1000, 5000, "fwd");
        r0 += testlogs::end(t + 10000 * (i + 1), 1, "step");
    }
    testlogs::write(d + "/w.0.log", r0);
    testlogs::write(d + "/w.1.log", testlogs::header(1, 0, "node-a", 1000, kWallA) +
                                        step(100000, 50000) + step(200000, 50000));
    return load(d);
}

// Run B — rank 0: steps of 20, 20, 40, 40 µs every 300 µs, the first holding a 3 µs "bwd";
// rank 2 (not in A): one step of 60 µs. Rank 1 is missing.
std::shared_ptr<Timeline> runB(QTemporaryDir &dir)
{
    const std::string d = dir.path().toStdString() + "/b";
    QDir().mkpath(QString::fromStdString(d));
    std::string r0 = testlogs::header(0, 0, "node-b", 1000, kWallB);
    const int64_t dur[] = {20000, 20000, 40000, 40000};
    for (int i = 0; i < 4; ++i) {
        const int64_t t = 300000 * (i + 1);
        r0 += testlogs::begin(t, 1, "step");
        if (i == 0)
            r0 += step(t + 1000, 3000, "bwd");
        r0 += testlogs::end(t + dur[i], 1, "step");
    }
    testlogs::write(d + "/w.0.log", r0);
    testlogs::write(d + "/w.2.log",
                    testlogs::header(2, 0, "node-b", 1000, kWallB) + step(100000, 60000));
    return load(d);
}

} // namespace

class TstCompare : public QObject
{
    Q_OBJECT

private slots:
    void deltasAndImpactOrder();
    void ranksInOneRunOnly();
    void sameRunHasNoDelta();
    void anchorParse_data();
    void anchorParse();
    void anchorFind();
    void combinedOrderAndShift();
    void jsonShape();
    void csvHeaderAndRows();
    void statsOfCombinedArePerRun();
    void statsDoNotDependOnThreads();
    void eventsCsvOfCombinedMarksRun();
};

void TstCompare::deltasAndImpactOrder()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    CompareQuery q;
    q.mode = ClockMode::Raw;
    const CompareResult r = Compare::compute(*a, *b, q);
    // Names by |Δ total|: step (200 → 180 µs: −20), fwd (A only: −10), bwd (B only: +3).
    std::vector<std::string> names;
    for (const CompareRow &row : r.rows)
        if (!row.rank)
            names.push_back(row.name);
    QCOMPARE(names, (std::vector<std::string>{"step", "fwd", "bwd"}));
    const CompareRow &s = r.rows[0];
    QCOMPARE(s.name, std::string("step"));
    QVERIFY(!s.rank);
    QVERIFY(s.in == CompareRow::In::Both);
    QCOMPARE(s.a.count, int64_t(6));
    QCOMPARE(s.b.count, int64_t(5));
    QCOMPARE(s.a.totalNs, int64_t(200000));
    QCOMPARE(s.b.totalNs, int64_t(180000));
    QCOMPARE(s.deltaTotalNs(), int64_t(-20000));
    QCOMPARE(s.a.meanNs, int64_t(33333));
    QCOMPARE(s.b.meanNs, int64_t(36000));
    // Nearest rank: A {10,20,30,40,50,50} → p50 3rd = 30, p99 6th = 50; B {20,20,40,40,60}.
    QCOMPARE(s.a.p50Ns, int64_t(30000));
    QCOMPARE(s.a.p99Ns, int64_t(50000));
    QCOMPARE(s.b.p50Ns, int64_t(40000));
    QCOMPARE(s.b.p99Ns, int64_t(60000));
    QCOMPARE(CompareRow::ratio(s.a.totalNs, s.b.totalNs), 0.9);
    QVERIFY(std::isnan(CompareRow::ratio(0, 5)));
    // The same percentiles as Stats (one truth) on each side.
    StatsQuery raw;
    raw.mode = ClockMode::Raw;
    const auto statsA = Stats::compute(*a, raw);
    const auto stepA = std::find_if(statsA.begin(), statsA.end(), [&](const StatsRow &x) {
        return !x.rank && a->names.name(x.nameId) == "step";
    });
    QVERIFY(stepA != statsA.end());
    QCOMPARE(stepA->p99Ns, s.a.p99Ns);
    QCOMPARE(stepA->p50Ns, s.a.p50Ns);
    // step's per-rank rows by |Δ total|: rank 1 (A only, −100), rank 2 (B only, +60), rank 0 (+20).
    QCOMPARE(*r.rows[1].rank, 1);
    QVERIFY(r.rows[1].in == CompareRow::In::OnlyA);
    QCOMPARE(r.rows[1].deltaTotalNs(), int64_t(-100000));
    QCOMPARE(*r.rows[2].rank, 2);
    QVERIFY(r.rows[2].in == CompareRow::In::OnlyB);
    QCOMPARE(r.rows[2].b.totalNs, int64_t(60000));
    QCOMPARE(*r.rows[3].rank, 0);
    QCOMPARE(r.rows[3].deltaTotalNs(), int64_t(20000));
    QCOMPARE(r.rows[3].deltaMeanNs(), int64_t(5000));
    QCOMPARE(r.rows[3].deltaP50Ns(), int64_t(0)); // 20 → 20
    QCOMPARE(r.rows[3].deltaP99Ns(), int64_t(0)); // 40 → 40
    QCOMPARE(r.rows[3].deltaCount(), int64_t(0));
    // fwd: A only, over all ranks and on rank 0.
    QCOMPARE(r.rows[4].name, std::string("fwd"));
    QVERIFY(r.rows[4].in == CompareRow::In::OnlyA);
    QCOMPARE(r.rows[4].a.totalNs, int64_t(10000));
    QCOMPARE(r.rows[4].b.count, int64_t(0));
    QCOMPARE(r.rows.size(), size_t(4 + 2 + 2));
    // Summary: the step name found by itself ("step" is in both runs).
    QCOMPARE(r.stepName, std::string("step"));
    QVERIFY(r.stepRow() == &r.rows[0]);
    QVERIFY(QString::fromStdString(r.summaryLine())
                .startsWith("step 'step': mean 0.033 ms (A) vs 0.036 ms (B), +0.003 ms (x1.080)"));
    QCOMPARE(r.spanANs, int64_t(440000 - 100000));
    QCOMPARE(r.spanBNs, int64_t(1240000 - 100000));
}

void TstCompare::ranksInOneRunOnly()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    const CompareResult r = Compare::compute(*a, *b, {ClockMode::Raw, {}});
    QCOMPARE(r.ranksA, (std::vector<int>{0, 1}));
    QCOMPARE(r.ranksB, (std::vector<int>{0, 2}));
    QCOMPARE(r.onlyA, (std::vector<int>{1}));
    QCOMPARE(r.onlyB, (std::vector<int>{2}));
}

void TstCompare::sameRunHasNoDelta()
{
    QTemporaryDir dir;
    auto a = runA(dir);
    auto a2 = runA(dir);
    QVERIFY(a && a2);
    const CompareResult r = Compare::compute(*a, *a2, {ClockMode::Raw, {}});
    QVERIFY(!r.rows.empty());
    for (const CompareRow &row : r.rows) {
        QVERIFY(row.in == CompareRow::In::Both);
        QCOMPARE(row.deltaTotalNs(), int64_t(0));
        QCOMPARE(row.deltaP99Ns(), int64_t(0));
        QCOMPARE(CompareRow::ratio(row.a.meanNs, row.b.meanNs), 1.0);
    }
    QVERIFY(r.onlyA.empty() && r.onlyB.empty());
}

void TstCompare::anchorParse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("k");
    QTest::newRow("start") << "start" << true << "" << 1;
    QTest::newRow("name") << "train_step" << true << "train_step" << 1;
    QTest::newRow("name:k") << "step:3" << true << "step" << 3;
    QTest::newRow("colon in name") << "ns::step:2" << true << "ns::step" << 2;
    QTest::newRow("trailing colon, no digits") << "a:b" << true << "a:b" << 1;
    QTest::newRow("k = 0") << "step:0" << false << "" << 0;
    QTest::newRow("empty name") << ":2" << false << "" << 0;
    QTest::newRow("empty") << "" << false << "" << 0;
}

void TstCompare::anchorParse()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, name);
    QFETCH(int, k);
    CompareAnchor a;
    std::string error;
    QCOMPARE(CompareAnchor::parse(text.toStdString(), &a, &error), ok);
    if (!ok) {
        QVERIFY2(error.find("expected start, NAME or NAME:K") != std::string::npos, error.c_str());
        return;
    }
    QCOMPARE(QString::fromStdString(a.name), name);
    QCOMPARE(a.k, k);
    QCOMPARE(a.byStart(), name.isEmpty());
}

void TstCompare::anchorFind()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    const int64_t offA = kWallA - 1000, offB = kWallB - 1000; // raw: wall + local − mono
    CompareAnchor start;
    QCOMPARE(*start.find(*a, ClockMode::Raw, nullptr), offA + 100000);
    CompareAnchor s2{"step", 2};
    // A: 2nd step at 200 µs on both ranks; B: rank 0's at 600 µs, rank 2 has only one.
    QCOMPARE(*s2.find(*a, ClockMode::Raw, nullptr), offA + 200000);
    QCOMPARE(*s2.find(*b, ClockMode::Raw, nullptr), offB + 600000);
    CompareAnchor s1{"step", 1};
    // B: the earliest rank's 1st step is rank 2's at 100 µs (rank 0's is at 300 µs).
    QCOMPARE(*s1.find(*b, ClockMode::Raw, nullptr), offB + 100000);
    std::string why;
    CompareAnchor s5{"step", 5};
    QVERIFY(!s5.find(*a, ClockMode::Raw, &why));
    QCOMPARE(why, std::string("no rank has a 5th 'step' (at most 4 per rank)"));
    CompareAnchor none{"nope", 1};
    QVERIFY(!none.find(*a, ClockMode::Raw, &why));
    QCOMPARE(why, std::string("no event named 'nope'"));
}

void TstCompare::combinedOrderAndShift()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    const CompareAnchor s2{"step", 2};
    CompareShift shift;
    shift.rawNs = *s2.find(*a, ClockMode::Raw, nullptr) - *s2.find(*b, ClockMode::Raw, nullptr);
    shift.correctedNs =
        *s2.find(*a, ClockMode::Corrected, nullptr) - *s2.find(*b, ClockMode::Corrected, nullptr);
    auto labels = [](const Timeline &t) {
        std::vector<std::string> out;
        for (const Worker &w : t.workers)
            out.push_back(w.label());
        return out;
    };
    const auto stacked = CompareTimeline::combine(*a, *b, shift, CompareLayout::Stacked);
    QCOMPARE(labels(*stacked), (std::vector<std::string>{"A · rank 0 · node-a · restart 0",
                                                         "A · rank 1 · node-a · restart 0",
                                                         "B · rank 0 · node-b · restart 0",
                                                         "B · rank 2 · node-b · restart 0"}));
    const auto inter = CompareTimeline::combine(*a, *b, shift, CompareLayout::Interleaved);
    QCOMPARE(labels(*inter), (std::vector<std::string>{"A · rank 0 · node-a · restart 0",
                                                       "B · rank 0 · node-b · restart 0",
                                                       "A · rank 1 · node-a · restart 0",
                                                       "B · rank 2 · node-b · restart 0"}));
    // No duplicate-rank problem: B's ranks are a separate run.
    for (const LoadProblem &p : inter->problems)
        QVERIFY2(p.kind != LoadProblem::Kind::DuplicateRank, p.message.c_str());
    // Aligned: B rank 0's 2nd step starts where A's 2nd steps start, in both clock modes.
    for (ClockMode mode : {ClockMode::Raw, ClockMode::Corrected}) {
        const Worker &b0 = inter->workers[1];
        const EventTrack &t = b0.tracks[0];
        int nth = 0;
        int64_t startB = 0;
        for (size_t i = 0; i < t.count(); ++i)
            if (inter->names.name(t.nameId[i]) == "step" && ++nth == 2)
                startB = b0.map(mode).toGlobal(t.localStart[i]);
        QCOMPARE(startB, *s2.find(*a, mode, nullptr));
    }
    // B's names remapped into the combined table: B rank 0's second event is "bwd".
    QCOMPARE(inter->names.name(inter->workers[1].tracks[0].nameId[1]), std::string_view("bwd"));
    QCOMPARE(inter->names.name(inter->workers[0].tracks[0].nameId[1]), std::string_view("fwd"));
    QCOMPARE(inter->eventCount(), a->eventCount() + b->eventCount());
    // The combined range spans both runs' aligned events: B's rank 2 step starts 500 µs before
    // B's anchor, i.e. 300 µs before A's first record's time base (A's anchor is at 200 µs).
    QCOMPARE(inter->range(ClockMode::Raw).begin, kWallA - 1000 + 200000 - 500000);
}

void TstCompare::jsonShape()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    CompareInfo info;
    info.mode = ClockMode::Raw;
    info.a = CompareRunInfo::of(*a, info.mode);
    info.b = CompareRunInfo::of(*b, info.mode);
    info.pathsA = {"runs/a"};
    info.pathsB = {"runs/b"};
    info.anchor = {"step", 2};
    info.anchorANs = *info.anchor.find(*a, info.mode, nullptr);
    info.anchorBNs = *info.anchor.find(*b, info.mode, nullptr);
    const CompareResult r = Compare::compute(*a, *b, {info.mode, info.anchor});
    std::ostringstream out;
    CompareExporter::writeJson(r, info, out);
    const auto j = nlohmann::json::parse(out.str());
    QCOMPARE(j["format"].get<std::string>(), std::string("syncline-compare/1"));
    QCOMPARE(j["clock_mode"].get<std::string>(), std::string("raw"));
    QCOMPARE(j["a"]["paths"][0].get<std::string>(), std::string("runs/a"));
    QCOMPARE(j["a"]["workers"].get<int>(), 2);
    QCOMPARE(j["b"]["ranks"], nlohmann::json::parse("[0, 2]"));
    QCOMPARE(j["ranks"]["only_a"], nlohmann::json::parse("[1]"));
    QCOMPARE(j["ranks"]["only_b"], nlohmann::json::parse("[2]"));
    QCOMPARE(j["anchor"]["spec"].get<std::string>(), std::string("step:2"));
    QCOMPARE(j["anchor"]["k"].get<int>(), 2);
    QCOMPARE(j["anchor"]["a_ns"].get<int64_t>(), int64_t(100000)); // from A's origin (100 µs)
    QCOMPARE(j["anchor"]["b_ns"].get<int64_t>(), int64_t(500000)); // B's origin: 100 µs
    QCOMPARE(j["anchor"]["shift_ns"].get<int64_t>(), (kWallA + 200000) - (kWallB + 600000));
    QCOMPARE(j["summary"]["step"].get<std::string>(), std::string("step"));
    QCOMPARE(j["summary"]["delta_mean_ns"].get<int64_t>(), int64_t(2667));
    QCOMPARE(j["deltas"].size(), r.rows.size());
    const auto &first = j["deltas"][0];
    const std::vector<std::string> keys{"a", "b", "delta", "impact_ns", "in", "name", "rank",
                                        "ratio"};
    std::vector<std::string> got;
    for (auto it = first.begin(); it != first.end(); ++it)
        got.push_back(it.key());
    QCOMPARE(got, keys);
    QVERIFY(first["rank"].is_null());
    QCOMPARE(first["in"].get<std::string>(), std::string("both"));
    QCOMPARE(first["a"]["total_ns"].get<int64_t>(), int64_t(200000));
    QCOMPARE(first["delta"]["total_ns"].get<int64_t>(), int64_t(-20000));
    QCOMPARE(first["ratio"]["total"].get<double>(), 0.9);
    QCOMPARE(first["impact_ns"].get<int64_t>(), r.rows[0].impactNs());
    QCOMPARE(first["impact_ns"].get<int64_t>(),
             first["delta"]["mean_ns"].get<int64_t>() *
                 std::min(first["a"]["count"].get<int64_t>(), first["b"]["count"].get<int64_t>()));
    // Rank 1 is in A only: "b" null, its ratios against A's values are 0.
    const auto &r1 = j["deltas"][1];
    QCOMPARE(r1["rank"].get<int>(), 1);
    QCOMPARE(r1["in"].get<std::string>(), std::string("a"));
    QVERIFY(r1["b"].is_null());
    QCOMPARE(r1["ratio"]["total"].get<double>(), 0.0);
    QCOMPARE(r1["impact_ns"].get<int64_t>(), int64_t(0)); // one run only: no calls in common
    // Rank 2 is in B only: "a" null, ratios null (A is 0).
    const auto &r2 = j["deltas"][2];
    QVERIFY(r2["a"].is_null());
    QVERIFY(r2["ratio"]["mean"].is_null());
    QCOMPARE(r2["delta"]["count"].get<int>(), 1);
}

void TstCompare::csvHeaderAndRows()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    const CompareResult r = Compare::compute(*a, *b, {ClockMode::Raw, {}});
    std::ostringstream out;
    CompareExporter::writeCsv(r, out);
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    QCOMPARE(line, std::string("name,rank,in,a_count,b_count,delta_count,ratio_count,a_total_ns,"
                               "b_total_ns,delta_total_ns,ratio_total,a_mean_ns,b_mean_ns,"
                               "delta_mean_ns,ratio_mean,a_p50_ns,b_p50_ns,delta_p50_ns,ratio_p50,"
                               "a_p99_ns,b_p99_ns,delta_p99_ns,ratio_p99"));
    std::getline(in, line);
    QCOMPARE(line, std::string("step,,both,6,5,-1,0.833333,200000,180000,-20000,0.9,33333,36000,"
                               "2667,1.08001,30000,40000,10000,1.33333,50000,60000,10000,1.2"));
    std::getline(in, line);
    QCOMPARE(line, std::string("step,1,a,2,0,-2,0,100000,0,-100000,0,50000,0,-50000,0,50000,0,"
                               "-50000,0,50000,0,-50000,0"));
    std::getline(in, line);
    QCOMPARE(line, std::string("step,2,b,0,1,1,,0,60000,60000,,0,60000,60000,,0,60000,60000,,0,"
                               "60000,60000,"));
    int rows = 3;
    while (std::getline(in, line))
        ++rows;
    QCOMPARE(size_t(rows), r.rows.size());
}

// The Statistics panel of a comparison counts each run on its own: Stats on the combined
// timeline gives, per name, A's rows (all ranks, then ranks) then B's — each exactly the rows of
// that run alone — and rank 0 of A and rank 0 of B are never counted together.
void TstCompare::statsOfCombinedArePerRun()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    for (CompareLayout layout : {CompareLayout::Stacked, CompareLayout::Interleaved}) {
        const auto c = CompareTimeline::combine(*a, *b, {123, 456}, layout);
        const std::vector<StatsRow> rows = Stats::compute(*c);
        const std::vector<StatsRow> ra = Stats::compute(*a), rb = Stats::compute(*b);
        // Expected: by name; per name A's rows, then B's.
        std::vector<
            std::tuple<std::string, std::string, std::optional<int>, int64_t, int64_t, int64_t>>
            want, got;
        std::set<std::string> names;
        for (const StatsRow &r : ra)
            names.insert(std::string(a->names.name(r.nameId)));
        for (const StatsRow &r : rb)
            names.insert(std::string(b->names.name(r.nameId)));
        for (const std::string &n : names)
            for (const auto &[run, tl, rs] :
                 {std::tuple{"A", a.get(), &ra}, std::tuple{"B", b.get(), &rb}})
                for (const StatsRow &r : *rs)
                    if (tl->names.name(r.nameId) == n)
                        want.emplace_back(n, run, r.rank, r.count, r.totalNs, r.p99Ns);
        for (const StatsRow &r : rows)
            got.emplace_back(std::string(c->names.name(r.nameId)), r.run, r.rank, r.count,
                             r.totalNs, r.p99Ns);
        QCOMPARE(got, want);
        // "step", rank 0: A has 4 steps (100 µs in all), B 4 (120 µs): separate rows.
        int seen = 0;
        for (const StatsRow &r : rows)
            if (c->names.name(r.nameId) == "step" && r.rank == 0) {
                QCOMPARE(r.count, int64_t(4));
                QCOMPARE(r.totalNs, r.run == "A" ? int64_t(100000) : int64_t(120000));
                ++seen;
            }
        QCOMPARE(seen, 2);
    }
}

// Stats cuts the ranks into one slice per thread: the rows are the same for any thread count
// (a job big enough to be cut: 16 ranks, 40,000 events).
void TstCompare::statsDoNotDependOnThreads()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString() + "/many";
    QDir().mkpath(QString::fromStdString(d));
    for (int rank = 0; rank < 16; ++rank) {
        std::string log = testlogs::header(rank, 0, "node-a", 1000, kWallA);
        for (int i = 0; i < 1250; ++i) {
            const int64_t t = 1000000 + int64_t(i) * 10000;
            log += testlogs::begin(t, 1, "step");
            log += step(t + 100, 1000 + (i * 7919 + rank * 104729) % 5000, "fwd");
            log += step(t + 7000, 500 + (i * 31 + rank) % 900, i % 3 ? "bwd" : "opt");
            log += testlogs::end(t + 9000 + rank, 1, "step");
        }
        testlogs::write(d + "/w." + std::to_string(rank) + ".log", log);
    }
    const auto tl = load(d);
    QVERIFY(tl);
    QCOMPARE(tl->eventCount(), size_t(16 * 1250 * 3));
    auto key = [&](const std::vector<StatsRow> &rows) {
        std::vector<std::tuple<uint32_t, std::optional<int>, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, int64_t>>
            out;
        for (const StatsRow &r : rows)
            out.emplace_back(r.nameId, r.rank, r.count, r.totalNs, r.meanNs, r.p50Ns, r.p95Ns,
                             r.p99Ns, r.maxNs);
        return out;
    };
    StatsQuery q;
    q.threads = 1;
    const auto one = key(Stats::compute(*tl, q));
    QCOMPARE(one.size(), size_t(4 * 17)); // 4 names × (all ranks + 16 ranks)
    for (size_t threads : {2, 3, 7, 32}) {
        q.threads = threads;
        QCOMPARE(key(Stats::compute(*tl, q)), one);
    }
}

// The events CSV (and the counters CSV) of a comparison end every row with its run, under the
// versioned header (docs/cli.md); a single job's files keep the version 1 header.
void TstCompare::eventsCsvOfCombinedMarksRun()
{
    QTemporaryDir dir;
    auto a = runA(dir), b = runB(dir);
    QVERIFY(a && b);
    std::ostringstream single;
    CsvExporter::write(*a, ClockMode::Raw, single);
    QCOMPARE(single.str().substr(0, single.str().find('\n')), std::string(CsvExporter::kHeader));
    const auto c = CompareTimeline::combine(*a, *b, {0, 0}, CompareLayout::Interleaved);
    std::ostringstream out;
    const int64_t rows = CsvExporter::write(*c, ClockMode::Raw, out);
    QCOMPARE(rows, int64_t(a->eventCount() + b->eventCount()));
    std::istringstream in(out.str());
    std::string line;
    std::getline(in, line);
    QCOMPARE(line, std::string(CsvExporter::kHeaderCompare));
    QCOMPARE(line, std::string(CsvExporter::kHeader) + ",run");
    std::map<std::string, int> perRun;
    std::set<std::pair<std::string, std::string>> rankRuns;
    while (std::getline(in, line)) {
        const std::string run = line.substr(line.rfind(',') + 1);
        ++perRun[run];
        rankRuns.emplace(line.substr(0, line.find(',')), run);
        QCOMPARE(std::count(line.begin(), line.end(), ','), ptrdiff_t(13));
    }
    QCOMPARE(perRun["A"], int(a->eventCount()));
    QCOMPARE(perRun["B"], int(b->eventCount()));
    QCOMPARE(perRun.size(), size_t(2));
    // Rank 0 is in both runs: its rows say which.
    QVERIFY(rankRuns.count({"0", "A"}) && rankRuns.count({"0", "B"}));
    QVERIFY(rankRuns.count({"1", "A"}) && !rankRuns.count({"1", "B"}));
    std::ostringstream counters;
    QCOMPARE(CounterCsvExporter::write(*c, ClockMode::Raw, counters), int64_t(0));
    QCOMPARE(counters.str(), std::string(CounterCsvExporter::kHeaderCompare) + "\n");
}

QTEST_APPLESS_MAIN(TstCompare)
#include "tst_compare.moc"
