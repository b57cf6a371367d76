// BurstReducer — see burstreducer.h.
#include "burstreducer.h"

#include <algorithm>

namespace syncline::sync {

std::vector<BurstBound> BurstReducer::reduce(std::span<const ClockSample> samples, int source)
{
    std::vector<ClockSample> sorted;
    sorted.reserve(samples.size());
    for (const ClockSample &s : samples) {
        if (s.t4 < s.t1 || s.t3 < s.t2 || s.roundTrip() < 0) {
            ++m_skipped;
            continue;
        }
        sorted.push_back(s);
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const ClockSample &a, const ClockSample &b) { return a.t1 < b.t1; });

    std::vector<BurstBound> out;
    size_t i = 0;
    while (i < sorted.size()) {
        BurstBound b;
        b.source = source;
        b.tUpper = sorted[i].t1;
        b.upper = sorted[i].upperOffset();
        b.tLower = sorted[i].t4;
        b.lower = sorted[i].lowerOffset();
        b.minRtt = sorted[i].roundTrip();
        b.count = 1;
        size_t j = i + 1;
        for (; j < sorted.size(); ++j) {
            const ClockSample &s = sorted[j];
            if (s.burst != sorted[i].burst || s.t1 - sorted[j - 1].t4 > m_maxGapNs)
                break;
            if (s.upperOffset() < b.upper) {
                b.upper = s.upperOffset();
                b.tUpper = s.t1;
            }
            if (s.lowerOffset() > b.lower) {
                b.lower = s.lowerOffset();
                b.tLower = s.t4;
            }
            b.minRtt = std::min(b.minRtt, s.roundTrip());
            ++b.count;
        }
        out.push_back(b);
        i = j;
    }
    std::sort(out.begin(), out.end(),
              [](const BurstBound &a, const BurstBound &b) { return a.tMid() < b.tMid(); });
    return out;
}

} // namespace syncline::sync
