// CollectiveAligner — see collectivealigner.h.
#include "collectivealigner.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace syncline::sync {

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    const size_t h = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + long(h), v.end());
    double m = v[h];
    if (v.size() % 2 == 0) {
        m = 0.5 * (m + *std::max_element(v.begin(), v.begin() + long(h)));
    }
    return m;
}

struct RefInstance
{
    double end = 0, latestBegin = 0, earliestEnd = 0;
};

struct Point
{
    int64_t begin = 0, end = 0;
    double d = 0, lower = 0, upper = 0;
};

using InstanceKey = std::pair<uint32_t, int64_t>; // (nameId, sequence)

// The reference workers: those with a map from sync samples; when none has one, the domain of
// the lowest rank, which gets the identity map (its clock becomes global time).
std::vector<bool> chooseReference(const SyncEngineInput &input, const DomainGrouper &groups,
                                  std::vector<WorkerClockResult> &results)
{
    const size_t nw = input.workers.size();
    std::vector<bool> isRef(nw, false);
    bool anyRef = false;
    for (size_t i = 0; i < nw; ++i)
        anyRef = anyRef || (isRef[i] = results[i].method == ClockMethod::SyncSamples);
    if (anyRef)
        return isRef;
    size_t low = 0;
    for (size_t i = 1; i < nw; ++i) {
        if (input.workers[i].rank < input.workers[low].rank)
            low = i;
    }
    for (size_t i : groups.members(groups.domainOf(low))) {
        isRef[i] = true;
        ClockSegment s;
        s.localStart = s.globalStart = input.workers[i].firstLocalNs;
        s.flags = SegAligned;
        results[i].map = ClockMap({s});
        results[i].method = ClockMethod::Collectives;
    }
    return isRef;
}

// Per collective instance, in the reference workers' global time: the median end, the latest
// begin and the earliest end.
std::map<InstanceKey, RefInstance> referenceInstances(const SyncEngineInput &input,
                                                      const DomainGrouper &groups,
                                                      const std::vector<WorkerClockResult> &results,
                                                      const std::vector<bool> &isRef)
{
    std::map<InstanceKey, std::vector<double>> refEnds, refBegins;
    for (const CollectiveInstance &c : input.collectives) {
        const int w = groups.indexOf(c.workerId);
        if (w < 0 || !isRef[size_t(w)])
            continue;
        const ClockMap &m = results[size_t(w)].map;
        refEnds[{c.nameId, c.sequence}].push_back(double(m.toGlobal(c.localEnd)));
        refBegins[{c.nameId, c.sequence}].push_back(double(m.toGlobal(c.localBegin)));
    }
    std::map<InstanceKey, RefInstance> ref;
    for (const auto &[key, ends] : refEnds) {
        const auto &begins = refBegins[key];
        ref[key] = {median(ends), *std::max_element(begins.begin(), begins.end()),
                    *std::min_element(ends.begin(), ends.end())};
    }
    return ref;
}

// One segment for a whole domain from its instances (sorted as the collectives are), starting
// at `first`: the robust line through the end differences, bounded by each instance's
// [lower, upper].
ClockSegment alignedSegment(const std::vector<Point> &pts, int64_t first)
{
    std::vector<double> ts, ds;
    const double d0 = pts.front().d;
    for (const Point &p : pts) {
        ts.push_back(double(p.end - first));
        ds.push_back(p.d - d0);
    }
    const CollectiveAligner::Fit f = CollectiveAligner::robustLine(ts, ds);
    auto theta = [&](int64_t t) { return d0 + f.offset + f.slope * double(t - first); };
    double bound = 0.0;
    // The fitted line sits inside each [lower, upper]; its distance to the far edge is the
    // bound.
    for (const Point &p : pts)
        bound = std::max({bound, theta(p.end) - p.lower, p.upper - theta(p.begin)});
    ClockSegment s;
    s.localStart = first;
    s.globalStart = first + int64_t(std::llround(theta(first)));
    s.slope = 1.0 + f.slope;
    s.boundNs = int64_t(std::ceil(bound));
    s.flags = SegAligned | (pts.size() < 8 ? SegFewSamples : 0u);
    return s;
}

} // namespace

CollectiveAligner::Fit CollectiveAligner::robustLine(std::vector<double> t, std::vector<double> d)
{
    Fit f;
    const size_t n = std::min(t.size(), d.size());
    if (n == 0)
        return f;
    std::vector<size_t> idx(n);
    for (size_t i = 0; i < n; ++i)
        idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return t[a] < t[b]; });
    const size_t bins = std::min<size_t>(64, std::max<size_t>(1, n / 4));
    // Within a bin, the median time and the median difference do not belong to the same point
    // when the line is steep, so fit the slope on residuals (nearly flat) and refine it.
    double slope = 0.0;
    for (int iter = 0; iter < 3; ++iter) {
        std::vector<double> bt, br;
        for (size_t b = 0; b < bins; ++b) {
            const size_t lo = b * n / bins, hi = (b + 1) * n / bins;
            std::vector<double> ts, rs;
            for (size_t i = lo; i < hi; ++i) {
                ts.push_back(t[idx[i]]);
                rs.push_back(d[idx[i]] - slope * t[idx[i]]);
            }
            bt.push_back(median(ts));
            br.push_back(median(rs));
        }
        std::vector<double> slopes;
        for (size_t i = 0; i < bt.size(); ++i) {
            for (size_t j = i + 1; j < bt.size(); ++j) {
                if (bt[j] > bt[i])
                    slopes.push_back((br[j] - br[i]) / (bt[j] - bt[i]));
            }
        }
        if (slopes.empty())
            break;
        slope += median(slopes);
    }
    f.slope = slope;
    std::vector<double> icpt;
    for (size_t i = 0; i < n; ++i)
        icpt.push_back(d[i] - f.slope * t[i]);
    f.offset = median(icpt);
    f.valid = true;
    return f;
}

void CollectiveAligner::align(const SyncEngineInput &input, const DomainGrouper &groups,
                              std::vector<WorkerClockResult> &results,
                              std::vector<std::string> &notes) const
{
    const std::vector<bool> isRef = chooseReference(input, groups, results);
    const std::map<InstanceKey, RefInstance> ref =
        referenceInstances(input, groups, results, isRef);
    for (int dom = 0; dom < groups.domainCount(); ++dom) {
        const auto &members = groups.members(dom);
        if (results[members.front()].method != ClockMethod::None)
            continue;
        std::vector<Point> pts;
        int64_t first = INT64_MAX;
        for (size_t i : members)
            first = std::min(first, input.workers[i].firstLocalNs);
        for (const CollectiveInstance &c : input.collectives) {
            const int w = groups.indexOf(c.workerId);
            if (w < 0 || groups.domainOf(size_t(w)) != dom)
                continue;
            const auto it = ref.find({c.nameId, c.sequence});
            if (it == ref.end())
                continue;
            const RefInstance &r = it->second;
            pts.push_back({c.localBegin, c.localEnd, r.end - double(c.localEnd),
                           r.latestBegin - double(c.localEnd),
                           r.earliestEnd - double(c.localBegin)});
        }
        if (pts.empty()) {
            notes.push_back("rank " + std::to_string(input.workers[members.front()].rank) +
                            ": no sync samples and no shared collectives; clock left uncorrected");
            continue;
        }
        const ClockSegment s = alignedSegment(pts, std::min(first, pts.front().begin));
        for (size_t i : members) {
            results[i].map = ClockMap({s});
            results[i].method = ClockMethod::Collectives;
            results[i].sampleCount = int(pts.size());
        }
    }
}

} // namespace syncline::sync
