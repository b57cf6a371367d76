#include "timeline/report/stats.h"

#include <algorithm>
#include <cmath>
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

void collectTrack(const sync::ClockMap &map, const EventTrack &t, const StatsQuery &q,
                  Collector &c)
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
    c.starts.resize(n);
    c.ends.resize(n);
    map.toGlobal(std::span<const int64_t>(t.localStart.data() + first, n), c.starts);
    map.toGlobal(std::span<const int64_t>(t.localEnd.data() + first, n), c.ends);
    for (size_t j = 0; j < n; ++j) {
        const size_t i = first + j;
        if (t.flags[i] & (EventOpen | EventInstant))
            continue;
        if (q.useRange && (t.localEnd[i] < localA || t.localStart[i] > localB))
            continue;
        c.of(t.nameId[i]).push_back(c.ends[j] - c.starts[j]);
    }
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
            for (const EventTrack &t : wk.tracks)
                collectTrack(map, t, q, rank);
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

} // namespace syncline
