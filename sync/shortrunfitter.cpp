// ShortRunFitter — see shortrunfitter.h.
#include "shortrunfitter.h"

#include "hullfitter.h"
#include "residualband.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

constexpr double kUnknownDrift = 2e-4; // allowance when the bursts admit no line at all

struct Bounds
{
    std::vector<double> tu, u, tl, l; // relative to (t0, v0)
};

Bounds relative(std::span<const BurstBound> bursts, int64_t t0, int64_t v0)
{
    Bounds b;
    for (const BurstBound &x : bursts) {
        if (x.lower > x.upper)
            continue; // a step inside the burst: it proves nothing about one line
        b.tu.push_back(double(x.tUpper - t0));
        b.u.push_back(double(x.upper - v0));
        b.tl.push_back(double(x.tLower - t0));
        b.l.push_back(double(x.lower - v0));
    }
    return b;
}

// Highest and lowest intercept slope a admits; their difference is the margin.
void band(const Bounds &b, double a, double &hi, double &lo)
{
    hi = std::numeric_limits<double>::infinity();
    lo = -hi;
    for (size_t i = 0; i < b.u.size(); ++i) {
        hi = std::min(hi, b.u[i] - a * b.tu[i]);
        lo = std::max(lo, b.l[i] - a * b.tl[i]);
    }
}

double margin(const Bounds &b, double a)
{
    double hi, lo;
    band(b, a, hi, lo);
    return hi - lo;
}

ShortRunFitter::SlopeRange feasible(const Bounds &b)
{
    ShortRunFitter::SlopeRange r;
    if (b.u.empty())
        return r;
    const double m = ShortRunFitter::kMaxSlope;
    // g is concave: ternary search for its maximum, then bisect for the two roots.
    double lo = -m, hi = m;
    for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
        const double a1 = lo + (hi - lo) / 3, a2 = hi - (hi - lo) / 3;
        if (margin(b, a1) < margin(b, a2))
            lo = a1;
        else
            hi = a2;
    }
    const double best = 0.5 * (lo + hi);
    if (margin(b, best) < 0.0)
        return r;
    auto root = [&](double inside, double outside) {
        if (margin(b, outside) >= 0.0)
            return outside;
        for (int i = 0; i < 100 && std::fabs(outside - inside) > 1e-13; ++i) {
            const double mid = 0.5 * (inside + outside);
            (margin(b, mid) >= 0.0 ? inside : outside) = mid;
        }
        return inside;
    };
    r.lo = root(best, -m);
    r.hi = root(best, m);
    r.feasible = true;
    return r;
}

// Leave-one-out: each burst's midpoint predicted from the others by their envelope line and by
// their constant offset (slope 0); errors in units of the burst's own interval width (a wide
// burst says less). True when the line predicts better (median over the bursts: one stalled burst
// must not decide) — the run shows a rate above its noise.
bool lineBeatsConstant(std::span<const BurstBound> run, int64_t t0, int64_t v0)
{
    const HullFitter fitter;
    std::vector<BurstBound> others;
    std::vector<double> line, constant;
    for (size_t k = 0; k < run.size(); ++k) {
        others.clear();
        for (size_t j = 0; j < run.size(); ++j)
            if (j != k)
                others.push_back(run[j]);
        const double t = double(run[k].tMid() - t0), m = run[k].mid() - double(v0);
        const double w = std::max(1.0, double(run[k].width()));
        const LineFit f = fitter.fit(others, t0, v0);
        line.push_back(std::fabs(f.value(t) - m) / w);
        constant.push_back(std::fabs(ShortRunFitter::intercept(others, 0.0, t0, v0) - m) / w);
    }
    auto median = [](std::vector<double> &v) {
        std::sort(v.begin(), v.end());
        const size_t h = v.size() / 2;
        return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
    };
    return median(line) < median(constant);
}

} // namespace

ShortRunFitter::SlopeRange ShortRunFitter::feasibleSlopes(std::span<const BurstBound> bursts,
                                                          int64_t t0, int64_t v0)
{
    return feasible(relative(bursts, t0, v0));
}

double ShortRunFitter::intercept(std::span<const BurstBound> bursts, double a, int64_t t0,
                                 int64_t v0)
{
    double hi, lo;
    band(relative(bursts, t0, v0), a, hi, lo);
    if (!std::isfinite(hi) || !std::isfinite(lo))
        return 0.0;
    return 0.5 * (hi + lo);
}

ShortRunFitter::Result ShortRunFitter::fit(std::span<const BurstBound> run,
                                           std::span<const BurstBound> domain, int64_t t0,
                                           int64_t v0, double minRho)
{
    Result res;
    if (run.empty())
        return res;
    const SlopeRange own = feasibleSlopes(run, t0, v0);
    // The domain's bursts near the run (other processes on the same clock; the run's own are
    // among them, so this range is never wider than the run's own).
    SlopeRange prior;
    size_t near = 0;
    {
        const double from = double(run.front().tMid()) - kPriorReachNs;
        const double to = double(run.back().tMid()) + kPriorReachNs;
        std::vector<BurstBound> pool;
        for (const BurstBound &b : domain) {
            if (double(b.tMid()) >= from && double(b.tMid()) <= to)
                pool.push_back(b);
        }
        near = pool.size();
        if (near > run.size())
            prior = feasibleSlopes(pool, t0, v0);
    }
    auto clampInto = [](double a, const SlopeRange &r) {
        return r.feasible ? std::clamp(a, r.lo, r.hi) : a;
    };
    SlopeRange proof = own;
    const double tSpan = double(run.back().tMid() - run.front().tMid());
    if (prior.feasible && (!own.feasible || prior.width() < own.width())) {
        res.choice = Choice::Prior;
        res.slope = clampInto(0.5 * (prior.lo + prior.hi), own);
        proof = prior;
    } else if (own.feasible && 0.5 * own.width() <= kTypicalDrift && run.size() >= 2 &&
               tSpan >= 1e6 && (run.size() < 3 || lineBeatsConstant(run, t0, v0))) {
        res.choice = Choice::Own;
        // Two bursts: the centre of the range is the chord through both midpoints (the
        // envelope fit's flat margin, whose maximum a tU ≠ tL tilts to one end); more: the
        // envelope line.
        res.slope = run.size() == 2 ? 0.5 * (own.lo + own.hi)
                                    : clampInto(HullFitter().fit(run, t0, v0).slope, own);
    } else {
        res.choice = Choice::Constant;
        res.slope = clampInto(0.0, own);
    }
    res.rho = proof.feasible ? std::clamp(std::max(res.slope - proof.lo, proof.hi - res.slope),
                                          minRho, kUnknownDrift)
                             : kUnknownDrift;
    const double b = intercept(run, res.slope, t0, v0);
    const double bandNs = residualBand(run, t0, v0, [&](double t) { return b + res.slope * t; });
    for (const BurstBound &x : run) {
        OffsetKnot k;
        k.t = x.tMid();
        k.theta = b + res.slope * double(x.tMid() - t0);
        k.slope = res.slope;
        k.bandNs = bandNs;
        k.fewSamples = run.size() < 4;
        res.knots.push_back(k);
    }
    return res;
}

} // namespace syncline::sync
