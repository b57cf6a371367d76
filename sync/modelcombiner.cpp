// ModelCombiner — see modelcombiner.h.
#include "modelcombiner.h"

#include <algorithm>
#include <cmath>

namespace syncline::sync {

namespace {

// Lower is better: sampled, extrapolated, step gap.
int state(const ClockSegment &s)
{
    if (s.flags & SegStepDetected)
        return 2;
    return (s.flags & SegExtrapolated) ? 1 : 0;
}

// A model's sampled span (from its first knot to its last) and the two scales on which it ages
// beyond it: its drift allowance moves it by its own noise at band / ρ (reachNs), and its process
// would have taken its next burst after one burst spacing (spacingNs: the span over the bursts).
// Beyond the span a model is carried along the rate of its edge knot, which the few bursts near
// that edge set: an incarnation's first bursts (several milliseconds of round trip while the job
// starts) gave a rate 260 ppm off, 2.9 ms at 10 s. So a model counts where it has bursts and
// fades within a few burst spacings of them; the models sampled there decide.
struct Reach
{
    int64_t first = 0, last = 0;
    double reachNs = 0;
    double spacingNs = 0;
};

Reach reachOf(const ClockModel &m)
{
    constexpr double kMinReachNs = 1e6, kMaxReachNs = 3600e9; // 1 ms .. 1 h
    const std::vector<ClockSegment> &segs = m.segments;
    Reach r;
    r.first = segs.front().localStart;
    r.last = segs.back().localStart;
    if (segs.size() > 1 && (segs.front().flags & SegExtrapolated))
        r.first = segs[1].localStart;
    double band = 0;
    for (const ClockSegment &s : segs)
        band = std::max(band, double(s.bandNs));
    const double rho = std::max(m.driftAllowance, 1e-7);
    r.reachNs = std::clamp(std::max(band, 100.0) / rho, kMinReachNs, kMaxReachNs);
    const double span = double(r.last) - double(r.first); // in double: forged times may be ±2^62
    r.spacingNs = std::clamp(span / std::max(1, m.bursts - 1), kMinReachNs, kMaxReachNs);
    return r;
}

// The weight of a model at t: 1 inside its sampled span, falling smoothly with the distance d
// beyond it, 1 / (1 + (d / reach)² + (d / spacing)²). Continuous in t, so the combined map has
// no jump where a process's samples begin or end (the first and last records of an incarnation
// lie there).
double weightAt(const Reach &r, int64_t t)
{
    const double d = t < r.first ? double(r.first - t) : t > r.last ? double(t - r.last) : 0.0;
    const double x = d / r.reachNs, y = d / r.spacingNs;
    return 1.0 / (1.0 + x * x + y * y);
}

} // namespace

ClockModel ModelCombiner::combine(const std::vector<ClockModel> &models)
{
    std::vector<ClockMap> maps;
    std::vector<Reach> reach;
    ClockModel out;
    for (const ClockModel &m : models) {
        if (m.segments.empty())
            continue;
        maps.emplace_back(m.segments);
        reach.push_back(reachOf(m));
        if (maps.size() == 1) {
            out.window = m.window;
            out.driftAllowance = m.driftAllowance;
        }
        out.bursts += m.bursts;
        out.droppedBursts += m.droppedBursts;
        out.shortRuns += m.shortRuns;
        out.priorRuns += m.priorRuns;
        out.constantRuns += m.constantRuns;
    }
    if (maps.empty())
        return out;
    if (maps.size() == 1) {
        for (const ClockModel &m : models) {
            if (!m.segments.empty())
                return m;
        }
    }
    std::vector<int64_t> ts;
    for (const ClockMap &m : maps) {
        for (const ClockSegment &s : m.segments())
            ts.push_back(s.localStart);
    }
    // Knots where the weights change: beyond each model's sampled span, at fractions and
    // multiples of its reach (inside the domain's span; the last segment runs on).
    const int64_t domainFirst = *std::min_element(ts.begin(), ts.end());
    const int64_t domainLast = *std::max_element(ts.begin(), ts.end());
    for (const Reach &r : reach) {
        for (double f : {0.25, 0.5, 1.0, 2.0, 4.0}) {
            const int64_t d = int64_t(f * std::min(r.reachNs, r.spacingNs));
            if (r.first - d > domainFirst)
                ts.push_back(r.first - d);
            if (r.last + d < domainLast)
                ts.push_back(r.last + d);
        }
    }
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());

    const size_t n = maps.size();
    std::vector<double> theta(ts.size());
    std::vector<std::vector<double>> each(ts.size(), std::vector<double>(n));
    std::vector<ClockSegment> segs(ts.size());
    std::vector<double> lastWeights(n, 0.0);
    for (size_t i = 0; i < ts.size(); ++i) {
        int best = 3;
        bool anyOutsideGap = false;
        for (size_t s = 0; s < n; ++s) {
            each[i][s] = double(maps[s].toGlobal(ts[i]) - ts[i]);
            const int st = state(maps[s].segmentAt(ts[i]));
            best = std::min(best, st);
            anyOutsideGap = anyOutsideGap || st < 2;
        }
        // θ: the weighted mean of the models outside a step gap (all of them when every one is
        // in its gap: a process that saw the step's two sides tells which side a time is on).
        // Flags: those of the models in the best state there.
        double sum = 0.0, wsum = 0.0, w2sum = 0.0, band = 0.0;
        uint32_t flags = 0;
        for (size_t s = 0; s < n; ++s) {
            const ClockSegment &seg = maps[s].segmentAt(ts[i]);
            const int st = state(seg);
            const double w = (st == 2 && anyOutsideGap) ? 0.0 : weightAt(reach[s], ts[i]);
            if (i + 1 == ts.size())
                lastWeights[s] = w;
            if (st == best)
                flags |= seg.flags;
            if (w <= 0.0)
                continue;
            sum += w * each[i][s];
            wsum += w;
            w2sum += w * w;
            band = std::max(band, double(seg.bandNs));
        }
        theta[i] = sum / wsum;
        segs[i].localStart = ts[i];
        segs[i].globalStart = ts[i] + int64_t(std::llround(theta[i]));
        // The noise of a weighted mean of independent estimates: band · √Σw² / Σw (÷ √n when
        // the weights are equal).
        segs[i].bandNs = int64_t(std::ceil(band * std::sqrt(w2sum) / wsum));
        segs[i].flags = best == 2 ? flags : (flags & ~uint32_t(SegStepDetected));
    }
    for (size_t i = 0; i < ts.size(); ++i) {
        const bool last = i + 1 == ts.size();
        double bound = INFINITY;
        for (size_t s = 0; s < n; ++s) {
            double dist = std::fabs(theta[i] - each[i][s]);
            if (!last)
                dist = std::max(dist, std::fabs(theta[i + 1] - each[i + 1][s]));
            bound = std::min(bound, double(maps[s].segmentAt(ts[i]).boundNs) + dist);
        }
        segs[i].boundNs = int64_t(std::ceil(bound)) + 1; // +1: rounding of the knots
        if (!last) {
            segs[i].slope =
                double(segs[i + 1].globalStart - segs[i].globalStart) / double(ts[i + 1] - ts[i]);
        } else {
            double slope = 0.0, wsum = 0.0;
            for (size_t s = 0; s < n; ++s) {
                slope += lastWeights[s] * maps[s].segments().back().slope;
                wsum += lastWeights[s];
            }
            segs[i].slope = slope / wsum;
        }
    }
    bool inGap = false;
    for (const ClockSegment &s : segs) {
        const bool g = (s.flags & SegStepDetected) != 0;
        out.steps += (g && !inGap) ? 1 : 0;
        inGap = g;
    }
    out.segments = std::move(segs);
    return out;
}

} // namespace syncline::sync
