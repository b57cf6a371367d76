// ShortRunFitter — the fit of a step-free run too short to choose a window from its own data
// (fewer than 8 bursts: no window length has 3 joints to compare; fewer than 16 when one line
// passes every burst's bounds: no window of 4+ bursts has 3 joints), e.g. a 5 s run, or a
// torchelastic incarnation that lives a few seconds.
//
// Such a run cannot always determine its rate. What the bursts *prove* about the rate is the
// feasible slope range: the slopes a for which one line θ = b + a·t passes between every upper
// and every lower bound of the run (the margin g(a) = min_i(U_i − a·tU_i) − max_j(L_j − a·tL_j)
// is concave; the range is where g ≥ 0). Outliers only widen intervals, so the true mean rate
// lies in that range whenever θ is straight over the run. The slope is chosen from the data:
//   1. a prior: the feasible range of all bursts of the clock domain (every process that reads
//      this clock — other workers of the host, the same worker's earlier incarnation) within
//      ±kPriorReachNs of the run, when it is narrower than the run's own. Its centre, clamped into
//      the run's own range (so it never contradicts the run's bursts), is taken;
//   2. otherwise the run's own envelope line (HullFitter; two bursts: the chord through their
//      midpoints, the centre of the range), when its range is narrower than ±kTypicalDrift
//      (the data say more about the rate than the knowledge that oscillators drift by less
//      than ~100 ppm) and, from 3 bursts on, the line predicts each burst's midpoint from the
//      others better than their constant offset does (leave-one-out, errors in units of the
//      burst's interval width);
//   3. otherwise a constant offset (slope 0 clamped into the range): the rate is undetermined,
//      and extrapolating a slope fitted to noise costs more (tens of µs a second on a loaded
//      machine's loopback) than assuming none.
// With the slope fixed, the intercept is the middle of the band the bursts allow; one knot per
// burst. The drift allowance ρ for the guaranteed bound is the distance from the chosen slope to
// the far end of the range that proves it (the prior's ∩ the run's own), at least the caller's
// floor; 200 ppm when the bursts admit no line (curvature or a step the detector missed).
// Units: ns, times relative to t0 and values to v0 (doubles). Pure, thread-safe.
#pragma once

#include "burstreducer.h"
#include "offsetfitter.h"

#include <span>
#include <vector>

namespace syncline::sync {

class ShortRunFitter
{
public:
    static constexpr int kMaxBursts = 8;          // runs below this go through this fitter …
    static constexpr int kMaxLineBursts = 16;     // … and below this when one line fits them all
    static constexpr double kTypicalDrift = 1e-4; // 100 ppm
    static constexpr double kPriorReachNs = 30e9; // domain bursts within 30 s of the run
    static constexpr double kMaxSlope = 1e-3;

    enum class Choice
    {
        Prior,
        Own,
        Constant
    };

    struct SlopeRange
    {
        double lo = 0.0, hi = 0.0;
        bool feasible = false; // false: no line passes every bound
        double width() const { return hi - lo; }
    };

    struct Result
    {
        std::vector<OffsetKnot> knots; // one per burst of the run
        double slope = 0.0;
        double rho = 0.0;
        Choice choice = Choice::Own;
    };

    // `domain`: the bursts of every process of the clock domain (the run's own may be among
    // them), sorted by time; empty when there are none.
    static Result fit(std::span<const BurstBound> run, std::span<const BurstBound> domain,
                      int64_t t0, int64_t v0, double minRho);

    static SlopeRange feasibleSlopes(std::span<const BurstBound> bursts, int64_t t0, int64_t v0);
    // Middle of the intercepts that slope `a` admits.
    static double intercept(std::span<const BurstBound> bursts, double a, int64_t t0, int64_t v0);
};

} // namespace syncline::sync
