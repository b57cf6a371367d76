// HullFitter — see hullfitter.h.
#include "hullfitter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

using Point = HullFitter::Point;

double cross(const Point &o, const Point &a, const Point &b)
{
    return (a.t - o.t) * (b.v - o.v) - (a.v - o.v) * (b.t - o.t);
}

double minOver(const std::vector<Point> &hull, double a)
{
    double best = std::numeric_limits<double>::infinity();
    for (const Point &p : hull)
        best = std::min(best, p.v - a * p.t);
    return best;
}

double maxOver(const std::vector<Point> &hull, double a)
{
    double best = -std::numeric_limits<double>::infinity();
    for (const Point &p : hull)
        best = std::max(best, p.v - a * p.t);
    return best;
}

void addEdgeSlopes(const std::vector<Point> &hull, double maxSlope, std::vector<double> &out)
{
    for (size_t i = 1; i < hull.size(); ++i) {
        const double dt = hull[i].t - hull[i - 1].t;
        if (dt <= 0.0)
            continue;
        const double s = (hull[i].v - hull[i - 1].v) / dt;
        if (s > -maxSlope && s < maxSlope)
            out.push_back(s);
    }
}

} // namespace

std::vector<Point> HullFitter::lowerHull(std::vector<Point> pts)
{
    std::sort(pts.begin(), pts.end(), [](const Point &a, const Point &b) {
        return a.t < b.t || (a.t == b.t && a.v < b.v);
    });
    std::vector<Point> h;
    for (const Point &p : pts) {
        if (!h.empty() && h.back().t == p.t)
            continue; // same time: the first (lowest) value is the binding one
        while (h.size() >= 2 && cross(h[h.size() - 2], h.back(), p) <= 0.0)
            h.pop_back();
        h.push_back(p);
    }
    return h;
}

std::vector<Point> HullFitter::upperHull(std::vector<Point> pts)
{
    for (Point &p : pts)
        p.v = -p.v;
    std::vector<Point> h = lowerHull(std::move(pts));
    for (Point &p : h)
        p.v = -p.v;
    return h;
}

void HullFitter::boundPoints(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                             std::vector<Point> &ups, std::vector<Point> &los, double *tMin,
                             double *tMax)
{
    *tMin = std::numeric_limits<double>::infinity();
    *tMax = -*tMin;
    for (const BurstBound &b : bursts) {
        ups.push_back({double(b.tUpper - t0), double(b.upper - v0)});
        los.push_back({double(b.tLower - t0), double(b.lower - v0)});
        *tMin = std::min({*tMin, ups.back().t, los.back().t});
        *tMax = std::max({*tMax, ups.back().t, los.back().t});
    }
}

LineFit HullFitter::fit(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                        double priorSlope) const
{
    if (bursts.empty())
        return LineFit();
    std::vector<Point> ups, los;
    ups.reserve(bursts.size());
    los.reserve(bursts.size());
    double tMin, tMax;
    boundPoints(bursts, t0, v0, ups, los, &tMin, &tMax);
    return fitPoints(std::move(ups), std::move(los), tMax - tMin, priorSlope, bursts.size());
}

LineFit HullFitter::fitQuadratic(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                                 double priorSlope) const
{
    if (bursts.size() < 3)
        return fit(bursts, t0, v0, priorSlope);
    std::vector<Point> ups, los;
    double tMin, tMax;
    boundPoints(bursts, t0, v0, ups, los, &tMin, &tMax);
    if (tMax - tMin < m_minSpanNs)
        return fit(bursts, t0, v0, priorSlope);
    const double centre = 0.5 * (tMin + tMax);
    auto at = [&](double c) {
        std::vector<Point> u = ups, l = los;
        for (Point &p : u)
            p.v -= c * (p.t - centre) * (p.t - centre);
        for (Point &p : l)
            p.v -= c * (p.t - centre) * (p.t - centre);
        LineFit f = fitPoints(std::move(u), std::move(l), tMax - tMin, priorSlope, bursts.size());
        f.curvature = c;
        f.centre = centre;
        // value() adds c·(t − centre)²; fitPoints' slope is the line's, which is the slope at
        // the centre of the parabola.
        return f;
    };
    // Golden-section search for the largest margin; g*(c) = max_a margin(a, c) is concave.
    constexpr double kPhi = 0.6180339887498949;
    double lo = -kMaxCurvature, hi = kMaxCurvature;
    double c1 = hi - kPhi * (hi - lo), c2 = lo + kPhi * (hi - lo);
    LineFit f1 = at(c1), f2 = at(c2);
    const double span2 = (tMax - tMin) * (tMax - tMin);
    while ((hi - lo) * span2 > 0.01) { // stop when c moves the curve by < 0.01 ns
        if (f1.margin < f2.margin) {
            lo = c1;
            c1 = c2;
            f1 = f2;
            c2 = lo + kPhi * (hi - lo);
            f2 = at(c2);
        } else {
            hi = c2;
            c2 = c1;
            f2 = f1;
            c1 = hi - kPhi * (hi - lo);
            f1 = at(c1);
        }
    }
    return f1.margin >= f2.margin ? f1 : f2;
}

LineFit HullFitter::fitPoints(std::vector<Point> ups, std::vector<Point> los, double span,
                              double priorSlope, size_t bursts) const
{
    LineFit r;
    const std::vector<Point> uh = lowerHull(std::move(ups));
    const std::vector<Point> lh = upperHull(std::move(los));
    auto margin = [&](double a) { return minOver(uh, a) - maxOver(lh, a); };

    double a = priorSlope;
    r.slopeFitted = span >= m_minSpanNs && bursts >= 2;
    if (r.slopeFitted) {
        std::vector<double> cand{-m_maxSlope, m_maxSlope};
        addEdgeSlopes(uh, m_maxSlope, cand);
        addEdgeSlopes(lh, m_maxSlope, cand);
        std::sort(cand.begin(), cand.end());
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        // g is concave on the sorted breakpoints: ternary search (plateaus only at the maximum).
        size_t lo = 0, hi = cand.size() - 1;
        while (hi - lo > 2) {
            const size_t m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
            const double g1 = margin(cand[m1]), g2 = margin(cand[m2]);
            if (g1 < g2)
                lo = m1 + 1;
            else if (g1 > g2)
                hi = m2 - 1;
            else {
                lo = m1;
                hi = m2;
            }
        }
        size_t at = lo;
        double best = margin(cand[lo]);
        for (size_t k = lo + 1; k <= hi; ++k) {
            const double g = margin(cand[k]);
            if (g > best) {
                best = g;
                at = k;
            }
        }
        // A plateau (every slope in [cand[l], cand[r]] has the best margin — e.g. two bursts:
        // the margin is flat between the chord of the uppers and the chord of the lowers): take
        // its middle, not whichever edge the search met first.
        const double eps = 1e-6 * std::fabs(best) + 1e-2; // ns: rounding of a·t
        size_t l = at, rr = at;
        while (l > 0 && margin(cand[l - 1]) >= best - eps)
            --l;
        while (rr + 1 < cand.size() && margin(cand[rr + 1]) >= best - eps)
            ++rr;
        a = 0.5 * (cand[l] + cand[rr]);
    }
    const double bU = minOver(uh, a), bL = maxOver(lh, a);
    r.slope = a;
    r.intercept = 0.5 * (bU + bL);
    r.margin = bU - bL;
    r.valid = true;
    return r;
}

} // namespace syncline::sync
