#include "timeline/report/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace syncline {

namespace {

StatsRow summarise(uint32_t nameId, std::optional<int> rank, std::vector<int64_t> &d)
{
    StatsRow row;
    row.nameId = nameId;
    row.rank = rank;
    row.count = int64_t(d.size());
    for (int64_t x : d)
        row.totalNs += x;
    row.meanNs = row.count ? row.totalNs / row.count : 0;
    row.maxNs = d.empty() ? 0 : *std::max_element(d.begin(), d.end());
    row.p50Ns = Stats::percentile(d, 50);
    row.p95Ns = Stats::percentile(d, 95);
    row.p99Ns = Stats::percentile(d, 99);
    return row;
}

// Calls sink(nameId, duration) for every event of `t` that counts (see the header).
template <typename Sink>
void collectTrack(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q, Sink &&sink)
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
    for (size_t i = first; i < last; ++i) {
        if (t.flags[i] & (EventOpen | EventInstant))
            continue;
        if (q.useRange && (t.localEnd[i] < localA || t.localStart[i] > localB))
            continue;
        sink(t.nameId[i], map.toGlobal(t.localEnd[i]) - map.toGlobal(t.localStart[i]));
    }
}

} // namespace

int64_t Stats::percentile(std::vector<int64_t> &v, double p)
{
    if (v.empty())
        return 0;
    size_t k = size_t(std::ceil(p / 100.0 * double(v.size())));
    k = std::clamp<size_t>(k, 1, v.size()) - 1;
    std::nth_element(v.begin(), v.begin() + ptrdiff_t(k), v.end());
    return v[k];
}

std::vector<StatsRow> Stats::compute(const Timeline &tl, const StatsQuery &q)
{
    // rank → name → durations
    std::map<int, std::unordered_map<uint32_t, std::vector<int64_t>>> perRank;
    const ClockMode mode = q.mode;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        auto &byName = perRank[tl.workers[w].info.rank];
        const Worker &wk = tl.workers[w];
        const sync::ClockMap &map = wk.map(mode);
        for (size_t t = 0; t < wk.tracks.size(); ++t)
            if (q.includes(w, t))
                collectTrack(map, wk.tracks[t], q,
                             [&](uint32_t name, int64_t d) { byName[name].push_back(d); });
    }
    std::unordered_map<uint32_t, std::vector<StatsRow>> rows; // by name
    std::unordered_map<uint32_t, std::vector<int64_t>> all;
    for (auto &[rank, byName] : perRank)
        for (auto &[name, d] : byName) {
            auto &a = all[name];
            a.insert(a.end(), d.begin(), d.end());
            if (q.perRank)
                rows[name].push_back(summarise(name, rank, d));
            d = {};
        }
    std::vector<uint32_t> names;
    for (auto &[name, d] : all)
        names.push_back(name);
    std::sort(names.begin(), names.end(),
              [&](uint32_t a, uint32_t b) { return tl.names.name(a) < tl.names.name(b); });
    std::vector<StatsRow> out;
    for (uint32_t name : names) {
        out.push_back(summarise(name, std::nullopt, all[name]));
        auto &r = rows[name];
        std::sort(r.begin(), r.end(),
                  [](const StatsRow &a, const StatsRow &b) { return *a.rank < *b.rank; });
        out.insert(out.end(), r.begin(), r.end());
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
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        std::vector<int64_t> *counts = nullptr;
        for (size_t t = 0; t < wk.tracks.size(); ++t)
            if (q.includes(w, t))
                collectTrack(wk.map(q.mode), wk.tracks[t], q, [&](uint32_t name, int64_t d) {
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
