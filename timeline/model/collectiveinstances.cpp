#include "timeline/model/collectiveinstances.h"

#include <algorithm>
#include <map>

namespace syncline {

std::vector<CollectiveEvent>
CollectiveInstances::of(const Timeline &tl, size_t w, int64_t generation,
                        const std::function<bool(uint32_t)> &isCollective)
{
    std::vector<CollectiveEvent> mine;
    const Worker &worker = tl.workers[w];
    for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
        const EventTrack &t = worker.tracks[ti];
        for (size_t i = 0; i < t.count(); ++i)
            if (!(t.flags[i] & (EventOpen | EventInstant)) && isCollective(t.nameId[i]))
                mine.push_back(
                    {uint32_t(ti), uint32_t(i), t.nameId[i], t.localStart[i], t.localEnd[i], 0});
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CollectiveEvent &a, const CollectiveEvent &b) {
                         return a.localBegin < b.localBegin;
                     });
    std::map<uint32_t, int64_t> next;
    for (CollectiveEvent &c : mine)
        c.sequence = (generation << kGenerationShift) | next[c.nameId]++;
    return mine;
}

} // namespace syncline
