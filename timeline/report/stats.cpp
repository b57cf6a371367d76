#include "timeline/report/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>

namespace syncline {

namespace {

// Nearest-rank index of percentile p among n values (0-based), as Stats::percentile.
size_t rankIndex(size_t n, double p)
{
    const size_t k = size_t(std::ceil(p / 100.0 * double(n)));
    return std::clamp<size_t>(k, 1, n) - 1;
}

// Reorders d. p50, p95, p99 and max with one shrinking selection: after nth_element puts the
// k-th smallest at k, everything from k on is >= it, so the next (higher) percentile and the
// maximum are searched only there — the same values as three full Stats::percentile calls.
StatsRow summarise(uint32_t nameId, std::optional<int> rank, std::vector<int64_t> &d)
{
    StatsRow row;
    row.nameId = nameId;
    row.rank = rank;
    row.count = int64_t(d.size());
    for (int64_t x : d)
        row.totalNs += x;
    row.meanNs = row.count ? row.totalNs / row.count : 0;
    if (d.empty())
        return row;
    auto from = d.begin();
    int64_t *out[] = {&row.p50Ns, &row.p95Ns, &row.p99Ns};
    const double ps[] = {50, 95, 99};
    for (int i = 0; i < 3; ++i) {
        const auto kth = d.begin() + ptrdiff_t(rankIndex(d.size(), ps[i]));
        std::nth_element(from, kth, d.end());
        *out[i] = *kth;
        from = kth;
    }
    row.maxNs = *std::max_element(from, d.end());
    return row;
}

// Durations per name id of one rank's events (dense by name id; `touched` lists the ids with
// any, in first-seen order), reused from rank to rank.
struct Collector
{
    std::vector<std::vector<int64_t>> byName;
    std::vector<uint32_t> touched;
    std::vector<int64_t> starts, ends; // scratch: one track's global times

    std::vector<int64_t> &of(uint32_t name)
    {
        if (name >= byName.size())
            byName.resize(size_t(name) + 1);
        std::vector<int64_t> &v = byName[name];
        if (v.empty())
            touched.push_back(name);
        return v;
    }
};

// Calls sink(nameId, duration) for every event of `t` that counts (see the header); starts and
// ends are scratch for the track's global times.
template <typename Sink>
void collectTrack(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q,
                  std::vector<int64_t> &starts, std::vector<int64_t> &ends, Sink &&sink)
{
    size_t first = 0, last = t.count();
    int64_t localA = 0, localB = 0;
    if (q.useRange) {
        localA = map.toLocal(q.beginNs);
        localB = map.toLocal(q.endNs);
        const int f = t.firstIndexEndingAfter(localA);
        const int l = t.lastIndexStartingBefore(localB);
        if (f < 0 || l < f)
            return;
        first = size_t(f);
        last = size_t(l) + 1;
    }
    const size_t n = last - first;
    // The map's batch form (a segment cursor instead of a search per call; the same values).
    starts.resize(n);
    ends.resize(n);
    map.toGlobal(std::span<const int64_t>(t.localStart.data() + first, n), starts);
    map.toGlobal(std::span<const int64_t>(t.localEnd.data() + first, n), ends);
    for (size_t j = 0; j < n; ++j) {
        const size_t i = first + j;
        if (t.flags[i] & (EventOpen | EventInstant))
            continue;
        if (q.useRange && (t.localEnd[i] < localA || t.localStart[i] > localB))
            continue;
        sink(t.nameId[i], ends[j] - starts[j]);
    }
}

void collectTrack(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q,
                  Collector &c)
{
    collectTrack(map, t, q, c.starts, c.ends,
                 [&](uint32_t name, int64_t d) { c.of(name).push_back(d); });
}

} // namespace

int64_t Stats::percentile(std::vector<int64_t> &v, double p)
{
    if (v.empty())
        return 0;
    const size_t k = rankIndex(v.size(), p);
    std::nth_element(v.begin(), v.begin() + ptrdiff_t(k), v.end());
    return v[k];
}

std::vector<StatsRow> Stats::compute(const Timeline &tl, const StatsQuery &q)
{
    // Workers by rank (a rank's incarnations count together; the order of tl.workers is not
    // relied on).
    std::map<int, std::vector<size_t>> ranks;
    for (size_t w = 0; w < tl.workers.size(); ++w)
        ranks[tl.workers[w].info.rank].push_back(w);
    const ClockMode mode = q.mode;
    Collector rank, all;
    rank.byName.resize(tl.names.size());
    all.byName.resize(tl.names.size());
    std::vector<std::vector<StatsRow>> rows(tl.names.size()); // per-rank rows by name id
    for (const auto &[r, workers] : ranks) {
        for (size_t w : workers) {
            const Worker &wk = tl.workers[w];
            const sync::ClockMap &map = wk.map(mode);
            for (size_t t = 0; t < wk.tracks.size(); ++t)
                if (q.includes(w, t))
                    collectTrack(map, wk.tracks[t], q, rank);
        }
        for (uint32_t name : rank.touched) {
            std::vector<int64_t> &d = rank.byName[name];
            std::vector<int64_t> &a = all.of(name);
            a.insert(a.end(), d.begin(), d.end());
            if (q.perRank) {
                if (name >= rows.size())
                    rows.resize(size_t(name) + 1);
                rows[name].push_back(summarise(name, r, d));
            }
            d.clear(); // keeps its capacity for the next rank
        }
        rank.touched.clear();
    }
    std::vector<uint32_t> names = all.touched;
    std::sort(names.begin(), names.end(),
              [&](uint32_t a, uint32_t b) { return tl.names.name(a) < tl.names.name(b); });
    std::vector<StatsRow> out;
    for (uint32_t name : names) {
        out.push_back(summarise(name, std::nullopt, all.byName[name]));
        if (name < rows.size())
            out.insert(out.end(), rows[name].begin(), rows[name].end()); // ranks ascending
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
    std::vector<int64_t> starts, ends; // scratch
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        std::vector<int64_t> *counts = nullptr;
        for (size_t t = 0; t < wk.tracks.size(); ++t)
            if (q.includes(w, t))
                collectTrack(wk.map(q.mode), wk.tracks[t], q, starts, ends,
                             [&](uint32_t name, int64_t d) {
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
