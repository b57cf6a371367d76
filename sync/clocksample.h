// ClockSample — one NTP-style time exchange between a worker and the reference clock.
//
// Invariants: t1 <= t4 (local monotonic ns, same clock), t2 <= t3 (reference ns).
// The reference-minus-local offset θ at the moment of the exchange satisfies
//     t3 - t4  <=  θ  <=  t2 - t1      (delays are non-negative)
// so each sample gives a guaranteed interval for θ; its width is the round trip minus the
// server's processing time. Plain value type; no threading rules.
#pragma once

#include <cstdint>

namespace syncline::sync {

struct ClockSample
{
    int64_t t1 = 0; // local send time (ns)
    int64_t t2 = 0; // reference receive time (ns)
    int64_t t3 = 0; // reference send time (ns)
    int64_t t4 = 0; // local receive time (ns)
    int32_t burst = 0;
    int32_t seq = 0;

    int64_t upperOffset() const { return t2 - t1; } // θ <= this
    int64_t lowerOffset() const { return t3 - t4; } // θ >= this
    int64_t roundTrip() const { return (t4 - t1) - (t3 - t2); }
    int64_t localMid() const { return t1 + (t4 - t1) / 2; }
};

} // namespace syncline::sync
