// residualBand — the statistical band of a fitted offset: 2·σ/√n, with σ = 1.4826 · the median
// absolute deviation (MAD) of the bursts' midpoints about the fit — about the 95 % interval of
// the mean of n midpoints, robust to a few stalled bursts. It does not include the unobservable
// delay asymmetry. The one rule for OffsetFitter's windows and ShortRunFitter's short runs.
// Units: ns; t relative to t0, values relative to v0. Pure, thread-safe.
#pragma once

#include "burstreducer.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace syncline::sync {

// 1.4826 · MAD (the upper median for an even count); 0 for fewer than two values.
inline double robustSigma(std::vector<double> r)
{
    if (r.size() < 2)
        return 0.0;
    auto med = [](std::vector<double> &v) {
        std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    const double m = med(r);
    for (double &x : r)
        x = std::fabs(x - m);
    return 1.4826 * med(r);
}

// `fit(t)`: the fitted offset at t (relative to t0), relative to v0.
template <typename Fit>
double residualBand(std::span<const BurstBound> bursts, int64_t t0, int64_t v0, Fit fit)
{
    if (bursts.empty())
        return 0.0;
    std::vector<double> resid;
    resid.reserve(bursts.size());
    for (const BurstBound &b : bursts)
        resid.push_back(b.mid() - double(v0) - fit(double(b.tMid() - t0)));
    return 2.0 * robustSigma(std::move(resid)) / std::sqrt(double(bursts.size()));
}

} // namespace syncline::sync
