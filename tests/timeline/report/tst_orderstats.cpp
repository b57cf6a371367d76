// OrderStats (the histogram selection behind Stats' percentiles) against sorting, on random data
// of many shapes; and Stats / Compare rows of random jobs, loaded from real logs, against a direct
// reading of their definition (stats.h: complete intervals, global end − start, nearest rank
// ceil(p/100 · n)-th smallest, mean = total / count toward zero; per rank, a rank's incarnations
// together, and over all ranks).
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/compare.h"
#include "timeline/report/orderstats.h"
#include "timeline/report/stats.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <limits>
#include <random>
#include <tuple>

using namespace syncline;

namespace {

// Durations of one of several shapes (each a real case: jitter around a step time, a heavy
// tail, tiny exact values, one value, values all within one histogram bucket, negatives).
int64_t draw(std::mt19937_64 &rng, int shape)
{
    switch (shape) {
    case 0: // 2 ms ± 10 %
        return 1'800'000 + int64_t(rng() % 400'000);
    case 1: { // log-uniform 1 ns .. 10 s
        const double e = std::uniform_real_distribution<double>(0, 10)(rng);
        return int64_t(std::pow(10.0, e));
    }
    case 2: // 0 .. 99 ns (exact buckets)
        return int64_t(rng() % 100);
    case 3: // constant
        return 123'456;
    case 4: // within 0.1 %: one bucket holds them all
        return 5'000'000 + int64_t(rng() % 5000);
    case 5: // negatives and positives
        return int64_t(rng() % 2'000'001) - 1'000'000;
    default: { // heavy tail: mostly 10 µs, 1 % up to an hour
        if (rng() % 100)
            return 10'000 + int64_t(rng() % 100);
        return int64_t(rng() % 3'600'000'000'000ull);
    }
    }
}

size_t nearestRank(size_t n, double p)
{
    const size_t k = size_t(std::ceil(p / 100.0 * double(n)));
    return std::clamp<size_t>(k, 1, n) - 1;
}

// The definition, read directly off the Timeline: per (name, rank) and per name, the sorted
// durations of the complete intervals.
struct Expected
{
    int64_t count = 0, total = 0, mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

Expected expected(std::vector<int64_t> d)
{
    Expected e;
    std::sort(d.begin(), d.end());
    e.count = int64_t(d.size());
    for (int64_t x : d)
        e.total += x;
    if (d.empty())
        return e;
    e.mean = e.total / e.count;
    e.p50 = d[nearestRank(d.size(), 50)];
    e.p95 = d[nearestRank(d.size(), 95)];
    e.p99 = d[nearestRank(d.size(), 99)];
    e.max = d.back();
    return e;
}

// name → rank (nullopt: all ranks) → expected row.
std::map<std::string, std::map<std::optional<int>, Expected>> definition(const Timeline &tl)
{
    std::map<std::string, std::map<std::optional<int>, std::vector<int64_t>>> d;
    for (const Worker &w : tl.workers) {
        const sync::ClockMap &map = w.map(ClockMode::Corrected);
        for (const EventTrack &t : w.tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                if (t.flags[i] & (EventOpen | EventInstant))
                    continue;
                const int64_t dur = map.toGlobal(t.localEnd[i]) - map.toGlobal(t.localStart[i]);
                auto &byRank = d[std::string(tl.names.name(t.nameId[i]))];
                byRank[w.info.rank].push_back(dur);
                byRank[std::nullopt].push_back(dur);
            }
    }
    std::map<std::string, std::map<std::optional<int>, Expected>> out;
    for (auto &[name, byRank] : d)
        for (auto &[rank, v] : byRank)
            out[name][rank] = expected(std::move(v));
    return out;
}

// A job of `ranks` ranks (rank 1 restarted once: two incarnations that count together), with
// names of different shapes on their own threads; per (rank, name) between a few and
// `perRank` events, so both selection paths (under and over OrderStats::kDirect) are taken,
// per rank and over all ranks. Durations are written as X records, starts strictly increasing.
std::shared_ptr<Timeline> randomJob(const std::string &dir, uint64_t seed, int ranks, int perRank)
{
    QDir().mkpath(QString::fromStdString(dir));
    std::mt19937_64 rng(seed);
    const char *names[] = {"step", "forward", "tiny", "const", "tight", "tail", "rare"};
    const int shapes[] = {0, 1, 2, 3, 4, 6, 1};
    for (int rank = 0; rank < ranks; ++rank)
        for (int restart = 0; restart < (rank == 1 ? 2 : 1); ++restart) {
            std::string log = testlogs::header(rank, restart, "node-a", 1000,
                                               1700000000000000000LL + restart * 2000000000000LL);
            for (int n = 0; n < 7; ++n) {
                // "rare" has a handful per rank; the others up to perRank (some ranks fewer).
                const int count =
                    n == 6 ? 1 + int(rng() % 5) : perRank / (1 + int(rng() % 3)) / (1 + restart);
                int64_t t = 1'000'000;
                for (int i = 0; i < count; ++i) {
                    const int64_t dur = std::max<int64_t>(0, draw(rng, shapes[n]));
                    log += testlogs::complete(t, dur, 1 + n, names[n]);
                    t += dur + 1 + int64_t(rng() % 1000);
                }
            }
            testlogs::write(
                dir + "/w." + std::to_string(rank) + "." + std::to_string(restart) + ".log", log);
        }
    LoadOptions o;
    o.paths = {dir};
    o.correctClocks = false;
    return JobLoader::load(o).timeline;
}

} // namespace

class TstOrderStats : public QObject
{
    Q_OBJECT

private slots:
    void bucketsNeverDecrease();
    void selectMatchesSorting();
    void totalSaturates();
    void statsMatchDefinition();
    void compareMatchesDefinition();
};

void TstOrderStats::bucketsNeverDecrease()
{
    // Around every power of two, at the type's ends, and at random.
    std::vector<int64_t> xs = {std::numeric_limits<int64_t>::min(), -1, 0, 1, 63, 64, 65,
                               std::numeric_limits<int64_t>::max()};
    for (int b = 1; b < 63; ++b)
        for (int64_t d = -2; d <= 2; ++d)
            xs.push_back((int64_t(1) << b) + d);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10000; ++i)
        xs.push_back(int64_t(rng() >> (rng() % 64)));
    std::sort(xs.begin(), xs.end());
    for (size_t i = 1; i < xs.size(); ++i)
        QVERIFY2(OrderStats::bucketOf(xs[i - 1]) <= OrderStats::bucketOf(xs[i]),
                 qPrintable(QString::number(xs[i])));
    QCOMPARE(OrderStats::bucketOf(std::numeric_limits<int64_t>::max()), OrderStats::kBuckets - 1);
    QCOMPARE(OrderStats::bucketOf(-5), 0);
    QCOMPARE(OrderStats::bucketOf(127), 128);
    QCOMPARE(OrderStats::bucketOf(128), 129);
    QCOMPARE(OrderStats::bucketOf(256), 257); // 128 buckets 1 wide for [128, 256)
    QCOMPARE(OrderStats::bucketOf(257), 257);
    QCOMPARE(OrderStats::bucketOf(258), 258);
}

void TstOrderStats::selectMatchesSorting()
{
    std::mt19937_64 rng(20261201);
    const size_t sizes[] = {1,
                            2,
                            3,
                            100,
                            OrderStats::kDirect - 1,
                            OrderStats::kDirect,
                            OrderStats::kDirect + 1,
                            10'000,
                            100'000};
    OrderStats::Scratch scratch; // reused across calls, as Stats does
    int cases = 0;
    for (size_t n : sizes)
        for (int shape = 0; shape < 8; ++shape) {
            std::vector<int64_t> v(n);
            for (int64_t &x : v)
                x = shape == 7 ? draw(rng, int(rng() % 7)) : draw(rng, shape); // 7: a mixture
            const std::vector<int64_t> before = v;
            std::vector<int64_t> sorted = v;
            std::sort(sorted.begin(), sorted.end());
            // The three percentiles Stats asks for, and other rank sets: the ends, repeats, many.
            std::vector<std::vector<size_t>> rankSets = {
                {nearestRank(n, 50), nearestRank(n, 95), nearestRank(n, 99)},
                {0, n - 1},
                {n / 2, n / 2, n / 2},
                {0, n / 3, n / 2, 2 * n / 3, n - 1}};
            std::vector<size_t> many;
            for (int i = 0; i < 8; ++i)
                many.push_back(size_t(rng() % n));
            std::sort(many.begin(), many.end());
            rankSets.push_back(many);
            for (const std::vector<size_t> &ks : rankSets) {
                std::vector<int64_t> out(ks.size(), -7);
                const OrderStats::Summary s = OrderStats::select(v, ks, out, scratch);
                for (size_t i = 0; i < ks.size(); ++i)
                    QVERIFY2(out[i] == sorted[ks[i]],
                             qPrintable(QStringLiteral("n %1 shape %2 k %3: %4, sorted %5")
                                            .arg(n)
                                            .arg(shape)
                                            .arg(ks[i])
                                            .arg(out[i])
                                            .arg(sorted[ks[i]])));
                int64_t total = 0;
                for (int64_t x : v)
                    total += x;
                QCOMPARE(s.total, total);
                QCOMPARE(s.max, sorted.back());
                ++cases;
            }
            QCOMPARE(v, before); // only read
        }
    QCOMPARE(cases, 9 * 8 * 5);
}

// Durations whose sum passes int64 (a hostile log; fuzz_jobload found it): the total is held at
// INT64_MAX on both selection paths, not overflowed (undefined behaviour, UBSan in CI).
void TstOrderStats::totalSaturates()
{
    OrderStats::Scratch scratch;
    for (size_t n : {size_t(3), OrderStats::kDirect + 5}) {
        const std::vector<int64_t> v(n, std::numeric_limits<int64_t>::max() / 2 + 1);
        const size_t k[] = {n / 2};
        int64_t out[1] = {0};
        const OrderStats::Summary s = OrderStats::select(v, k, out, scratch);
        QCOMPARE(s.total, std::numeric_limits<int64_t>::max());
        QCOMPARE(s.max, v[0]);
        QCOMPARE(out[0], v[0]);
    }
}

void TstOrderStats::statsMatchDefinition()
{
    QTemporaryDir dir;
    for (uint64_t seed : {1ull, 2ull}) {
        const auto tl = randomJob(dir.path().toStdString() + "/s" + std::to_string(seed), seed, 6,
                                  2 * int(OrderStats::kDirect));
        QVERIFY(tl);
        const auto want = definition(*tl);
        size_t rows = 0;
        for (size_t threads : {size_t(1), size_t(2), size_t(5)}) {
            StatsQuery q;
            q.threads = threads;
            const std::vector<StatsRow> got = Stats::compute(*tl, q);
            rows = got.size();
            size_t expectedRows = 0;
            for (const auto &[name, byRank] : want)
                expectedRows += byRank.size();
            QCOMPARE(got.size(), expectedRows);
            for (const StatsRow &r : got) {
                const std::string name(tl->names.name(r.nameId));
                const Expected &e = want.at(name).at(r.rank);
                const auto key = [](int64_t c, int64_t t, int64_t m, int64_t a, int64_t b,
                                    int64_t d,
                                    int64_t x) { return std::tuple(c, t, m, a, b, d, x); };
                QVERIFY2(key(r.count, r.totalNs, r.meanNs, r.p50Ns, r.p95Ns, r.p99Ns, r.maxNs) ==
                             key(e.count, e.total, e.mean, e.p50, e.p95, e.p99, e.max),
                         qPrintable(QStringLiteral("%1 rank %2: p50 %3/%4 p95 %5/%6 p99 %7/%8")
                                        .arg(QString::fromStdString(name))
                                        .arg(r.rank ? *r.rank : -1)
                                        .arg(r.p50Ns)
                                        .arg(e.p50)
                                        .arg(r.p95Ns)
                                        .arg(e.p95)
                                        .arg(r.p99Ns)
                                        .arg(e.p99)));
            }
        }
        QCOMPARE(rows, size_t(7 * 7)); // 7 names × (all ranks + 6 ranks)
    }
}

// Each side of every Compare row equals that run's definition (A and B random, with other seeds
// and rank counts: rank 6 only in B).
void TstOrderStats::compareMatchesDefinition()
{
    QTemporaryDir dir;
    const auto a = randomJob(dir.path().toStdString() + "/a", 11, 6, 2 * int(OrderStats::kDirect));
    const auto b = randomJob(dir.path().toStdString() + "/b", 12, 7, 2 * int(OrderStats::kDirect));
    QVERIFY(a && b);
    const auto wa = definition(*a), wb = definition(*b);
    const CompareResult r = Compare::compute(*a, *b);
    QCOMPARE(r.rows.size(), size_t(7 * 8)); // 7 names × (all + ranks 0–6)
    for (const CompareRow &row : r.rows) {
        const auto sideOf = [&](const auto &want) {
            const auto n = want.find(row.name);
            const Expected none;
            if (n == want.end() || !n->second.count(row.rank))
                return std::tuple(none.count, none.total, none.mean, none.p50, none.p99);
            const Expected &e = n->second.at(row.rank);
            return std::tuple(e.count, e.total, e.mean, e.p50, e.p99);
        };
        QCOMPARE(std::tuple(row.a.count, row.a.totalNs, row.a.meanNs, row.a.p50Ns, row.a.p99Ns),
                 sideOf(wa));
        QCOMPARE(std::tuple(row.b.count, row.b.totalNs, row.b.meanNs, row.b.p50Ns, row.b.p99Ns),
                 sideOf(wb));
        QCOMPARE(row.in, row.rank == 6 ? CompareRow::In::OnlyB : CompareRow::In::Both);
    }
}

QTEST_GUILESS_MAIN(TstOrderStats)
#include "tst_orderstats.moc"
