// OffsetFitter — see offsetfitter.h.
#include "offsetfitter.h"

#include "hullfitter.h"
#include "residualband.h"

#include <algorithm>
#include <cmath>

namespace syncline::sync {

namespace {

struct Window
{
    size_t first = 0, last = 0; // burst indices, inclusive
    LineFit fit;
    double centre = 0.0, half = 1.0;
    double band = 0.0;
};

std::vector<size_t> windowStarts(size_t n, size_t w, size_t hop)
{
    std::vector<size_t> starts;
    if (n <= w) {
        starts.push_back(0);
        return starts;
    }
    for (size_t s = 0; s + w < n; s += hop)
        starts.push_back(s);
    starts.push_back(n - w);
    return starts;
}

} // namespace

OffsetFitter::Result OffsetFitter::fitRun(std::span<const BurstBound> run, int window, int64_t t0,
                                          int64_t v0, double priorSlope, bool quadratic) const
{
    Result res;
    const size_t n = run.size();
    if (n == 0)
        return res;
    const size_t w = std::max<size_t>(1, size_t(std::max(window, 1)));
    const HullFitter fitter;
    std::vector<Window> wins;
    // Lines: windows every W/2. Parabolas are trustworthy only near their centre (their ends
    // swing with the curvature's uncertainty): one window centred on every burst.
    const size_t hop = quadratic ? 1 : std::max<size_t>(1, w / 2);
    for (size_t s : windowStarts(n, w, hop)) {
        Window win;
        win.first = s;
        win.last = std::min(n, s + w) - 1;
        const auto sub = run.subspan(s, win.last - s + 1);
        win.fit = quadratic ? fitter.fitQuadratic(sub, t0, v0, priorSlope)
                            : fitter.fit(sub, t0, v0, priorSlope);
        const double ta = double(run[win.first].tMid() - t0),
                     tb = double(run[win.last].tMid() - t0);
        win.centre = 0.5 * (ta + tb);
        win.half = std::max(0.5 * (tb - ta), 1.0);
        win.band = residualBand(sub, t0, v0, [&](double t) { return win.fit.value(t); });
        res.windowSlopes.push_back(win.fit.slopeAt(win.centre));
        wins.push_back(win);
    }

    res.knots.resize(n);
    size_t wi = 0;
    for (size_t k = 0; k < n; ++k) {
        while (wi < wins.size() && wins[wi].last < k)
            ++wi;
        const double t = double(run[k].tMid() - t0);
        double sw = 0.0, sv = 0.0, ss = 0.0, vmin = 1e300, vmax = -1e300, bestW = -1.0, band = 0.0;
        for (size_t j = wi; j < wins.size() && wins[j].first <= k; ++j) {
            const Window &win = wins[j];
            const double wt = std::max(1e-3, 1.0 - std::fabs(t - win.centre) / win.half);
            const double v = win.fit.value(t);
            sw += wt;
            sv += wt * v;
            ss += wt * win.fit.slopeAt(t);
            vmin = std::min(vmin, v);
            vmax = std::max(vmax, v);
            if (wt > bestW) {
                bestW = wt;
                band = win.band;
            }
        }
        OffsetKnot &kn = res.knots[k];
        kn.t = run[k].tMid();
        kn.theta = sv / sw;
        kn.slope = ss / sw;
        kn.bandNs = band + 0.5 * (vmax - vmin);
        kn.fewSamples = n < 4;
    }
    return res;
}

} // namespace syncline::sync
