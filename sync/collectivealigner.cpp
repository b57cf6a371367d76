// CollectiveAligner — see collectivealigner.h.
#include "collectivealigner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

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
    size_t index = 0; // into input.collectives
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

// The largest set of instances whose [lower, upper] intervals overlap once widened by the
// largest plausible drift over the instances' span (a sweep over the interval edges).
std::vector<Point> consensus(const std::vector<Point> &pts)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const Point &p : pts) {
        lo = std::min(lo, p.begin);
        hi = std::max(hi, p.end);
    }
    const double tol = CollectiveAligner::kMaxDriftPpm * 1e-6 * double(hi - lo);
    std::vector<std::pair<double, int>> edges; // (position, +1 open / −1 close); opens first
    for (const Point &p : pts) {
        edges.push_back({p.lower - tol, -1}); // sorted before closes at the same position
        edges.push_back({p.upper + tol, 1});
    }
    std::sort(edges.begin(), edges.end());
    int depth = 0, best = 0;
    double at = 0.0;
    for (const auto &[x, kind] : edges) {
        depth -= kind; // open: kind −1 → +1
        if (depth > best) {
            best = depth;
            at = x;
        }
    }
    std::vector<Point> in;
    for (const Point &p : pts) {
        if (p.lower - tol <= at && at <= p.upper + tol)
            in.push_back(p);
    }
    return in;
}

// Standard error of the fitted slope: robust residual spread (1.4826 · MAD) over the time spread.
double slopeStdError(const std::vector<double> &t, const std::vector<double> &d,
                     const CollectiveAligner::Fit &f)
{
    std::vector<double> r, dev;
    double mt = 0.0, vt = 0.0;
    for (size_t i = 0; i < t.size(); ++i) {
        r.push_back(d[i] - f.offset - f.slope * t[i]);
        mt += t[i] / double(t.size());
    }
    const double mr = median(r);
    for (size_t i = 0; i < t.size(); ++i) {
        dev.push_back(std::fabs(r[i] - mr));
        vt += (t[i] - mt) * (t[i] - mt) / double(t.size());
    }
    if (vt <= 0.0)
        return INFINITY;
    return 1.4826 * median(dev) / std::sqrt(vt * double(t.size()));
}

std::string roundedPpm(double ppm)
{
    return std::isfinite(ppm) ? std::to_string(std::llround(ppm)) : std::string("inf");
}

// Why the drift cannot be fitted from these points (empty: it can).
std::string driftRejection(const std::vector<double> &t, const std::vector<double> &d,
                           const CollectiveAligner::Fit &f)
{
    if (t.size() < CollectiveAligner::kMinDriftInstances)
        return "only " + std::to_string(t.size()) + " instance(s), too few to resolve drift";
    if (std::fabs(f.slope) * 1e6 > CollectiveAligner::kMaxDriftPpm)
        return "drift " + roundedPpm(f.slope * 1e6) + " ppm implausible (limit " +
               roundedPpm(CollectiveAligner::kMaxDriftPpm) + " ppm)";
    const double se = slopeStdError(t, d, f) * 1e6;
    if (se > CollectiveAligner::kDriftResolutionPpm)
        return "drift " + roundedPpm(f.slope * 1e6) + " ± " + roundedPpm(se) +
               " ppm not resolvable (need ± " + roundedPpm(CollectiveAligner::kDriftResolutionPpm) +
               " ppm)";
    return {};
}

// Medians of consecutive blocks of m residuals (sorted by time): the knots of the piecewise map.
struct BlockKnot
{
    double t = 0, r = 0;
};

std::vector<BlockKnot> blockMedians(const std::vector<double> &t, const std::vector<double> &r,
                                    size_t m)
{
    std::vector<BlockKnot> out;
    const size_t n = t.size(), blocks = n / m;
    for (size_t b = 0; b < blocks; ++b) {
        const size_t lo = b * n / blocks, hi = (b + 1) * n / blocks;
        out.push_back({median({t.begin() + long(lo), t.begin() + long(hi)}),
                       median({r.begin() + long(lo), r.begin() + long(hi)})});
    }
    return out;
}

// How well blocks of m instances follow the wander: each interior block's median predicted by
// the straight line through its two neighbours; RMS of the misses. Noise (large for small m) and
// curvature (large for large m) both show up; the smallest score wins.
double blockScore(const std::vector<BlockKnot> &k)
{
    double sum = 0.0;
    int n = 0;
    for (size_t i = 1; i + 1 < k.size(); ++i) {
        const double x = (k[i].t - k[i - 1].t) / std::max(k[i + 1].t - k[i - 1].t, 1.0);
        const double pred = k[i - 1].r + x * (k[i + 1].r - k[i - 1].r);
        sum += (k[i].r - pred) * (k[i].r - pred);
        ++n;
    }
    return n ? std::sqrt(sum / n) : INFINITY;
}

// The domain's map from its instances: the robust line through the end differences (offset only
// when the drift cannot be fitted: `why` says why); with enough instances, the residuals of that
// line in blocks of equal count (block size chosen from the data by blockScore) give the knots of
// a piecewise-linear map that follows the oscillators' relative wander. Each segment is bounded
// by the [lower, upper] intervals of its own and its neighbouring instances.
std::vector<ClockSegment> alignedSegments(std::vector<Point> pts, int64_t first, std::string &why)
{
    std::sort(pts.begin(), pts.end(), [](const Point &a, const Point &b) { return a.end < b.end; });
    std::vector<double> ts, ds;
    const double d0 = pts.front().d;
    for (const Point &p : pts) {
        ts.push_back(double(p.end - first));
        ds.push_back(p.d - d0);
    }
    CollectiveAligner::Fit f = CollectiveAligner::robustLine(ts, ds);
    why = driftRejection(ts, ds, f);
    if (!why.empty()) {
        f.slope = 0.0;
        f.offset = median(ds);
    }
    // Knots (time relative to first, θ − d0).
    std::vector<BlockKnot> knots;
    if (why.empty()) {
        std::vector<double> r;
        for (size_t i = 0; i < ts.size(); ++i)
            r.push_back(ds[i] - f.offset - f.slope * ts[i]);
        double best = INFINITY;
        for (size_t m = CollectiveAligner::kMinBlockInstances; ts.size() / m >= 4;
             m += std::max<size_t>(m / 2, 1)) {
            std::vector<BlockKnot> k = blockMedians(ts, r, m);
            const double sc = blockScore(k);
            if (sc <= best) {
                best = sc;
                knots = std::move(k);
            }
        }
        for (BlockKnot &k : knots)
            k.r += f.offset + f.slope * k.t;
    }
    if (knots.size() < 2)
        knots = {{0.0, f.offset}, {std::max(ts.back(), 1.0), f.offset + f.slope * ts.back()}};
    const uint32_t flags = SegAligned | (why.empty() ? 0u : SegFewSamples);
    std::vector<ClockSegment> segs;
    auto add = [&](int64_t local, double theta) {
        ClockSegment s;
        s.localStart = local;
        s.globalStart = local + int64_t(std::llround(d0 + theta));
        s.flags = flags;
        if (segs.empty() || local > segs.back().localStart)
            segs.push_back(s);
    };
    const double slope0 = (knots[1].r - knots[0].r) / std::max(knots[1].t - knots[0].t, 1.0);
    if (knots.front().t > 0.0)
        add(first, knots[0].r - slope0 * knots[0].t);
    for (const BlockKnot &k : knots)
        add(first + int64_t(std::llround(k.t)), k.r);
    for (size_t i = 0; i + 1 < segs.size(); ++i)
        segs[i].slope = double(segs[i + 1].globalStart - segs[i].globalStart) /
                        double(segs[i + 1].localStart - segs[i].localStart);
    segs.back().slope = segs.size() > 1 ? segs[segs.size() - 2].slope : 1.0 + f.slope;
    // Bounds: the truth lies in every instance's [lower, upper] (lower at its end, upper at its
    // begin); a segment's bound is the largest distance from the map to the far edge over the
    // instances inside it and the nearest one on each side.
    const ClockMap map(segs);
    auto theta = [&](int64_t local) { return double(map.toGlobal(local) - local); };
    // Assumption-based bound: the residual r = d − θ_map(end) of an instance is its true end
    // mismatch Δ (reference end − local end, in true time) minus the map's error ε, so
    // |ε| <= |r| + |Δ|. Assuming |Δ| <= R, the largest |r| among the instances inside the segment
    // and its neighbours — at least kMinBlockInstances of them, taken alike from both sides (the
    // ends of one instance are simultaneous within the spread the data show around the map) —
    // |ε| <= 2R there. (With only the one or two instances next to an edge segment, R missed
    // the spread: 99.8 % coverage in 15 s runs.)
    std::vector<double> dist(pts.size()), resid(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
        dist[i] = std::max(theta(pts[i].end) - pts[i].lower, pts[i].upper - theta(pts[i].begin));
        resid[i] = std::fabs(pts[i].d - theta(pts[i].end));
    }
    size_t j = 0;
    for (size_t s = 0; s < segs.size(); ++s) {
        const int64_t end = s + 1 < segs.size() ? segs[s + 1].localStart : INT64_MAX;
        const size_t inside = j;
        double b = 0.0;
        if (j > 0)
            b = dist[j - 1];
        while (j < pts.size() && pts[j].end < end)
            b = std::max(b, dist[j++]);
        if (j < pts.size())
            b = std::max(b, dist[j]);
        // [lo, hi): the segment's instances and one neighbour each side, widened to enough.
        size_t lo = inside > 0 ? inside - 1 : 0, hi = std::min(pts.size(), j + 1);
        while (hi - lo < CollectiveAligner::kMinBlockInstances && (lo > 0 || hi < pts.size())) {
            if (lo > 0)
                --lo;
            if (hi < pts.size())
                ++hi;
        }
        double r = 0.0;
        for (size_t i = lo; i < hi; ++i)
            r = std::max(r, resid[i]);
        segs[s].boundNs = int64_t(std::ceil(b)) + CollectiveAligner::kBoundMarginNs;
        segs[s].assumedBoundNs = std::min(segs[s].boundNs, int64_t(std::ceil(2.0 * r)) +
                                                               CollectiveAligner::kBoundMarginNs);
    }
    return segs;
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

namespace {

// The domain's instances that have a reference counterpart (same name, same k).
std::vector<Point> domainPoints(const SyncEngineInput &input, const DomainGrouper &groups, int dom,
                                const std::map<InstanceKey, RefInstance> &ref, size_t &ownCount)
{
    std::vector<Point> pts;
    ownCount = 0;
    for (size_t ci = 0; ci < input.collectives.size(); ++ci) {
        const CollectiveInstance &c = input.collectives[ci];
        const int w = groups.indexOf(c.workerId);
        if (w < 0 || groups.domainOf(size_t(w)) != dom)
            continue;
        ++ownCount;
        const auto it = ref.find({c.nameId, c.sequence});
        if (it == ref.end())
            continue;
        const RefInstance &r = it->second;
        pts.push_back({c.localBegin, c.localEnd, r.end - double(c.localEnd),
                       r.latestBegin - double(c.localEnd), r.earliestEnd - double(c.localBegin),
                       ci});
    }
    return pts;
}

} // namespace

std::vector<bool> CollectiveAligner::align(const SyncEngineInput &input,
                                           const DomainGrouper &groups,
                                           std::vector<WorkerClockResult> &results,
                                           std::vector<std::string> &notes) const
{
    std::vector<bool> trusted(input.collectives.size(), true);
    const std::vector<bool> isRef = chooseReference(input, groups, results);
    const std::map<InstanceKey, RefInstance> ref =
        referenceInstances(input, groups, results, isRef);
    for (int dom = 0; dom < groups.domainCount(); ++dom) {
        const auto &members = groups.members(dom);
        if (results[members.front()].method != ClockMethod::None)
            continue;
        const std::string who = "rank " + std::to_string(input.workers[members.front()].rank) +
                                ": collective alignment: ";
        int64_t first = INT64_MAX;
        for (size_t i : members)
            first = std::min(first, input.workers[i].firstLocalNs);
        size_t own = 0;
        const std::vector<Point> all = domainPoints(input, groups, dom, ref, own);
        if (all.empty()) {
            notes.push_back(who + "no sync samples and no shared collectives; clock left "
                                  "uncorrected");
            continue;
        }
        std::set<InstanceKey> matchedKeys;
        for (const Point &p : all)
            matchedKeys.insert(
                {input.collectives[p.index].nameId, input.collectives[p.index].sequence});
        if (all.size() != own || matchedKeys.size() != ref.size()) {
            notes.push_back(who + "instance counts differ (" + std::to_string(own) + " here, " +
                            std::to_string(ref.size()) + " in the reference); " +
                            "the k-th instances were matched");
        }
        const std::vector<Point> pts = consensus(all);
        if (pts.size() < all.size()) {
            for (const Point &p : all)
                trusted[p.index] = false;
            for (const Point &p : pts)
                trusted[p.index] = true;
        }
        if (all.size() > 1 && (pts.size() < 2 || 2 * pts.size() < all.size())) {
            for (const Point &p : all)
                trusted[p.index] = false;
            notes.push_back(who + "the " + std::to_string(all.size()) +
                            " matched instances do not agree (their k-th instances do not "
                            "correspond); clock left uncorrected");
            continue;
        }
        if (pts.size() < all.size()) {
            notes.push_back(who + std::to_string(all.size() - pts.size()) + " of " +
                            std::to_string(all.size()) +
                            " matched instances disagree with the rest; ignored");
        }
        std::string why;
        int64_t earliest = first;
        for (const Point &p : pts)
            earliest = std::min(earliest, p.begin);
        const std::vector<ClockSegment> segs = alignedSegments(pts, earliest, why);
        if (!why.empty())
            notes.push_back(who + why + "; offset only");
        const ClockMap map(segs);
        for (size_t i : members) {
            results[i].map = map;
            results[i].method = ClockMethod::Collectives;
            results[i].sampleCount = int(pts.size());
        }
    }
    return trusted;
}

} // namespace syncline::sync
