// AccuracyEvaluator — see accuracyevaluator.h.
#include "accuracyevaluator.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sync/burstreducer.h"

namespace syncline::sim {

using sync::ClockMap;
using sync::ClockSample;

namespace {

double quantile(std::vector<double> &v, double q)
{
    if (v.empty())
        return 0.0;
    const size_t k = std::min(v.size() - 1, size_t(q * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

// A piecewise-linear map through (local, offset) knots, sorted by local time; edge slopes
// extrapolated.
ClockMap throughKnots(std::vector<std::pair<int64_t, double>> knots)
{
    std::sort(knots.begin(), knots.end());
    std::vector<sync::ClockSegment> segs;
    for (const auto &[t, off] : knots) {
        if (!segs.empty() && t <= segs.back().localStart)
            continue;
        sync::ClockSegment s;
        s.localStart = t;
        s.globalStart = t + int64_t(std::llround(off));
        segs.push_back(s);
    }
    if (segs.empty())
        return ClockMap();
    for (size_t i = 0; i + 1 < segs.size(); ++i)
        segs[i].slope = double(segs[i + 1].globalStart - segs[i].globalStart) /
                        double(segs[i + 1].localStart - segs[i].localStart);
    if (segs.size() > 1)
        segs.back().slope = segs[segs.size() - 2].slope;
    return ClockMap(std::move(segs));
}

} // namespace

std::vector<ClockMap> AccuracyEvaluator::minRttPiecewise(const SimJob &job)
{
    std::vector<ClockMap> out;
    for (const SimWorker &w : job.workers) {
        std::map<int, const ClockSample *> best;
        for (const ClockSample &s : w.samples) {
            auto [it, fresh] = best.try_emplace(s.burst, &s);
            if (!fresh && s.roundTrip() < it->second->roundTrip())
                it->second = &s;
        }
        std::vector<std::pair<int64_t, double>> knots;
        for (const auto &[id, s] : best)
            knots.push_back({s->localMid(), 0.5 * double(s->upperOffset() + s->lowerOffset())});
        out.push_back(throughKnots(std::move(knots)));
    }
    return out;
}

std::vector<ClockMap> AccuracyEvaluator::boundMidpointPiecewise(const SimJob &job)
{
    std::vector<ClockMap> out;
    for (const SimWorker &w : job.workers) {
        sync::BurstReducer reducer;
        std::vector<std::pair<int64_t, double>> knots;
        for (const sync::BurstBound &b : reducer.reduce(w.samples))
            knots.push_back({b.tMid(), b.mid()});
        out.push_back(throughKnots(std::move(knots)));
    }
    return out;
}

AccuracyStats AccuracyEvaluator::evaluate(const SimJob &job, const std::vector<ClockMap> &maps)
{
    AccuracyStats st;
    st.floorNs = job.config.floorNs;
    std::vector<double> errs, bounds;
    int64_t covered = 0;
    for (size_t w = 0; w < job.workers.size(); ++w) {
        const ClockMap &m = maps[w];
        for (const SimEvent &e : job.workers[w].events) {
            for (int end = 0; end < 2; ++end) {
                const int64_t local = end ? e.localEnd : e.localBegin;
                const int64_t truth = end ? e.trueEnd : e.trueBegin;
                const double err = std::fabs(double(m.toGlobal(local) - truth));
                const sync::ClockSegment &seg = m.segmentAt(local);
                ++st.stamps;
                covered += err <= double(seg.boundNs) ? 1 : 0;
                bounds.push_back(double(seg.boundNs));
                if (seg.flags & sync::SegStepDetected)
                    ++st.stampsInStepGaps;
                else
                    errs.push_back(err);
            }
        }
    }
    st.coverage = st.stamps ? double(covered) / double(st.stamps) : 0.0;
    st.p50Ns = quantile(errs, 0.5);
    st.p99Ns = quantile(errs, 0.99);
    st.maxNs = errs.empty() ? 0.0 : *std::max_element(errs.begin(), errs.end());
    st.medianBoundNs = quantile(bounds, 0.5);
    st.assumedCoverage = st.coverage; // sync maps: no assumption-based bound
    st.medianAssumedBoundNs = st.medianBoundNs;
    st.violations = causalityViolations(job, maps);
    return st;
}

AccuracyStats AccuracyEvaluator::evaluateRelative(const SimJob &job,
                                                  const std::vector<ClockMap> &maps, int refWorker)
{
    AccuracyStats st;
    const TrueClock &ref = job.clocks[size_t(job.workers[size_t(refWorker)].host)];
    struct Stamp
    {
        double t, err, bound, assumed;
        bool gap;
    };
    std::vector<Stamp> stamps;
    for (size_t w = 0; w < job.workers.size(); ++w) {
        const ClockMap &m = maps[w];
        for (const SimEvent &e : job.workers[w].events) {
            for (int end = 0; end < 2; ++end) {
                const int64_t local = end ? e.localEnd : e.localBegin;
                const double tau = double((end ? e.trueEnd : e.trueBegin) - job.refBase);
                const sync::ClockSegment &seg = m.segmentAt(local);
                stamps.push_back({tau, double(m.toGlobal(local) - ref.local(tau)),
                                  double(seg.boundNs),
                                  double(seg.assumedBoundNs > 0 ? seg.assumedBoundNs : seg.boundNs),
                                  (seg.flags & sync::SegStepDetected) != 0});
            }
        }
    }
    // Least-squares line err = a + b·τ.
    double n = 0, st_ = 0, se = 0, stt = 0, ste = 0;
    for (const Stamp &x : stamps) {
        n += 1;
        st_ += x.t;
        se += x.err;
        stt += x.t * x.t;
        ste += x.t * x.err;
    }
    const double den = n * stt - st_ * st_;
    const double b = den > 0 ? (n * ste - st_ * se) / den : 0.0;
    const double a = n > 0 ? (se - b * st_) / n : 0.0;
    std::vector<double> errs, bounds, assumed;
    int64_t covered = 0, coveredAssumed = 0;
    for (const Stamp &x : stamps) {
        ++st.stamps;
        covered += std::fabs(x.err) <= x.bound + 1.0 ? 1 : 0; // +1: the truth's ns rounding
        coveredAssumed += std::fabs(x.err) <= x.assumed + 1.0 ? 1 : 0;
        bounds.push_back(x.bound);
        assumed.push_back(x.assumed);
        if (x.gap)
            ++st.stampsInStepGaps;
        else
            errs.push_back(std::fabs(x.err - a - b * x.t));
    }
    st.coverage = st.stamps ? double(covered) / double(st.stamps) : 0.0;
    st.p50Ns = quantile(errs, 0.5);
    st.p99Ns = quantile(errs, 0.99);
    st.maxNs = errs.empty() ? 0.0 : *std::max_element(errs.begin(), errs.end());
    st.medianBoundNs = quantile(bounds, 0.5);
    st.assumedCoverage = st.stamps ? double(coveredAssumed) / double(st.stamps) : 0.0;
    st.medianAssumedBoundNs = quantile(assumed, 0.5);
    st.violations = causalityViolations(job, maps);
    return st;
}

double AccuracyEvaluator::collectiveEndSpreadNs(const SimJob &job)
{
    std::map<std::pair<uint32_t, int64_t>, std::pair<int64_t, int64_t>> span;
    std::vector<std::map<std::pair<int64_t, int64_t>, int64_t>> trueEnd(job.workers.size());
    for (size_t w = 0; w < job.workers.size(); ++w) {
        for (const SimEvent &e : job.workers[w].events)
            trueEnd[w].emplace(std::make_pair(e.localBegin, e.localEnd), e.trueEnd);
    }
    for (const sync::CollectiveInstance &c : job.collectives) {
        const auto &ends = trueEnd[size_t(c.workerId)];
        const auto e = ends.find({c.localBegin, c.localEnd});
        if (e == ends.end())
            continue;
        auto [it, fresh] = span.try_emplace({c.nameId, c.sequence}, e->second, e->second);
        it->second.first = std::min(it->second.first, e->second);
        it->second.second = std::max(it->second.second, e->second);
    }
    double worst = 0.0;
    for (const auto &[k, v] : span)
        worst = std::max(worst, double(v.second - v.first));
    return worst;
}

int AccuracyEvaluator::stepsOnStepFreeClocks(const SimJob &job, const std::vector<ClockMap> &maps)
{
    int steps = 0;
    std::vector<bool> seen(job.clocks.size(), false);
    for (size_t w = 0; w < job.workers.size(); ++w) {
        const int h = job.workers[w].host;
        if (seen[size_t(h)] || !job.clocks[size_t(h)].steps().empty())
            continue;
        seen[size_t(h)] = true;
        bool inGap = false;
        for (const sync::ClockSegment &s : maps[w].segments()) {
            const bool g = (s.flags & sync::SegStepDetected) != 0;
            steps += (g && !inGap) ? 1 : 0;
            inGap = g;
        }
    }
    return steps;
}

int64_t AccuracyEvaluator::causalityViolations(const SimJob &job, const std::vector<ClockMap> &maps)
{
    int64_t v = 0;
    for (const SimMessage &m : job.messages) {
        if (maps[size_t(m.recvWorker)].toGlobal(m.recvLocal) <
            maps[size_t(m.sendWorker)].toGlobal(m.sendLocal))
            ++v;
    }
    std::map<std::pair<uint32_t, int64_t>, std::pair<int64_t, std::vector<int64_t>>> inst;
    for (const sync::CollectiveInstance &c : job.collectives) {
        auto &[latestBegin, ends] =
            inst.try_emplace({c.nameId, c.sequence}, INT64_MIN, std::vector<int64_t>{})
                .first->second;
        latestBegin = std::max(latestBegin, maps[size_t(c.workerId)].toGlobal(c.localBegin));
        ends.push_back(maps[size_t(c.workerId)].toGlobal(c.localEnd));
    }
    for (const auto &[key, val] : inst) {
        for (int64_t e : val.second)
            v += e < val.first ? 1 : 0;
    }
    return v;
}

std::vector<ClockMap> AccuracyEvaluator::commonPractice(const SimJob &job)
{
    std::vector<ClockMap> out;
    for (const SimWorker &w : job.workers) {
        if (w.samples.empty()) {
            out.emplace_back();
            continue;
        }
        const int firstBurst = w.samples.front().burst, lastBurst = w.samples.back().burst;
        auto best = [&](int burst) {
            const ClockSample *b = nullptr;
            for (const ClockSample &s : w.samples) {
                if (s.burst == burst && (!b || s.roundTrip() < b->roundTrip()))
                    b = &s;
            }
            return *b;
        };
        const ClockSample a = best(firstBurst), b = best(lastBurst);
        const double ta = double(a.localMid()), tb = double(b.localMid());
        const double oa = 0.5 * double(a.upperOffset() + a.lowerOffset());
        const double ob = 0.5 * double(b.upperOffset() + b.lowerOffset());
        const double slope = tb > ta ? (ob - oa) / (tb - ta) : 0.0;
        sync::ClockSegment s;
        s.localStart = a.localMid();
        s.globalStart = s.localStart + int64_t(std::llround(oa));
        s.slope = 1.0 + slope;
        out.emplace_back(std::vector<sync::ClockSegment>{s});
    }
    return out;
}

} // namespace syncline::sim
