// AccuracyEvaluator — see accuracyevaluator.h.
#include "accuracyevaluator.h"

#include <algorithm>
#include <cmath>
#include <map>

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

} // namespace

AccuracyStats AccuracyEvaluator::evaluate(const SimJob &job, const std::vector<ClockMap> &maps)
{
    AccuracyStats st;
    st.floorNs = job.config.floorNs;
    std::vector<double> errs;
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
    st.violations = causalityViolations(job, maps);
    return st;
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
