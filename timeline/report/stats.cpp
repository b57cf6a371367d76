#include "timeline/report/stats.h"

#include "timeline/report/orderstats.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <thread>

namespace syncline {

namespace {

// Nearest-rank index of percentile p among n values (0-based), as Stats::percentile.
size_t rankIndex(size_t n, double p)
{
    const size_t k = size_t(std::ceil(p / 100.0 * double(n)));
    return std::clamp<size_t>(k, 1, n) - 1;
}

// The index range [first, last) of `t` that can count under q (all of it without a range; with
// one, by binary search in local time), and the range's ends in t's local ns.
struct TrackRange
{
    size_t first = 0, last = 0;
    int64_t localA = 0, localB = 0;
};

TrackRange rangeOf(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q)
{
    TrackRange r{0, t.count(), 0, 0};
    if (!q.useRange)
        return r;
    r.localA = map.toLocal(q.beginNs);
    r.localB = map.toLocal(q.endNs);
    const int f = t.firstIndexEndingAfter(r.localA);
    const int l = t.lastIndexStartingBefore(r.localB);
    if (f < 0 || l < f)
        return {0, 0, r.localA, r.localB};
    r.first = size_t(f);
    r.last = size_t(l) + 1;
    return r;
}

// Whether event i (inside r) counts: a complete interval overlapping the range, if any.
bool counts(const EventTrack &t, const StatsQuery &q, const TrackRange &r, size_t i)
{
    if (t.flags[i] & (EventOpen | EventInstant | EventProfilerSpan))
        return false;
    return !q.useRange || (t.localEnd[i] >= r.localA && t.localStart[i] <= r.localB);
}

// Calls f(i) for every event index i of `t` that counts (no clock conversion).
template <typename F>
void forEachCounted(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q, F &&f)
{
    const TrackRange r = rangeOf(map, t, q);
    for (size_t i = r.first; i < r.last; ++i)
        if (counts(t, q, r, i))
            f(i);
}

// Calls sink(nameId, duration) for every event of `t` that counts (see the header); durs is
// scratch for the track's global durations.
template <typename Sink>
void collectTrack(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q,
                  std::vector<int64_t> &durs, Sink &&sink)
{
    const TrackRange r = rangeOf(map, t, q);
    const size_t n = r.last - r.first;
    // The map's batch form (a segment cursor instead of a search per call; the same values).
    durs.resize(n);
    map.durations(std::span<const int64_t>(t.localStart.data() + r.first, n),
                  std::span<const int64_t>(t.localEnd.data() + r.first, n), durs);
    for (size_t i = r.first; i < r.last; ++i)
        if (counts(t, q, r, i))
            sink(t.nameId[i], durs[i - r.first]);
}

} // namespace

size_t Stats::percentileIndex(size_t n, double p)
{
    return rankIndex(n, p);
}

std::vector<NameDurations> Stats::durations(const Timeline &tl, const StatsQuery &q)
{
    const ClockMode mode = q.mode;
    std::map<std::pair<uint32_t, int>, std::vector<int64_t>> by;
    std::vector<int64_t> scratch;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        for (size_t t = 0; t < wk.tracks.size(); ++t)
            if (q.includes(w, t))
                collectTrack(wk.map(mode), wk.tracks[t], q, scratch,
                             [&](uint32_t name, int64_t d) {
                                 by[{name, wk.info.rank}].push_back(d);
                             });
    }
    std::vector<NameDurations> out;
    out.reserve(by.size());
    for (auto &[key, v] : by) {
        std::sort(v.begin(), v.end());
        out.push_back({key.first, key.second, std::move(v)});
    }
    return out;
}

int64_t Stats::percentile(std::vector<int64_t> &v, double p)
{
    if (v.empty())
        return 0;
    const size_t k = rankIndex(v.size(), p);
    std::nth_element(v.begin(), v.begin() + ptrdiff_t(k), v.end());
    return v[k];
}

namespace {

// One (run, rank): its workers (a rank's incarnations count together).
struct RankGroup
{
    size_t run = 0; // index into the sorted distinct runs
    int rank = 0;
    std::vector<size_t> workers;
    std::vector<std::pair<uint32_t, size_t>> counts; // pass 1: (name id, events that count)
    // pass 2, per entry of counts (for kDirect values or more): the histogram of the name's
    // durations in this group, trimmed to its non-empty bucket range
    std::vector<int> histFirst;
    std::vector<std::vector<uint32_t>> hist;
    std::vector<StatsRow> rows; // pass 2: its per-rank rows
};

// The nearest-rank indices Stats reports (p50, p95, p99) among n values.
std::array<size_t, 3> percentileRanks(size_t n)
{
    return {rankIndex(n, 50), rankIndex(n, 95), rankIndex(n, 99)};
}

// Runs f(0) … f(n − 1) on up to `threads` threads (the caller's among them), each index once,
// handed out in order as threads become free.
template <typename F> void parallelFor(size_t n, size_t threads, F &&f)
{
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < n; i = next++)
            f(i);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < std::min(threads, n); ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
}

// The durations of one (run, name), every rank's in (run, rank) order, in one array allocated
// once at its exact size (no growth, no copy for the all-ranks row).
struct Durations
{
    std::unique_ptr<int64_t[]> data;
    size_t size = 0;
};

} // namespace

size_t Stats::defaultThreads()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

// Three passes, each parallel: (1) per (run, rank) group, how many events of each name count;
// then, serially, each group's place in each name's array; (2) per group, the durations written
// into those places (one batch clock conversion per track) with each name's sum, maximum and
// histogram, and the group's per-rank rows from its segments (read, not reordered); (3) per
// (run, name), the all-ranks row: the groups' histograms summed, one pass over the array.
std::vector<StatsRow> Stats::compute(const Timeline &tl, const StatsQuery &q)
{
    // Groups by (run, rank), in that order (the order of tl.workers is not relied on).
    std::vector<std::string_view> runs;
    for (const Worker &w : tl.workers)
        runs.push_back(w.info.run);
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    std::map<std::pair<size_t, int>, RankGroup> byKey;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        const size_t run =
            size_t(std::lower_bound(runs.begin(), runs.end(), wk.info.run) - runs.begin());
        RankGroup &g = byKey[{run, wk.info.rank}];
        g.run = run;
        g.rank = wk.info.rank;
        g.workers.push_back(w);
    }
    std::vector<RankGroup> groups;
    size_t events = 0;
    for (auto &[key, g] : byKey) {
        for (size_t w : g.workers)
            events += tl.workers[w].eventCount();
        groups.push_back(std::move(g));
    }
    const size_t names = tl.names.size();
    // (a small job: on the caller's thread, unless a thread count is asked for)
    const size_t threads = q.threads ? q.threads : events < 100000 ? 1 : defaultThreads();
    auto tracksOf = [&](const RankGroup &g, auto &&f) {
        for (size_t w : g.workers) {
            const Worker &wk = tl.workers[w];
            for (size_t t = 0; t < wk.tracks.size(); ++t)
                if (q.includes(w, t))
                    f(wk.map(q.mode), wk.tracks[t]);
        }
    };

    // (1) Counts per group and name.
    parallelFor(groups.size(), threads, [&](size_t gi) {
        RankGroup &g = groups[gi];
        std::vector<size_t> count(names, 0);
        std::vector<uint32_t> touched;
        tracksOf(g, [&](const sync::ClockMap &map, const EventTrack &t) {
            forEachCounted(map, t, q, [&](size_t i) {
                const uint32_t n = t.nameId[i];
                if (n >= count.size())
                    count.resize(size_t(n) + 1, 0);
                if (count[n]++ == 0)
                    touched.push_back(n);
            });
        });
        std::sort(touched.begin(), touched.end());
        for (uint32_t n : touched)
            g.counts.emplace_back(n, count[n]);
    });
    // Each (run, name)'s array, and each group's offset in it (replacing its count).
    size_t nameSlots = names;
    for (const RankGroup &g : groups)
        for (const auto &[n, c] : g.counts)
            nameSlots = std::max(nameSlots, size_t(n) + 1);
    std::vector<Durations> all(runs.size() * nameSlots);
    auto slot = [&](size_t run, uint32_t n) -> Durations & { return all[run * nameSlots + n]; };
    std::vector<std::vector<std::pair<size_t, size_t>>> segments(groups.size()); // (offset, n)
    for (size_t gi = 0; gi < groups.size(); ++gi)
        for (const auto &[n, c] : groups[gi].counts) {
            Durations &d = slot(groups[gi].run, n);
            segments[gi].emplace_back(d.size, c);
            d.size += c;
        }
    for (Durations &d : all)
        if (d.size)
            d.data.reset(new int64_t[d.size]); // uninitialised: every element is written below

    // (2) Durations into place, with each name's sum, maximum and histogram on the way; then
    // the per-rank rows: one pass over each segment copies out the values of the percentiles'
    // buckets (OrderStats), while they are in cache.
    parallelFor(groups.size(), threads, [&](size_t gi) {
        RankGroup &g = groups[gi];
        const size_t k = g.counts.size();
        std::vector<uint32_t> position(nameSlots, 0); // name → its entry in g.counts
        std::vector<int64_t *> cursor(k);
        std::vector<uint32_t *> histOf(k);
        // A histogram per name with kDirect durations or more; the others count into a dump.
        size_t large = 0;
        for (size_t e = 0; e < k; ++e)
            large += g.counts[e].second >= OrderStats::kDirect;
        std::vector<uint32_t> hists((large + 1) * size_t(OrderStats::kBuckets), 0);
        size_t nextHist = 0;
        for (size_t e = 0; e < k; ++e) {
            const uint32_t n = g.counts[e].first;
            position[n] = uint32_t(e);
            cursor[e] = slot(g.run, n).data.get() + segments[gi][e].first;
            histOf[e] = g.counts[e].second >= OrderStats::kDirect
                            ? hists.data() + (nextHist++) * size_t(OrderStats::kBuckets)
                            : hists.data() + large * size_t(OrderStats::kBuckets);
        }
        std::vector<int64_t> durs;
        tracksOf(g, [&](const sync::ClockMap &map, const EventTrack &t) {
            collectTrack(map, t, q, durs, [&](uint32_t name, int64_t d) {
                const uint32_t e = position[name];
                *cursor[e]++ = d;
                ++histOf[e][OrderStats::bucketOf(d)];
            });
        });
        // Keep each histogram's non-empty range only.
        g.histFirst.assign(k, 0);
        g.hist.resize(k);
        for (size_t e = 0; e < k; ++e) {
            if (g.counts[e].second < OrderStats::kDirect)
                continue;
            const uint32_t *h = histOf[e];
            int lo = 0, hi = OrderStats::kBuckets - 1;
            while (!h[lo])
                ++lo;
            while (!h[hi])
                --hi;
            g.histFirst[e] = lo;
            g.hist[e].assign(h + lo, h + hi + 1);
        }
        if (!q.perRank)
            return;
        // (the sum and maximum come with the percentiles: the same pass over the segment)
        const std::string &run = tl.workers[g.workers.front()].info.run;
        OrderStats::Scratch scratch;
        for (size_t e = 0; e < k; ++e) {
            const uint32_t n = g.counts[e].first;
            const auto [offset, c] = segments[gi][e];
            const std::span<const int64_t> d(slot(g.run, n).data.get() + offset, c);
            const std::array<size_t, 3> ks = percentileRanks(c);
            std::array<int64_t, 3> p{};
            const OrderStats::Summary sum =
                c >= OrderStats::kDirect
                    ? OrderStats::selectCounted(d, g.hist[e], g.histFirst[e], ks, p, scratch)
                    : OrderStats::select(d, ks, p, scratch);
            StatsRow row;
            row.nameId = n;
            row.rank = g.rank;
            row.run = run;
            row.count = int64_t(c);
            row.totalNs = sum.total;
            row.meanNs = row.totalNs / row.count;
            row.p50Ns = p[0];
            row.p95Ns = p[1];
            row.p99Ns = p[2];
            row.maxNs = sum.max;
            g.rows.push_back(std::move(row));
        }
    });

    // (3) The all-ranks rows, per (run, name): the groups' histograms summed (a small group's
    // durations counted here), then one pass over the whole array for the percentiles' buckets.
    std::vector<std::vector<std::pair<size_t, size_t>>> parts(all.size()); // (group, entry)
    for (size_t gi = 0; gi < groups.size(); ++gi)
        for (size_t e = 0; e < groups[gi].counts.size(); ++e)
            parts[groups[gi].run * nameSlots + groups[gi].counts[e].first].emplace_back(gi, e);
    std::vector<uint32_t> order;
    for (uint32_t n = 0; n < nameSlots; ++n)
        for (size_t r = 0; r < runs.size(); ++r)
            if (slot(r, n).size) {
                order.push_back(n);
                break;
            }
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return tl.names.name(a) < tl.names.name(b); });
    struct Item
    {
        uint32_t name;
        size_t run;
        StatsRow row;
    };
    std::vector<Item> items;
    for (uint32_t n : order)
        for (size_t r = 0; r < runs.size(); ++r)
            if (slot(r, n).size)
                items.push_back({n, r, {}});
    // Largest first, so that the threads finish together.
    std::vector<size_t> bySize(items.size());
    for (size_t i = 0; i < items.size(); ++i)
        bySize[i] = i;
    std::stable_sort(bySize.begin(), bySize.end(), [&](size_t x, size_t y) {
        return slot(items[x].run, items[x].name).size > slot(items[y].run, items[y].name).size;
    });
    parallelFor(items.size(), threads, [&](size_t i) {
        Item &it = items[bySize[i]];
        const Durations &d = slot(it.run, it.name);
        const std::span<const int64_t> all(d.data.get(), d.size);
        StatsRow &row = it.row;
        row.nameId = it.name;
        row.run = std::string(runs[it.run]);
        row.count = int64_t(d.size);
        std::vector<uint32_t> hist(size_t(OrderStats::kBuckets), 0);
        size_t offset = 0;
        for (const auto &[gi, e] : parts[it.run * nameSlots + it.name]) {
            const RankGroup &g = groups[gi];
            const size_t c = g.counts[e].second;
            if (c >= OrderStats::kDirect)
                for (size_t b = 0; b < g.hist[e].size(); ++b)
                    hist[size_t(g.histFirst[e]) + b] += g.hist[e][b];
            else
                OrderStats::count(all.subspan(offset, c), hist.data());
            offset += c;
        }
        std::array<int64_t, 3> p{};
        OrderStats::Scratch scratch;
        const OrderStats::Summary sum =
            OrderStats::selectCounted(all, hist, 0, percentileRanks(d.size), p, scratch);
        row.totalNs = sum.total;
        row.meanNs = row.totalNs / row.count;
        row.maxNs = sum.max;
        row.p50Ns = p[0];
        row.p95Ns = p[1];
        row.p99Ns = p[2];
    });
    // Per (run, name), the per-rank rows in (run, rank) order.
    std::vector<std::vector<const StatsRow *>> rankRows(all.size());
    for (const RankGroup &g : groups)
        for (const StatsRow &r : g.rows)
            rankRows[g.run * nameSlots + r.nameId].push_back(&r);
    std::vector<StatsRow> out;
    for (Item &it : items) {
        out.push_back(std::move(it.row));
        for (const StatsRow *r : rankRows[it.run * nameSlots + it.name])
            out.push_back(*r);
    }
    return out;
}

int64_t DurationHistogram::edge(int k)
{
    if (k <= 0)
        return 1;
    // Below 10 ns the rounded powers repeat (1, 1, 2, 2, 3, …): 1 ns bins there instead.
    return std::max<int64_t>(k + 1, std::llround(std::pow(10.0, double(k) / kBinsPerDecade)));
}

int DurationHistogram::binOf(int64_t ns)
{
    if (ns <= 1)
        return 0;
    int k = int(std::floor(std::log10(double(ns)) * kBinsPerDecade));
    while (k > 0 && edge(k) > ns) // floating-point rounding at the edges
        --k;
    while (edge(k + 1) <= ns)
        ++k;
    return k;
}

DurationHistogram Stats::histogram(const Timeline &tl, uint32_t nameId, const StatsQuery &q)
{
    DurationHistogram h;
    h.nameId = nameId;
    std::map<int, std::vector<int64_t>> perRank; // rank → bin → count (bins from 0)
    int lo = std::numeric_limits<int>::max(), hi = -1;
    std::vector<int64_t> durs; // scratch
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        std::vector<int64_t> *counts = nullptr;
        for (size_t t = 0; t < wk.tracks.size(); ++t)
            if (q.includes(w, t))
                collectTrack(wk.map(q.mode), wk.tracks[t], q, durs, [&](uint32_t name, int64_t d) {
                    if (name != nameId)
                        return;
                    if (!counts)
                        counts = &perRank[wk.info.rank];
                    const int b = DurationHistogram::binOf(d);
                    if (size_t(b) >= counts->size())
                        counts->resize(size_t(b) + 1, 0);
                    ++(*counts)[size_t(b)];
                    lo = std::min(lo, b);
                    hi = std::max(hi, b);
                });
    }
    if (hi < 0)
        return h;
    h.firstBin = lo;
    h.total.assign(size_t(hi - lo + 1), 0);
    for (auto &[rank, counts] : perRank) {
        counts.resize(size_t(hi) + 1, 0);
        h.ranks.push_back(rank);
        h.counts.emplace_back(counts.begin() + lo, counts.end());
        for (size_t b = 0; b < h.total.size(); ++b)
            h.total[b] += h.counts.back()[b];
    }
    return h;
}

} // namespace syncline
