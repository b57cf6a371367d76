// AsyncLanes — see asynclanes.h.
#include "timeline/load/chrome/asynclanes.h"

#include <algorithm>

namespace syncline::load {

std::vector<uint32_t> AsyncLanes::assign(std::vector<AsyncSpan> &spans, uint32_t *laneCount)
{
    std::stable_sort(spans.begin(), spans.end(), [](const AsyncSpan &a, const AsyncSpan &b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    std::vector<std::vector<int64_t>> lanes; // per lane: ends of its open spans, innermost last
    std::vector<uint32_t> out(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        const AsyncSpan &s = spans[i];
        size_t lane = 0;
        for (; lane < lanes.size(); ++lane) {
            std::vector<int64_t> &open = lanes[lane];
            while (!open.empty() && open.back() <= s.start && s.end > s.start)
                open.pop_back();
            while (!open.empty() && open.back() < s.start)
                open.pop_back(); // an instant at an end still lies inside [start, end]
            if (open.empty() || s.end <= open.back())
                break;
        }
        if (lane == lanes.size())
            lanes.emplace_back();
        if (s.end > s.start)
            lanes[lane].push_back(s.end);
        out[i] = uint32_t(lane);
    }
    *laneCount = uint32_t(std::max<size_t>(lanes.size(), spans.empty() ? 0 : 1));
    return out;
}

} // namespace syncline::load
