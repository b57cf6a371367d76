#include "timeline/model/timeline.h"

#include <algorithm>
#include <limits>

namespace syncline {

int64_t Timeline::startNs(size_t w, size_t track, size_t i, ClockMode mode) const
{
    return toGlobal(w, workers[w].tracks[track].localStart[i], mode);
}

int64_t Timeline::endNs(size_t w, size_t track, size_t i, ClockMode mode) const
{
    return toGlobal(w, workers[w].tracks[track].localEnd[i], mode);
}

int64_t Timeline::earliestStart(ClockMode mode) const
{
    int64_t begin = std::numeric_limits<int64_t>::max();
    for (size_t w = 0; w < workers.size(); ++w) {
        const sync::ClockMap &m = map(w, mode);
        for (const EventTrack &t : workers[w].tracks)
            if (t.count() > 0)
                begin = std::min(begin, m.toGlobal(t.localStart.front()));
    }
    return begin;
}

void Timeline::updateRange()
{
    for (const ClockMode mode : {ClockMode::Corrected, ClockMode::Raw}) {
        const int64_t begin = earliestStart(mode);
        int64_t end = std::numeric_limits<int64_t>::min();
        for (size_t w = 0; w < workers.size(); ++w) {
            const sync::ClockMap &m = map(w, mode);
            for (const EventTrack &t : workers[w].tracks)
                if (t.count() > 0)
                    end = std::max(
                        end, m.toGlobal(*std::max_element(t.localEnd.begin(), t.localEnd.end())));
        }
        m_range[index(mode)] = begin > end ? TimeRange{} : TimeRange{begin, begin, end};
        if (window.active)
            m_range[index(mode)].origin = window.job[index(mode)].origin;
    }
}

void Timeline::setLiveRange(ClockMode mode, int64_t endNs)
{
    const int64_t begin = std::min(earliestStart(mode), endNs);
    m_range[index(mode)] = {begin, begin, endNs};
}

size_t Timeline::eventCount() const
{
    size_t n = 0;
    for (const auto &w : workers)
        n += w.eventCount();
    return n;
}

} // namespace syncline
