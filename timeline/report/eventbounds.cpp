// EventBounds — see eventbounds.h.
#include "timeline/report/eventbounds.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace syncline {

int64_t EventBounds::medianNs(const Worker &w)
{
    const std::vector<sync::ClockSegment> &segs = w.corrected.segments();
    if (segs.empty())
        return 0;
    // (bound, events) per segment: segment i holds starts in [localStart_i, localStart_i+1),
    // the first also everything before it, the last everything after.
    std::vector<std::pair<int64_t, int64_t>> counts(segs.size());
    int64_t total = 0;
    for (size_t i = 0; i < segs.size(); ++i)
        counts[i].first = segs[i].boundNs;
    for (const EventTrack &t : w.tracks) {
        const auto &starts = t.localStart;
        auto from = starts.begin();
        for (size_t i = 0; i < segs.size(); ++i) {
            const auto to = i + 1 < segs.size()
                                ? std::lower_bound(from, starts.end(), segs[i + 1].localStart)
                                : starts.end();
            counts[i].second += to - from;
            from = to;
        }
        total += int64_t(starts.size());
    }
    if (total == 0)
        return 0;
    std::sort(counts.begin(), counts.end());
    const int64_t rank = (total + 1) / 2; // nearest rank: ceil(n / 2)
    int64_t seen = 0;
    for (const auto &[bound, n] : counts) {
        seen += n;
        if (seen >= rank)
            return bound;
    }
    return counts.back().first;
}

} // namespace syncline
