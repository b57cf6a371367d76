// AsyncLanes — see asynclanes.h.
#include "timeline/load/parse/chrome/asynclanes.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace syncline::load {

std::vector<uint32_t> AsyncLanes::assign(std::vector<AsyncSpan> &spans, uint32_t *laneCount,
                                         uint32_t maxLanes)
{
    std::stable_sort(spans.begin(), spans.end(), [](const AsyncSpan &a, const AsyncSpan &b) {
        return a.start < b.start || (a.start == b.start && a.end > b.end);
    });
    // Starts only grow, so a lane that has ended before the current start stays free until it
    // is taken: the free lanes are a min-heap of lane numbers (first fit takes the lowest).
    // Lanes whose last span ends exactly at the current start are free for a span but not for
    // an instant there, so they wait in a heap of their own (`atStart`) until the start moves.
    using MinHeap = std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>>;
    using Busy = std::pair<int64_t, uint32_t>; // (end of the lane's last span, lane)
    std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
    MinHeap freeLanes, atStart;
    int64_t atStartTime = 0;
    std::vector<int64_t> laneEnd; // per lane: the end of its last span
    std::vector<uint32_t> out(spans.size(), kNoLane);
    for (size_t i = 0; i < spans.size(); ++i) {
        const AsyncSpan &s = spans[i];
        if (!atStart.empty() && atStartTime < s.start) {
            for (; !atStart.empty(); atStart.pop())
                freeLanes.push(atStart.top());
        }
        for (; !busy.empty() && busy.top().first <= s.start; busy.pop()) {
            if (busy.top().first < s.start) {
                freeLanes.push(busy.top().second);
            } else {
                atStartTime = s.start;
                atStart.push(busy.top().second);
            }
        }
        // An instant at a span's end lies inside it (ends are inclusive for instants).
        MinHeap *from = &freeLanes;
        if (s.end > s.start && !atStart.empty() &&
            (freeLanes.empty() || atStart.top() < freeLanes.top()))
            from = &atStart;
        uint32_t lane = kNoLane;
        if (!from->empty()) {
            lane = from->top();
            from->pop();
        } else if (laneEnd.size() < maxLanes) {
            lane = uint32_t(laneEnd.size());
            laneEnd.push_back(s.end);
        } else {
            continue; // no lane left: kNoLane
        }
        laneEnd[lane] = std::max(laneEnd[lane], s.end);
        busy.emplace(laneEnd[lane], lane);
        out[i] = lane;
    }
    *laneCount = uint32_t(laneEnd.size());
    return out;
}

} // namespace syncline::load
