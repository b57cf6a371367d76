// StepDetector — finds clock steps in a time-ordered series of burst bounds.
//
// Every burst gives a guaranteed interval lower <= θ <= upper (delays are never negative), so an
// outlier can only widen an interval, never move it. Propagating the intervals of the previous
// bursts forward with the fitted drift ± an allowance gives an interval θ must lie in at the next
// burst; when the next burst's own interval does not intersect it (beyond read-noise tolerance), θ
// jumped: a step between the two bursts. Steps smaller than the interval widths are not detectable
// this way and are absorbed by the fit (documented in docs/sync.md).
// Output: indices k such that a step lies between burst k−1 and burst k, ascending.
//
// Several sources (BurstBound::source: the processes of one host, pooled into one clock domain)
// are compared like with like: each source's bursts are checked against that source's own
// history only. Pooled, a 2-burst history of two processes spans milliseconds, its fitted slope is
// noise, and the next second's burst then "misses" the prediction — false steps by the hundred.
// A step found by any source is a step of the domain (the intervals are guaranteed); detections of
// several sources whose intervals (last burst before, first burst after) overlap are one step,
// placed in the intersection. Bursts of other sources that lie inside that intersection cannot be
// assigned to either side; they are reported as ambiguous.
// Pure, thread-safe.
#pragma once

#include "burstreducer.h"

#include <span>
#include <vector>

namespace syncline::sync {

class StepDetector
{
public:
    struct Options
    {
        int history = 8;              // bursts used to predict the next one
        double driftAllowance = 2e-6; // |θ'' · Δt| allowance (dimensionless, per ns elapsed)
        double unknownDrift = 2e-4;   // allowance while the drift is not yet known
        int64_t toleranceNs = 200;    // clock-read noise tolerance
    };

    StepDetector() = default;
    explicit StepDetector(const Options &o) : m_opt(o) {}

    // `bursts` sorted by tMid. *ambiguous (optional) gets the indices of bursts inside a step's
    // interval that belong to neither side (only with several sources), ascending.
    std::vector<size_t> detect(std::span<const BurstBound> bursts,
                               std::vector<size_t> *ambiguous = nullptr) const;

private:
    std::vector<size_t> detectOne(std::span<const BurstBound> bursts) const;
    Options m_opt;
};

} // namespace syncline::sync
