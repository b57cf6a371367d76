// ClockMap — a continuous, strictly increasing, piecewise-linear map from one worker's local
// monotonic time to global time (ns), with error bounds per segment.
//
// Invariants:
//  - segments are sorted by localStart and non-empty; segment i applies to
//    [segments[i].localStart, segments[i+1].localStart); the first also applies before its start
//    and the last after its end (flagged Extrapolated when that matters);
//  - continuity: segment i evaluated at segments[i+1].localStart equals segments[i+1].globalStart
//    within 1 ns; every slope > 0, so toGlobal is monotone and toLocal is its inverse (±1 ns);
//  - an empty-constructed map is the identity.
// Threading: immutable after construction; const methods are safe from any thread.
//
// Example: segments {local 0   → global 1000,       slope 1.00001},
//                   {local 1e9 → global 1000011000, slope 1}
//   toGlobal(5e8) = 1000 + 5e8·1.00001 = 500006000;  toGlobal(2e9) = 1000011000 + 1e9.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace syncline::sync {

enum SegmentFlag : uint32_t
{
    SegExtrapolated = 1u << 0, // outside the span covered by samples
    SegStepDetected = 1u << 1, // a clock step was detected inside or at the edge of this segment
    SegFewSamples = 1u << 2,   // fitted from too few samples to trust the statistical band
    SegRepaired = 1u << 3,     // adjusted by causality repair (CLC)
    SegAligned = 1u << 4,      // derived from collective alignment, not from sync samples
    // The worker was synced to another reference clock (another time server's boot) than the
    // job's reference: its samples cannot place it on global time, so the map comes from
    // collectives (with SegAligned) or is the raw wall-clock anchor (no segments, see
    // WorkerClockResult::flags).
    SegOtherReference = 1u << 5,
};

struct ClockSegment
{
    int64_t localStart = 0;  // ns, local clock
    int64_t globalStart = 0; // ns, global clock, = map(localStart)
    double slope = 1.0;      // d global / d local
    int64_t boundNs = 0;     // guaranteed |error| bound inside this segment (0 = unknown/none)
    int64_t bandNs = 0;      // statistical (≈95 %) error band inside this segment
    // Bound under a stated assumption, where the guaranteed one is too wide to act on (collective
    // alignment: ends of one instance simultaneous within the largest residual nearby — see
    // CollectiveAligner); 0 = none (use boundNs).
    int64_t assumedBoundNs = 0;
    uint32_t flags = 0; // SegmentFlag bits
};

class ClockMap
{
public:
    ClockMap(); // identity
    explicit ClockMap(std::vector<ClockSegment> segments);
    static ClockMap offset(int64_t offsetNs); // global = local + offsetNs
    // This map moved by `ns` on the global axis (held at the int64 range: a cache may hold any
    // map); the identity moved is offset(ns).
    ClockMap shifted(int64_t ns) const;

    int64_t toGlobal(int64_t localNs) const;
    int64_t toLocal(int64_t globalNs) const;
    // Batch map; fastest when `local` is sorted ascending (walks segments with a cursor).
    void toGlobal(std::span<const int64_t> local, std::span<int64_t> out) const;
    // Batch global durations: out[i] = toGlobal(end[i]) − toGlobal(start[i]), exactly (the same
    // two evaluations), without the two global arrays; fastest when `start` is ascending and an
    // end mostly lies in its start's segment (a cursor for the starts, one bounds check per end).
    void durations(std::span<const int64_t> start, std::span<const int64_t> end,
                   std::span<int64_t> out) const;

    const ClockSegment &segmentAt(int64_t localNs) const;
    const std::vector<ClockSegment> &segments() const { return m_segments; }
    bool isIdentity() const;

private:
    std::vector<ClockSegment> m_segments;
};

} // namespace syncline::sync
