#include "timeline/report/stragglers.h"

#include "recorder/globpattern.h"
#include "timeline/model/generation.h"

#include <algorithm>
#include <map>

namespace syncline {

namespace {

struct Instances
{
    // rank → global ends of the complete instances, in start order; durations summed
    std::map<int, std::vector<std::pair<int64_t, int64_t>>> byRank; // (start, end)
};

// Adds one generation's instances of a name to `row` and `last` (rank → times last, lag sum).
void analyse(const Instances &in, StragglerRow &row,
             std::map<int, std::pair<int64_t, int64_t>> &last)
{
    row.ranks = std::max(row.ranks, int(in.byRank.size()));
    const auto n = int64_t(in.byRank.begin()->second.size());
    row.instances += n;
    std::vector<std::pair<int64_t, int>> ends;
    for (int64_t k = 0; k < n; ++k) {
        ends.clear();
        for (const auto &[rank, v] : in.byRank)
            ends.emplace_back(v[size_t(k)].second, rank);
        std::sort(ends.begin(), ends.end(), [](auto &a, auto &b) {
            return a.first < b.first || (a.first == b.first && a.second > b.second);
        });
        const int64_t median = ends[(ends.size() - 1) / 2].first;
        auto &l = last[ends.back().second];
        ++l.first;
        l.second += ends.back().first - median;
    }
    for (const auto &[rank, v] : in.byRank)
        for (const auto &[s, e] : v)
            row.totalNs += e - s;
}

} // namespace

std::vector<StragglerRow> Stragglers::compute(const Timeline &tl, ClockMode mode,
                                              const std::string &pattern)
{
    // Per name, per generation (an elastic restart or membership change counts steps from 0
    // again: a name is step-like within a generation, the rows sum over generations).
    const std::vector<int64_t> generation = Generation::number(tl);
    std::map<uint32_t, std::map<int64_t, Instances>> byName;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const int rank = tl.workers[w].info.rank;
        const sync::ClockMap &map = tl.map(w, mode);
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                if (t.flags[i] & (EventOpen | EventInstant))
                    continue;
                byName[t.nameId[i]][generation[w]].byRank[rank].emplace_back(
                    map.toGlobal(t.localStart[i]), map.toGlobal(t.localEnd[i]));
            }
    }
    std::vector<StragglerRow> rows;
    for (auto &[name, generations] : byName) {
        if (!pattern.empty() && !rec::GlobPattern::match(pattern, tl.names.name(name)))
            continue;
        StragglerRow row;
        row.nameId = name;
        std::map<int, std::pair<int64_t, int64_t>> last; // rank → (times last, lag sum)
        for (auto &[g, in] : generations) {
            if (in.byRank.size() < 2)
                continue;
            const size_t n = in.byRank.begin()->second.size();
            bool same = n >= 2;
            for (auto &[rank, v] : in.byRank) {
                same = same && v.size() == n;
                std::sort(v.begin(), v.end()); // start order across the worker's tracks
            }
            if (same)
                analyse(in, row, last);
        }
        if (row.instances == 0)
            continue;
        for (const auto &[rank, l] : last)
            if (l.first > row.timesLast) {
                row.timesLast = l.first;
                row.slowestRank = rank;
                row.meanLagNs = l.second / l.first;
            }
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end(), [](const StragglerRow &a, const StragglerRow &b) {
        return a.totalNs > b.totalNs || (a.totalNs == b.totalNs && a.nameId < b.nameId);
    });
    return rows;
}

} // namespace syncline
