#include "timeline/model/collectiveinstances.h"

#include <algorithm>
#include <utility>

namespace syncline {

namespace {

template <class IsCollective>
std::vector<CollectiveEvent> collect(const Timeline &tl, size_t w, int64_t generation,
                                     const IsCollective &isCollective)
{
    std::vector<CollectiveEvent> mine;
    const Worker &worker = tl.workers[w];
    for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
        const EventTrack &t = worker.tracks[ti];
        for (size_t i = 0; i < t.count(); ++i)
            if (isCollective(t.nameId[i]) && !(t.flags[i] & (EventOpen | EventInstant)))
                mine.push_back(
                    {uint32_t(ti), uint32_t(i), t.nameId[i], t.localStart[i], t.localEnd[i], 0});
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CollectiveEvent &a, const CollectiveEvent &b) {
                         return a.localBegin < b.localBegin;
                     });
    // k per name: a job has a handful of collective names, so a flat list beats a map.
    std::vector<std::pair<uint32_t, int64_t>> next;
    for (CollectiveEvent &c : mine) {
        auto it = std::find_if(next.begin(), next.end(),
                               [&](const auto &n) { return n.first == c.nameId; });
        if (it == next.end())
            it = next.insert(next.end(), {c.nameId, 0});
        c.sequence = (generation << CollectiveInstances::kGenerationShift) | it->second++;
    }
    return mine;
}

} // namespace

std::vector<CollectiveEvent>
CollectiveInstances::of(const Timeline &tl, size_t w, int64_t generation,
                        const std::function<bool(uint32_t)> &isCollective)
{
    return collect(tl, w, generation, isCollective);
}

std::vector<CollectiveEvent> CollectiveInstances::of(const Timeline &tl, size_t w,
                                                     int64_t generation,
                                                     const std::vector<uint8_t> &isCollective)
{
    return collect(tl, w, generation,
                   [&](uint32_t id) { return id < isCollective.size() && isCollective[id]; });
}

} // namespace syncline
