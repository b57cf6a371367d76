// HullFitter — envelope (convex-hull) line fit of one window of burst bounds with a common slope.
//
// Model: θ(t) = b + a·t with θ = reference − local. Every upper bound U_i at t_i and every lower
// bound L_j at t_j constrain the line: L_j <= b + a·t_j and b + a·t_i <= U_i. For a slope a, the
// highest admissible intercept is bU(a) = min_i (U_i − a·t_i) (lower convex hull of the upper
// points) and the lowest is bL(a) = max_j (L_j − a·t_j) (upper convex hull of the lower points).
// The margin g(a) = bU(a) − bL(a) is concave and piecewise linear in a; the fit takes the slope
// that maximises it (the line with the most clearance on both sides — for equal numbers of upper
// and lower points this is also the maximum-likelihood line under exponential queueing delays,
// Moon, Skelly & Towsley 1999) and the centre intercept (bU + bL)/2. A negative margin means no
// line fits every bound (curvature, or a step): the fit is then the min-max (Chebyshev) compromise.
//
// Worked example: uppers (0, 10), (100, 12); lowers (0, 6), (100, 8). Candidate slope 0.02 gives
// bU = min(10, 12 − 2) = 10, bL = max(6, 8 − 2) = 6, g = 4 — the maximum; line θ = 8 + 0.02·t.
// Units: times and values in ns relative to the caller's origin (doubles). Pure, thread-safe.
#pragma once

#include "burstreducer.h"

#include <span>
#include <vector>

namespace syncline::sync {

// θ(t) = intercept + slope·t + curvature·(t − centre)²: a line, or (fitQuadratic) a parabola
// whose slope at `centre` is `slope`.
struct LineFit
{
    double slope = 0.0;       // dθ/dt (dimensionless; 1e-6 = 1 ppm); at `centre` for a parabola
    double intercept = 0.0;   // relative to the value origin (ns), see value()
    double curvature = 0.0;   // ½·d²θ/dt² (1/ns); 0 for a line
    double centre = 0.0;      // where the curvature term vanishes (ns, relative to the origin)
    double margin = 0.0;      // width of the band of admissible curves at this slope (ns)
    bool slopeFitted = false; // false: the window spans too little time, slope is the prior
    bool valid = false;
    double value(double t) const
    {
        const double d = t - centre;
        return intercept + slope * t + curvature * d * d;
    }
    double slopeAt(double t) const { return slope + 2.0 * curvature * (t - centre); }
};

class HullFitter
{
public:
    // maxSlope bounds |a| (default 1000 ppm); minSpanNs is the shortest window that can determine
    // a slope — below it the fit keeps priorSlope and fits the intercept only.
    explicit HullFitter(double maxSlope = 1e-3, double minSpanNs = 1e6)
        : m_maxSlope(maxSlope), m_minSpanNs(minSpanNs)
    {
    }

    LineFit fit(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                double priorSlope = 0.0) const;
    // The same envelope fit with a parabola: θ = b + a·t + c·(t − centre)², centre = the middle of
    // the window. For a fixed c the bounds minus c·(t − centre)² are fitted as above; the best
    // margin over a and c is concave in c, so c is found by golden-section search in
    // ±maxCurvature. For windows that span minutes (sparse sync), where the oscillator's thermal
    // swing bends θ by more than the queueing noise. Fewer than 3 bursts: falls back to fit().
    LineFit fitQuadratic(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                         double priorSlope = 0.0) const;
    static constexpr double kMaxCurvature = 5e-17; // 1/ns: |d²θ/dt²| up to 0.1 ppm per second

    struct Point
    {
        double t;
        double v;
    };
    static std::vector<Point> lowerHull(std::vector<Point> pts); // convex from below
    static std::vector<Point> upperHull(std::vector<Point> pts); // convex from above

private:
    // The bursts' upper and lower bounds as points relative to (t0, v0), appended to ups and
    // los; *tMin/*tMax get the earliest and latest point time.
    static void boundPoints(std::span<const BurstBound> bursts, int64_t t0, int64_t v0,
                            std::vector<Point> &ups, std::vector<Point> &los, double *tMin,
                            double *tMax);
    LineFit fitPoints(std::vector<Point> ups, std::vector<Point> los, double span,
                      double priorSlope, size_t bursts) const;

    double m_maxSlope;
    double m_minSpanNs;
};

} // namespace syncline::sync
