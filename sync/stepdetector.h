// StepDetector — finds clock steps in a time-ordered series of burst bounds.
//
// Every burst gives a guaranteed interval lower <= θ <= upper (delays are never negative), so an
// outlier can only widen an interval, never move it. Propagating the intervals of the previous
// bursts forward with the fitted drift ± an allowance gives an interval θ must lie in at the next
// burst; when the next burst's own interval does not intersect it (beyond read-noise tolerance), θ
// jumped: a step between the two bursts. Steps smaller than the interval widths are not detectable
// this way and are absorbed by the fit (documented in docs/sync.md).
// Output: indices k such that a step lies between burst k−1 and burst k, ascending.
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

    std::vector<size_t> detect(std::span<const BurstBound> bursts) const;

private:
    Options m_opt;
};

} // namespace syncline::sync
