// BurstReducer — reduces raw NTP-style exchanges to one pair of one-sided bounds per burst.
//
// For each burst the tightest bound in each direction is kept separately: the smallest upper
// bound t2−t1 (at local time t1 of that exchange) and the largest lower bound t3−t4 (at local time
// t4 of that exchange). They may come from different exchanges; that is the point — queueing on
// the way out and on the way back is independent, so the min-RTT exchange is rarely best in both.
// Invariants of the output: sorted by time (tMid ascending); lower <= upper is NOT guaranteed
// when the true offset moved inside a burst (a clock step), the caller detects that.
// Units: ns. Pure function, thread-safe.
#pragma once

#include "clocksample.h"

#include <cstdint>
#include <span>
#include <vector>

namespace syncline::sync {

struct BurstBound
{
    int64_t tUpper = 0; // local ns where `upper` holds (t1 of the best forward exchange)
    int64_t upper = 0;  // θ <= upper  (θ = reference − local)
    int64_t tLower = 0; // local ns where `lower` holds (t4 of the best backward exchange)
    int64_t lower = 0;  // θ >= lower
    int64_t minRtt = 0; // smallest round trip in the burst (ns)
    int count = 0;      // exchanges in the burst
    int source = 0;     // caller's tag (e.g. worker id) of the samples

    int64_t tMid() const { return tUpper + (tLower - tUpper) / 2; }
    double mid() const { return 0.5 * (double(upper) + double(lower)); }
    int64_t width() const { return upper - lower; }
};

class BurstReducer
{
public:
    // A burst is the exchanges of one burst id (the caller passes one reference's samples),
    // split where two of them, in time order, are more than maxGapNs apart. Bursts may be in
    // flight at once: exchanges of different ids interleave freely (docs/log-format.md); bursts
    // whose spans (earliest t1 .. latest t4) overlap are one measurement instant and are merged.
    explicit BurstReducer(int64_t maxGapNs = 1'000'000'000) : m_maxGapNs(maxGapNs) {}

    // Invalid exchanges (t4 < t1, t3 < t2, or negative round trip) are skipped and counted.
    std::vector<BurstBound> reduce(std::span<const ClockSample> samples, int source = 0);
    int skipped() const { return m_skipped; }

private:
    int64_t m_maxGapNs;
    int m_skipped = 0;
};

} // namespace syncline::sync
