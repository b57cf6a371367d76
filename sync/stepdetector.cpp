// StepDetector — see stepdetector.h.
#include "stepdetector.h"

#include "hullfitter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

// Interval θ must lie in at time t, propagated from bursts [from, to) with slope a ± rho.
struct Band
{
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
};

Band propagate(std::span<const BurstBound> b, size_t from, size_t to, double a, double rho,
               int64_t t, int64_t v0)
{
    Band band;
    for (size_t j = from; j < to; ++j) {
        const double du = double(t - b[j].tUpper), dl = double(t - b[j].tLower);
        band.hi = std::min(band.hi, double(b[j].upper - v0) + a * du + rho * std::fabs(du));
        band.lo = std::max(band.lo, double(b[j].lower - v0) + a * dl - rho * std::fabs(dl));
    }
    return band;
}

} // namespace

std::vector<size_t> StepDetector::detect(std::span<const BurstBound> bursts) const
{
    std::vector<size_t> steps;
    size_t runStart = 0;
    const HullFitter fitter;
    for (size_t k = 1; k < bursts.size(); ++k) {
        const size_t from = std::max(runStart, k > size_t(m_opt.history) ? k - m_opt.history : 0);
        const BurstBound &cur = bursts[k];
        const int64_t v0 = bursts[from].lower;
        const LineFit f = fitter.fit(bursts.subspan(from, k - from), bursts[from].tMid(), v0);
        const bool known = f.slopeFitted && (k - from) >= 3;
        const double a = known ? f.slope : 0.0;
        const double rho = known ? m_opt.driftAllowance : m_opt.unknownDrift;
        const Band atUpper = propagate(bursts, from, k, a, rho, cur.tUpper, v0);
        const Band atLower = propagate(bursts, from, k, a, rho, cur.tLower, v0);
        const double tol = double(m_opt.toleranceNs);
        const bool below = double(cur.upper - v0) < atUpper.lo - tol;
        const bool above = double(cur.lower - v0) > atLower.hi + tol;
        if (below || above) {
            steps.push_back(k);
            runStart = k;
        }
    }
    return steps;
}

} // namespace syncline::sync
