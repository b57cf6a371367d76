#include "timeline.h"

#include <algorithm>
#include <limits>

namespace syncline {

void Timeline::setMode(ClockMode mode)
{
    m_mode = mode;
    updateRange();
}

const sync::ClockMap &Timeline::map(size_t worker) const
{
    const Worker &w = workers[worker];
    return m_mode == ClockMode::Corrected ? w.corrected : w.raw;
}

int64_t Timeline::startNs(size_t w, size_t track, size_t i) const
{
    return toGlobal(w, workers[w].tracks[track].localStart[i]);
}

int64_t Timeline::endNs(size_t w, size_t track, size_t i) const
{
    return toGlobal(w, workers[w].tracks[track].localEnd[i]);
}

// The origin is the earliest global start: each track is sorted by start, so only the first
// event of every track is mapped. The end needs every event's end (ends are not sorted).
void Timeline::updateRange()
{
    int64_t begin = std::numeric_limits<int64_t>::max();
    int64_t end = std::numeric_limits<int64_t>::min();
    for (size_t w = 0; w < workers.size(); ++w) {
        const sync::ClockMap &m = map(w);
        for (const EventTrack &t : workers[w].tracks) {
            if (t.count() == 0)
                continue;
            begin = std::min(begin, m.toGlobal(t.localStart.front()));
            const int64_t localMax = *std::max_element(t.localEnd.begin(), t.localEnd.end());
            end = std::max(end, m.toGlobal(localMax));
        }
    }
    if (begin > end) {
        begin = 0;
        end = 0;
    }
    m_origin = begin;
    m_begin = begin;
    m_end = end;
}

size_t Timeline::eventCount() const
{
    size_t n = 0;
    for (const auto &w : workers)
        n += w.eventCount();
    return n;
}

} // namespace syncline
