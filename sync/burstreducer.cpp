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
    // Grouped by burst id, in time within an id: bursts may be in flight at once (their
    // exchanges interleave in time and in the file), and one id may be reused after a gap.
    std::sort(sorted.begin(), sorted.end(), [](const ClockSample &a, const ClockSample &b) {
        return a.burst != b.burst ? a.burst < b.burst : a.t1 < b.t1;
    });

    struct Spanned
    {
        BurstBound b;
        int64_t first = 0, last = 0; // earliest t1, latest t4
    };
    const auto absorb = [](Spanned &into, const BurstBound &b, int64_t first, int64_t last) {
        if (b.upper < into.b.upper) {
            into.b.upper = b.upper;
            into.b.tUpper = b.tUpper;
        }
        if (b.lower > into.b.lower) {
            into.b.lower = b.lower;
            into.b.tLower = b.tLower;
        }
        into.b.minRtt = std::min(into.b.minRtt, b.minRtt);
        into.b.count += b.count;
        into.first = std::min(into.first, first);
        into.last = std::max(into.last, last);
    };
    const auto single = [source](const ClockSample &s) {
        BurstBound b;
        b.source = source;
        b.tUpper = s.t1;
        b.upper = s.upperOffset();
        b.tLower = s.t4;
        b.lower = s.lowerOffset();
        b.minRtt = s.roundTrip();
        b.count = 1;
        return b;
    };
    std::vector<Spanned> bursts;
    for (size_t i = 0; i < sorted.size();) {
        Spanned b{single(sorted[i]), sorted[i].t1, sorted[i].t4};
        size_t j = i + 1;
        for (; j < sorted.size(); ++j) {
            const ClockSample &s = sorted[j];
            if (s.burst != sorted[i].burst || s.t1 - b.last > m_maxGapNs)
                break;
            absorb(b, single(s), s.t1, s.t4);
        }
        bursts.push_back(b);
        i = j;
    }
    // Bursts in flight at once (their spans overlap) measured one instant: one burst, so that
    // no fit takes a slope between two of them.
    std::sort(bursts.begin(), bursts.end(),
              [](const Spanned &a, const Spanned &b) { return a.first < b.first; });
    std::vector<BurstBound> out;
    out.reserve(bursts.size());
    for (size_t i = 0; i < bursts.size();) {
        Spanned m = bursts[i];
        size_t j = i + 1;
        for (; j < bursts.size() && bursts[j].first <= m.last; ++j)
            absorb(m, bursts[j].b, bursts[j].first, bursts[j].last);
        out.push_back(m.b);
        i = j;
    }
    std::sort(out.begin(), out.end(),
              [](const BurstBound &a, const BurstBound &b) { return a.tMid() < b.tMid(); });
    return out;
}

} // namespace syncline::sync
