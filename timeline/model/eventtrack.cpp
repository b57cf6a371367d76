#include "timeline/model/eventtrack.h"

#include <algorithm>

namespace syncline {

std::string EventTrack::labelOf(const std::string &threadName, int64_t tid)
{
    const std::string id = std::to_string(tid);
    if (threadName.empty())
        return "thread " + id;
    // The tid as a whole number in the name (not a part of a longer one).
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (size_t at = threadName.find(id); at != std::string::npos;
         at = threadName.find(id, at + 1)) {
        const size_t end = at + id.size();
        if ((at == 0 || !digit(threadName[at - 1]) || id[0] == '-') &&
            (end == threadName.size() || !digit(threadName[end])))
            return threadName;
    }
    return threadName + " (" + id + ")";
}

int EventTrack::lastIndexStartingBefore(int64_t localT) const
{
    auto it = std::upper_bound(localStart.begin(), localStart.end(), localT);
    return static_cast<int>(it - localStart.begin()) - 1;
}

// Events are sorted by start and nest perfectly, so every event that contains t is an ancestor
// (or self) of j = the last event starting at or before t. Walking j's parent chain upwards, the
// highest ancestor still ending at or after t is the first such event in index order; if none
// does, the answer is j + 1 (it starts after t, so it also ends after t).
// Example: A[0,10] B[1,3] C[4,6]: t=5 → j=C, C ends 6 ≥ 5, parent A ends 10 ≥ 5 → A (index 0).
int EventTrack::firstIndexEndingAfter(int64_t localT) const
{
    const int n = static_cast<int>(count());
    int j = lastIndexStartingBefore(localT);
    int best = -1;
    for (int k = j; k >= 0; k = parent.empty() ? -1 : parent[k]) {
        if (localEnd[k] >= localT)
            best = k;
    }
    if (best >= 0)
        return best;
    return j + 1 < n ? j + 1 : -1;
}

int64_t EventTrack::argsId(uint32_t event) const
{
    if (!argDense.empty())
        return event < argDense.size() && argDense[event] != kNoArgs ? int64_t(argDense[event])
                                                                     : -1;
    auto it = std::lower_bound(
        argRefs.begin(), argRefs.end(), event,
        [](const std::pair<uint32_t, uint32_t> &r, uint32_t e) { return r.first < e; });
    if (it == argRefs.end() || it->first != event)
        return -1;
    return it->second;
}

size_t EventTrack::argCount() const
{
    if (argDense.empty())
        return argRefs.size();
    return size_t(
        std::count_if(argDense.begin(), argDense.end(), [](uint32_t id) { return id != kNoArgs; }));
}

void EventTrack::compactArgs()
{
    if (!argDense.empty() || argRefs.size() * 2 <= count())
        return;
    std::vector<uint32_t> dense(count(), kNoArgs);
    for (const auto &[e, id] : argRefs)
        if (e < dense.size())
            dense[e] = id;
    argDense = std::move(dense);
    std::vector<std::pair<uint32_t, uint32_t>>().swap(argRefs);
}

void EventTrack::remapArgIds(const std::vector<uint32_t> &map)
{
    for (auto &r : argRefs)
        r.second = map[r.second];
    for (uint32_t &id : argDense)
        if (id != kNoArgs)
            id = map[id];
}

void EventTrack::reserve(size_t n)
{
    localStart.reserve(n);
    localEnd.reserve(n);
    nameId.reserve(n);
    parent.reserve(n);
    depth.reserve(n);
    flags.reserve(n);
}

} // namespace syncline
