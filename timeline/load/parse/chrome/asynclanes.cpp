// AsyncLanes — see asynclanes.h.
#include "timeline/load/parse/chrome/asynclanes.h"

#include <algorithm>

namespace syncline::load {

std::vector<uint32_t> AsyncLanes::assign(std::vector<AsyncSpan> &spans, uint32_t *laneCount)
{
    std::stable_sort(spans.begin(), spans.end(), [](const AsyncSpan &a, const AsyncSpan &b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::vector<int64_t> laneEnd; // per lane: the end of its last span
    std::vector<uint32_t> out(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        const AsyncSpan &s = spans[i];
        size_t lane = 0;
        // An instant at a span's end lies inside it (ends are inclusive for instants).
        while (lane < laneEnd.size() &&
               (s.end > s.start ? laneEnd[lane] > s.start : laneEnd[lane] >= s.start))
            ++lane;
        if (lane == laneEnd.size())
            laneEnd.push_back(s.end);
        laneEnd[lane] = std::max(laneEnd[lane], s.end);
        out[i] = uint32_t(lane);
    }
    *laneCount = uint32_t(laneEnd.size());
    return out;
}

} // namespace syncline::load
