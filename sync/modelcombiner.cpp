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

} // namespace

ClockModel ModelCombiner::combine(const std::vector<ClockModel> &models)
{
    std::vector<ClockMap> maps;
    ClockModel out;
    for (const ClockModel &m : models) {
        if (m.segments.empty())
            continue;
        maps.emplace_back(m.segments);
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
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());

    const size_t n = maps.size();
    std::vector<double> theta(ts.size());
    std::vector<std::vector<double>> each(ts.size(), std::vector<double>(n));
    std::vector<ClockSegment> segs(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) {
        int best = 3;
        for (size_t s = 0; s < n; ++s) {
            each[i][s] = double(maps[s].toGlobal(ts[i]) - ts[i]);
            best = std::min(best, state(maps[s].segmentAt(ts[i])));
        }
        double sum = 0.0, band = 0.0;
        int used = 0;
        uint32_t flags = 0;
        for (size_t s = 0; s < n; ++s) {
            const ClockSegment &seg = maps[s].segmentAt(ts[i]);
            if (state(seg) != best)
                continue;
            sum += each[i][s];
            band = std::max(band, double(seg.bandNs));
            flags |= seg.flags;
            ++used;
        }
        theta[i] = sum / used;
        segs[i].localStart = ts[i];
        segs[i].globalStart = ts[i] + int64_t(std::llround(theta[i]));
        segs[i].bandNs = int64_t(std::ceil(band / std::sqrt(double(used))));
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
            double slope = 0.0;
            for (const ClockMap &m : maps)
                slope += m.segments().back().slope / double(n);
            segs[i].slope = slope;
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
