// Stats (count, total, mean, nearest-rank percentiles, max; per rank and over all ranks; range
// queries) and the straggler rule (RankOutliers), on generated logs with hand-computed expectations.
#include "tests/common/testdata.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/legendorder.h"
#include "timeline/report/rankoutliers.h"
#include "timeline/report/stats.h"

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

// The one straggler rule over a real load: rank 1 is 30 % slower (flagged), rank 2 4 % slower
// with MAD 0 — under the 10 % minimum difference, not flagged.
void TstStats::stragglers()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const int64_t dur[4] = {1000000, 1300000, 1040000, 1000000}; // ns per step
    for (int r = 0; r < 4; ++r) {
        std::string text = testlogs::header(r);
        for (int k = 0; k < 3; ++k)
            text += testlogs::begin(k * 10000000 + 1000, 1, "train_step") +
                    testlogs::end(k * 10000000 + 1000 + dur[r], 1, "train_step");
        text += testlogs::begin(1000, 2, "only_rank_" + std::to_string(r)) +
                testlogs::end(2000, 2, "only_rank_" + std::to_string(r));
        testlogs::write(d + "/w." + std::to_string(r) + ".log", text);
    }
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    const auto rows = RankOutliers::compute(Stats::compute(*tl));
    QCOMPARE(rows.size(), size_t(1));
    const RankStragglers &s = rows[0];
    QCOMPARE(tl->names.name(s.nameId), std::string_view("train_step"));
    QCOMPARE(s.ranks, 4);
    QCOMPARE(s.medianNs, int64_t(1000000));
    // MAD = lower median of {0, 300000, 40000, 0} = 0 → the 10 % minimum: 1.1 ms.
    QCOMPARE(s.thresholdNs, int64_t(1100000));
    QCOMPARE(s.slow.size(), size_t(1));
    QCOMPARE(s.slow[0].first, 1);
    QCOMPARE(s.slow[0].second, int64_t(1300000));
}

void TstStats::kinetoTotals()
{
    LoadOptions o;
    o.paths = {testdata::dir() + "/hta_sampled_kineto_2rank"};
    // The traces' own durations: uncorrected (aligned on their collectives, as a default load
    // does, a rank's durations scale by its fitted rate).
    o.correctClocks = false;
    auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    int64_t count = 0, total = 0;
    for (const StatsRow &r : Stats::compute(*tl))
        if (!r.rank) {
            count += r.count;
            total += r.totalNs;
        }
    // Every event but the profiler's own span of each rank ("PyTorch Profiler (0)").
    int64_t spans = 0, spanNs = 0;
    for (const Worker &w : tl->workers)
        for (const EventTrack &t : w.tracks)
            for (size_t i = 0; i < t.count(); ++i)
                if (t.flags[i] & EventProfilerSpan) {
                    ++spans;
                    spanNs += t.localEnd[i] - t.localStart[i];
                }
    QCOMPARE(spans, int64_t(2));
    QCOMPARE(count, int64_t(4811 + 4676 - 2));
    QCOMPARE(total, int64_t(7917027000 + 8020966000) - spanNs);
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

// The straggler rule (median + max(3·MAD, 50 µs, 10 %) of per-rank means), worked examples.
void TstStats::rankOutliers()
{
    int64_t limit = -1;
    const auto flags = RankOutliers::flag({10000000, 11000000, 10000000, 12000000, 30000000}, &limit);
    QCOMPARE(limit, int64_t(14000000));
    QCOMPARE(flags, (std::vector<bool>{false, false, false, false, true}));
    QCOMPARE(RankOutliers::lowerMedian({4, 1, 3, 2}), int64_t(2));
    QCOMPARE(RankOutliers::flag({5, 5, 5}, nullptr), (std::vector<bool>{false, false, false}));
    // The minimum difference: ranks agreeing within a few % are never stragglers, however small
    // the MAD (64 ranks at ~999 µs, one at 1004 µs).
    std::vector<int64_t> close(64, 999000);
    close[5] = 1004000;
    close[9] = 1000000;
    QCOMPARE(RankOutliers::flag(close, &limit), std::vector<bool>(64, false));
    QCOMPARE(limit, int64_t(999000 + 99900));
    // Absolute minimum: 10 µs events, one at 40 µs (4×) but only 30 µs slower → not flagged;
    // one at 70 µs → flagged (median 10 µs + 50 µs).
    QCOMPARE(RankOutliers::flag({10000, 10000, 40000, 10000}, &limit),
             (std::vector<bool>{false, false, false, false}));
    QCOMPARE(limit, int64_t(60000));
    QCOMPARE(RankOutliers::flag({10000, 10000, 70000, 10000}, nullptr),
             (std::vector<bool>{false, false, true, false}));
}

QTEST_APPLESS_MAIN(TstStats)
#include "tst_stats.moc"
