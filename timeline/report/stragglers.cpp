#include "timeline/report/stragglers.h"

#include "recorder/globpattern.h"

#include <algorithm>
#include <map>

namespace syncline {

namespace {

struct Instances
{
    // rank → global ends of the complete instances, in start order; durations summed
    std::map<int, std::vector<std::pair<int64_t, int64_t>>> byRank; // (start, end)
};

StragglerRow analyse(uint32_t name, const Instances &in)
{
    StragglerRow row;
    row.nameId = name;
    row.ranks = int(in.byRank.size());
    row.instances = int64_t(in.byRank.begin()->second.size());
    std::map<int, std::pair<int64_t, int64_t>> last; // rank → (times last, lag sum)
    std::vector<std::pair<int64_t, int>> ends;
    for (int64_t k = 0; k < row.instances; ++k) {
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
    for (const auto &[rank, l] : last)
        if (l.first > row.timesLast) {
            row.timesLast = l.first;
            row.slowestRank = rank;
            row.meanLagNs = l.second / l.first;
        }
    for (const auto &[rank, v] : in.byRank)
        for (const auto &[s, e] : v)
            row.totalNs += e - s;
    return row;
}

} // namespace

std::vector<StragglerRow> Stragglers::compute(const Timeline &tl, ClockMode mode,
                                              const std::string &pattern)
{
    std::map<uint32_t, Instances> byName;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const int rank = tl.workers[w].info.rank;
        const sync::ClockMap &map = tl.map(w, mode);
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                if (t.flags[i] & (EventOpen | EventInstant))
                    continue;
                byName[t.nameId[i]].byRank[rank].emplace_back(map.toGlobal(t.localStart[i]),
                                                              map.toGlobal(t.localEnd[i]));
            }
    }
    std::vector<StragglerRow> rows;
    for (auto &[name, in] : byName) {
        if (in.byRank.size() < 2)
            continue;
        if (!pattern.empty() && !rec::GlobPattern::match(pattern, tl.names.name(name)))
            continue;
        const size_t n = in.byRank.begin()->second.size();
        bool same = n >= 2;
        for (auto &[rank, v] : in.byRank) {
            same = same && v.size() == n;
            std::sort(v.begin(), v.end()); // start order across the worker's tracks
        }
        if (same)
            rows.push_back(analyse(name, in));
    }
    std::sort(rows.begin(), rows.end(), [](const StragglerRow &a, const StragglerRow &b) {
        return a.totalNs > b.totalNs || (a.totalNs == b.totalNs && a.nameId < b.nameId);
    });
    return rows;
}

} // namespace syncline
