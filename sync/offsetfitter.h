// OffsetFitter — fits one step-free run of bursts with overlapping windows of a common slope and
// blends them into one offset estimate per burst (the knots of the piecewise-linear map).
//
// Windows hold W bursts and start every W/2 bursts (the last one is moved back to end at the
// run's end), so every burst lies in two windows (three near the end). Each window is fitted by the
// HullFitter; at a burst the window lines are blended with triangular weights that peak at each
// window's centre, so the estimate moves smoothly from one window's line to the next.
// Statistical band at a knot: 2·σ/√n of the burst midpoints around the dominant window's line
// (σ from the median absolute deviation; residualband.h) plus half the spread of the blended lines there. It does
// not include the unobservable delay asymmetry.
// Units: ns; times relative to t0, offsets relative to v0 (doubles). Pure, thread-safe.
#pragma once

#include "burstreducer.h"

#include <span>
#include <vector>

namespace syncline::sync {

struct OffsetKnot
{
    int64_t t = 0;       // local ns (burst midpoint time)
    double theta = 0.0;  // estimated reference − local at t, relative to v0 (ns)
    double slope = 0.0;  // blended window slope at t (dθ/dt)
    double bandNs = 0.0; // statistical ≈95 % band
    bool fewSamples = false;
};

class OffsetFitter
{
public:
    struct Result
    {
        std::vector<OffsetKnot> knots;    // one per burst of the run, same order
        std::vector<double> windowSlopes; // slope of each window at its centre, in time order
    };

    // quadratic: each window is a parabola (HullFitter::fitQuadratic); knot slopes are then the
    // blended derivatives at the knot.
    Result fitRun(std::span<const BurstBound> run, int window, int64_t t0, int64_t v0,
                  double priorSlope = 0.0, bool quadratic = false) const;
};

} // namespace syncline::sync
