// Stats (count, total, mean, nearest-rank percentiles, max; per rank and over all ranks; range
// queries) and Stragglers, on generated logs with hand-computed expectations.
#include "tests/common/testdata.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/legendorder.h"
#include "timeline/report/rankoutliers.h"
#include "timeline/report/stats.h"
#include "timeline/report/stragglers.h"

#include <QtTest>

using namespace syncline;

namespace {

// rank 0: "step" lasting 10, 20, 30, 40 µs starting every 100 µs; rank 1: one "step" of 50 µs;
// plus an open "hang" on rank 1 and an instant (neither counted).
std::shared_ptr<Timeline> makeJob(QTemporaryDir &dir)
{
    const std::string d = dir.path().toStdString();
    std::string r0 = testlogs::header(0);
    for (int i = 0; i < 4; ++i)
        r0 += testlogs::begin(100000 * (i + 1), 1, "step") +
              testlogs::end(100000 * (i + 1) + 10000 * (i + 1), 1, "step");
    testlogs::write(d + "/w.0.log", r0);
    testlogs::write(d + "/w.1.log",
                    testlogs::header(1) + testlogs::begin(100000, 1, "step") +
                        testlogs::end(150000, 1, "step") + testlogs::begin(160000, 1, "hang") +
                        "{\"t\":\"I\",\"ts\":170000,\"tid\":1,\"name\":\"mark\"}\n");
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    return JobLoader::load(o).timeline;
}

} // namespace

class TstStats : public QObject
{
    Q_OBJECT

private slots:
    void percentile_data();
    void percentile();
    void perRankAndAll();
    void rangeQuery();
    void explicitModeWins();
    void stragglers();
    void stragglersPerGeneration();
    void kinetoTotals();
    void legendOrder();
    void rankOutliers();
};

void TstStats::percentile_data()
{
    QTest::addColumn<std::vector<int64_t>>("values");
    QTest::addColumn<double>("p");
    QTest::addColumn<int64_t>("expected");
    QTest::newRow("empty") << std::vector<int64_t>{} << 50.0 << int64_t(0);
    QTest::newRow("one") << std::vector<int64_t>{7} << 99.0 << int64_t(7);
    QTest::newRow("p50 of 4") << std::vector<int64_t>{40, 10, 30, 20} << 50.0 << int64_t(20);
    QTest::newRow("p50 of 5") << std::vector<int64_t>{50, 40, 10, 30, 20} << 50.0 << int64_t(30);
    QTest::newRow("p95 of 20") << std::vector<int64_t>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
                               << 95.0 << int64_t(19);
    QTest::newRow("p99 of 100 → 99th") << [] {
        std::vector<int64_t> v;
        for (int i = 100; i >= 1; --i)
            v.push_back(i);
        return v;
    }() << 99.0 << int64_t(99);
}

void TstStats::percentile()
{
    QFETCH(std::vector<int64_t>, values);
    QFETCH(double, p);
    QFETCH(int64_t, expected);
    QCOMPARE(Stats::percentile(values, p), expected);
}

void TstStats::perRankAndAll()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir);
    QVERIFY(tl);
    const auto rows = Stats::compute(*tl);
    QCOMPARE(rows.size(), size_t(3)); // step: all, rank 0, rank 1 (hang open, mark instant: none)
    const StatsRow &all = rows[0];
    QCOMPARE(tl->names.name(all.nameId), std::string_view("step"));
    QVERIFY(!all.rank);
    QCOMPARE(all.count, int64_t(5));
    QCOMPARE(all.totalNs, int64_t(150000));
    QCOMPARE(all.meanNs, int64_t(30000));
    QCOMPARE(all.p50Ns, int64_t(30000));
    QCOMPARE(all.p95Ns, int64_t(50000));
    QCOMPARE(all.p99Ns, int64_t(50000));
    QCOMPARE(all.maxNs, int64_t(50000));
    QCOMPARE(*rows[1].rank, 0);
    QCOMPARE(rows[1].count, int64_t(4));
    QCOMPARE(rows[1].totalNs, int64_t(100000));
    QCOMPARE(rows[1].meanNs, int64_t(25000));
    QCOMPARE(rows[1].p50Ns, int64_t(20000));
    QCOMPARE(rows[1].p95Ns, int64_t(40000));
    QCOMPARE(*rows[2].rank, 1);
    QCOMPARE(rows[2].count, int64_t(1));
}

void TstStats::rangeQuery()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir);
    QVERIFY(tl);
    // Rank 0's 2nd and 3rd steps: [200000, 220000] and [300000, 330000] local; the raw map adds
    // the anchor offset (wall − mono) which is the same on both workers here.
    const int64_t off = tl->workers[0].raw.toGlobal(0);
    StatsQuery q;
    q.useRange = true;
    q.beginNs = off + 210000;
    q.endNs = off + 300000;
    const auto rows = Stats::compute(*tl, q);
    QCOMPARE(rows.size(), size_t(2)); // all + rank 0 (rank 1's step ended at 150000)
    QCOMPARE(rows[0].count, int64_t(2));
    QCOMPARE(rows[0].totalNs, int64_t(50000)); // whole durations of overlapping events
    q.beginNs = off + 400000;
    q.endNs = off + 400001;
    QCOMPARE(Stats::compute(*tl, q).size(), size_t(2)); // the 4th step [400000, 440000]
    q.beginNs = off + 441000;
    q.endNs = off + 500000;
    QCOMPARE(Stats::compute(*tl, q).size(), size_t(0));
}

void TstStats::stragglers()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    // ends per step k: rank0 {100,200,300}, rank1 {130,260,310}, rank2 {110,205,390} (µs)
    const int64_t ends[3][3] = {{100, 200, 300}, {130, 260, 310}, {110, 205, 390}};
    for (int r = 0; r < 3; ++r) {
        std::string text = testlogs::header(r);
        for (int k = 0; k < 3; ++k)
            text += testlogs::begin(k * 100000 + 50000, 1, "train_step") +
                    testlogs::end(ends[r][k] * 1000, 1, "train_step");
        text += testlogs::begin(1000, 1, "only_rank_" + std::to_string(r)) +
                testlogs::end(2000, 1, "only_rank_" + std::to_string(r));
        testlogs::write(d + "/w." + std::to_string(r) + ".log", text);
    }
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    const auto rows = Stragglers::compute(*tl, ClockMode::Corrected);
    QCOMPARE(rows.size(), size_t(1));
    const StragglerRow &s = rows[0];
    QCOMPARE(tl->names.name(s.nameId), std::string_view("train_step"));
    QCOMPARE(s.instances, int64_t(3));
    QCOMPARE(s.ranks, 3);
    // k=0: rank1 last, median 110 → lag 20; k=1: rank1 last, median 205 → 55; k=2: rank2, 310 → 80
    QCOMPARE(s.slowestRank, 1);
    QCOMPARE(s.timesLast, int64_t(2));
    QCOMPARE(s.meanLagNs, int64_t((20000 + 55000) / 2));
    QCOMPARE(Stragglers::compute(*tl, ClockMode::Corrected, "eval*").size(), size_t(0));
}

// An elastic restart: restart 0 ran 3 steps on rank 0 and 2 on rank 1 (it crashed), restart 1
// ran 2 on each. Counted per generation, restart 1's steps are step-like (rank 1 last both
// times) although rank 1's two incarnations together have 4 steps and rank 0's 5; restart 0's
// unequal counts are left out instead of making the whole name unusable.
void TstStats::stragglersPerGeneration()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    auto log = [&](int rank, int restart, int steps, int64_t late) {
        std::string text = testlogs::header(rank, restart);
        for (int k = 0; k < steps; ++k)
            text += testlogs::begin(k * 100000 + 1000, 1, "step") +
                    testlogs::end(k * 100000 + 50000 + late, 1, "step");
        testlogs::write(d + "/w." + std::to_string(rank) + (restart ? ".r1" : "") + ".log", text);
    };
    log(0, 0, 3, 0);
    log(1, 0, 2, 0);
    log(0, 1, 2, 0);
    log(1, 1, 2, 7000);
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    QCOMPARE(tl->workers.size(), size_t(4));
    const auto rows = Stragglers::compute(*tl, ClockMode::Corrected);
    QCOMPARE(rows.size(), size_t(1));
    QCOMPARE(rows[0].instances, int64_t(2));
    QCOMPARE(rows[0].ranks, 2);
    QCOMPARE(rows[0].slowestRank, 1);
    QCOMPARE(rows[0].timesLast, int64_t(2));
    QCOMPARE(rows[0].meanLagNs, int64_t(7000)); // lower median of two ends is rank 0's
}

void TstStats::kinetoTotals()
{
    LoadOptions o;
    o.paths = {testdata::dir() + "/hta_sampled_kineto_2rank"};
    auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    int64_t count = 0, total = 0;
    for (const StatsRow &r : Stats::compute(*tl))
        if (!r.rank) {
            count += r.count;
            total += r.totalNs;
        }
    QCOMPARE(count, int64_t(4811 + 4676));
    QCOMPARE(total, int64_t(7917027000 + 8020966000));
}

// query.mode chooses the clock maps (the Timeline holds no mode; callers pass it by value).
// Rank 0's corrected map runs at slope 1.5: corrected durations are 1.5× the raw ones.
void TstStats::explicitModeWins()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir);
    QVERIFY(tl);
    tl->workers[0].corrected = sync::ClockMap({sync::ClockSegment{0, 0, 1.5, 0, 0, 0}});
    StatsQuery q;
    q.mode = ClockMode::Corrected;
    const auto corrected = Stats::compute(*tl, q);
    QCOMPARE(corrected.size(), size_t(3));
    QCOMPARE(*corrected[1].rank, 0);
    QCOMPARE(corrected[1].totalNs, int64_t(150000)); // 1.5 × (10+20+30+40) µs
    QCOMPARE(corrected[2].totalNs, int64_t(50000));  // rank 1: identity either way
    q.mode = ClockMode::Raw;
    QCOMPARE(Stats::compute(*tl, q)[1].totalNs, int64_t(100000));
    QCOMPARE(Stats::compute(*tl)[1].totalNs, int64_t(150000)); // the default: corrected
}

// The legend's one order: all-rank rows by total, most first, ties by name id; per-rank rows
// are ignored.
void TstStats::legendOrder()
{
    std::vector<StatsRow> rows(5);
    rows[0].nameId = 4, rows[0].totalNs = 4000;
    rows[1].nameId = 2, rows[1].totalNs = 9000;
    rows[2].nameId = 1, rows[2].totalNs = 4000;
    rows[3].nameId = 7, rows[3].totalNs = 99000, rows[3].rank = 3; // per rank: not in the legend
    rows[4].nameId = 5, rows[4].totalNs = 0;
    QCOMPARE(LegendOrder::byTotal(rows), (std::vector<uint32_t>{2, 1, 4, 5}));
    QVERIFY(LegendOrder::byTotal({}).empty());
}

// The viewer's straggler rule (median + 3·MAD of per-rank means), with its worked example.
void TstStats::rankOutliers()
{
    int64_t limit = -1;
    const auto flags = RankOutliers::flag({10, 11, 10, 12, 30}, &limit);
    QCOMPARE(limit, int64_t(14));
    QCOMPARE(flags, (std::vector<bool>{false, false, false, false, true}));
    QCOMPARE(RankOutliers::lowerMedian({4, 1, 3, 2}), int64_t(2));
    QCOMPARE(RankOutliers::flag({5, 5, 5}, nullptr), (std::vector<bool>{false, false, false}));
}

QTEST_APPLESS_MAIN(TstStats)
#include "tst_stats.moc"
