// StepDetector — see stepdetector.h.
#include "stepdetector.h"

#include "hullfitter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

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

std::vector<size_t> StepDetector::detectOne(std::span<const BurstBound> bursts) const
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

namespace syncline::sync {

std::vector<size_t> StepDetector::detect(std::span<const BurstBound> bursts,
                                         std::vector<size_t> *ambiguous) const
{
    if (ambiguous)
        ambiguous->clear();
    std::map<int, std::vector<size_t>> bySource;
    for (size_t i = 0; i < bursts.size(); ++i)
        bySource[bursts[i].source].push_back(i);
    if (bySource.size() <= 1)
        return detectOne(bursts);
    // Per source: the step lies between the source's burst before and its burst after.
    struct Interval
    {
        int64_t after = 0, before = 0; // tMid of the last burst before / first burst after
    };
    std::vector<Interval> found;
    std::vector<BurstBound> own;
    for (const auto &[src, idx] : bySource) {
        own.clear();
        for (size_t i : idx)
            own.push_back(bursts[i]);
        for (size_t k : detectOne(own))
            found.push_back({own[k - 1].tMid(), own[k].tMid()});
    }
    std::sort(found.begin(), found.end(),
              [](const Interval &a, const Interval &b) { return a.after < b.after; });
    // Overlapping detections are one step, in the intersection of their intervals.
    std::vector<Interval> merged;
    for (const Interval &iv : found) {
        if (!merged.empty() && iv.after < merged.back().before) {
            merged.back().after = std::max(merged.back().after, iv.after);
            merged.back().before = std::min(merged.back().before, iv.before);
        } else {
            merged.push_back(iv);
        }
    }
    std::vector<size_t> cuts;
    for (const Interval &iv : merged) {
        // First pooled burst after the step's earliest possible time...
        size_t k =
            size_t(std::upper_bound(bursts.begin(), bursts.end(), iv.after,
                                    [](int64_t t, const BurstBound &b) { return t < b.tMid(); }) -
                   bursts.begin());
        if (k == 0 || k >= bursts.size() || (!cuts.empty() && k <= cuts.back()))
            continue;
        cuts.push_back(k);
        // ...and those before its latest possible time belong to neither side.
        for (size_t j = k; j < bursts.size() && bursts[j].tMid() < iv.before; ++j) {
            if (ambiguous)
                ambiguous->push_back(j);
        }
    }
    return cuts;
}

} // namespace syncline::sync
