#include "syncestimator.h"

#include <algorithm>
#include <cmath>

namespace syncline::rec {

namespace {
constexpr double kMaxSlope = 500e-6;      // no oscillator drifts more than this
constexpr double kOneBurstSlope = 100e-6; // assumed drift bound with a single burst
constexpr double kWidthFloorNs = 50.0;    // keeps weights finite for very tight bursts
} // namespace

void SyncEstimator::addBurst(int64_t localNs, int64_t lowerNs, int64_t upperNs)
{
    if (lowerNs > upperNs)
        return;
    if (!m_bursts.empty() && localNs < m_bursts.back().local)
        m_bursts.clear(); // local clock went backwards: another process's data, start over
    m_bursts.push_back({localNs, lowerNs, upperNs});
    while (m_bursts.size() > static_cast<size_t>(kWindow))
        m_bursts.pop_front();
}

bool SyncEstimator::estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const
{
    if (m_bursts.empty())
        return false;
    const int64_t xLast = m_bursts.back().local;
    // Weighted least squares of the interval centres, x relative to the last burst (in double:
    // differences of at most minutes, so ns resolution is kept).
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int64_t yRef =
        m_bursts.back().lower + (m_bursts.back().upper - m_bursts.back().lower) / 2;
    for (const Burst &b : m_bursts) {
        const double x = double(b.local - xLast);
        const double y = double(b.lower - yRef) + 0.5 * double(b.upper - b.lower);
        const double half = 0.5 * double(b.upper - b.lower);
        const double w = 1.0 / ((half + kWidthFloorNs) * (half + kWidthFloorNs));
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    double slope = 0;
    const double det = sw * sxx - sx * sx;
    if (m_bursts.size() >= 2 && det > 0)
        slope = std::clamp((sw * sxy - sx * sy) / det, -kMaxSlope, kMaxSlope);
    const double intercept = (sy - slope * sx) / sw; // at x = 0 (the last burst), minus yRef

    const Burst &first = m_bursts.front();
    const Burst &last = m_bursts.back();
    double slopeUncertainty = kOneBurstSlope;
    if (last.local > first.local)
        slopeUncertainty =
            std::min(kMaxSlope, double((first.upper - first.lower) + (last.upper - last.lower)) /
                                    double(last.local - first.local));

    // Carry every burst's interval to localNs along the fitted slope, widened by the slope
    // uncertainty, and intersect: θ(localNs) lies in [lo, hi].
    const double x = double(localNs - xLast);
    double lo = -HUGE_VAL, hi = HUGE_VAL, residualBound = 0;
    for (const Burst &b : m_bursts) {
        const double dx = double(localNs - b.local);
        const double spread = slopeUncertainty * std::abs(dx);
        lo = std::max(lo, double(b.lower - yRef) + slope * dx - spread);
        hi = std::min(hi, double(b.upper - yRef) + slope * dx + spread);
        const double fit = intercept + slope * double(b.local - xLast);
        const double centre = double(b.lower - yRef) + 0.5 * double(b.upper - b.lower);
        residualBound = std::max(residualBound,
                                 std::abs(fit - centre) + 0.5 * double(b.upper - b.lower) + spread);
    }
    double theta = intercept + slope * x; // relative to yRef
    double bound = residualBound;
    if (lo <= hi) {
        theta = std::clamp(theta, lo, hi);
        bound = std::max(theta - lo, hi - theta);
    } // else the bursts disagree beyond the assumed slope error: the looser residual bound

    *globalNs = localNs + yRef + static_cast<int64_t>(std::llround(theta));
    *boundNs = static_cast<int64_t>(std::ceil(bound - 1e-3)); // minus rounding noise
    return true;
}

} // namespace syncline::rec
