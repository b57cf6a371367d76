// TimeScale — the one conversion between global time (int64 ns) and x (px from the left edge of
// an area `width` px wide showing [start, end)). Everything that places or reads time along x
// uses it: the timeline's geometry (events, folds, collapsed summaries, wait bars), hit-testing,
// links, culprit marks, counter columns, the ruler and its grid, the measured and box
// selections, the view's mouse and keys, the overview strip, and the exported image (PNG/SVG,
// which draws through the same geometry and painter).
//
// The rule, one for every caller:
//   x(t)        = double(t − start) · pxPerNs, pxPerNs = width / (end − start): the difference is
//                 taken exactly in integers first (never a float absolute time, which loses
//                 nanoseconds beyond 2^53 ns ≈ 104 days), then scaled;
//   timeAt(x)   = start + round(x · nsPerPx), to the nearest ns (halves away from zero),
//                 saturated to the int64 range;
//   px(ns)      = ns · pxPerNs and ns(px) = round(px · nsPerPx): a span's width, same rounding;
//   a drawn span [x0, x1] is at least kMinSpanPx wide: visibleEnd(x0, x1) = max(x1, x0 + 1).
// So timeAt(x(t)) is t to within half a pixel's worth of ns (and exactly t while a pixel holds
// at most one ns), timeAt is monotonic in x and x monotonic in t.
//
// Invariants: valid() ⇔ end > start and width > 0 (finite). An invalid scale (an empty or
// reversed range, a zero-width area) is guarded, never divides by zero: it behaves as a 1 ns
// range over 1 px, and callers that draw nothing for it check valid() first. Ranges anywhere in
// int64 work, e.g. [−2^62, 2^62] (its duration, 2^63, does not fit an int64 and is kept as
// double).
// Threading: a plain value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace syncline::ui {

class TimeScale
{
public:
    static constexpr double kMinSpanPx = 1.0; // a drawn event or range is never narrower

    TimeScale() = default; // [0, 1) over 1 px, valid
    TimeScale(int64_t start, int64_t end, double width) : m_start(start)
    {
        const double duration = double(__int128(end) - __int128(start));
        m_valid = end > start && width > 0 && std::isfinite(width);
        if (m_valid) {
            m_pxPerNs = width / duration;
            m_nsPerPx = duration / width;
        }
    }

    bool valid() const { return m_valid; }
    int64_t start() const { return m_start; }
    double pxPerNs() const { return m_pxPerNs; }
    double nsPerPx() const { return m_nsPerPx; }

    // The x of global time t.
    double x(int64_t t) const
    {
        int64_t d = 0;
        if (!__builtin_sub_overflow(t, m_start, &d)) [[likely]]
            return double(d) * m_pxPerNs;
        return double(__int128(t) - __int128(m_start)) * m_pxPerNs;
    }
    // The global time at x: the nearest ns.
    int64_t timeAt(double x) const { return offset(m_start, x * m_nsPerPx); }
    // A span's width in px, and the ns a width of px spans (nearest ns; may be 0).
    double px(double ns) const { return ns * m_pxPerNs; }
    int64_t ns(double px) const { return offset(0, px * m_nsPerPx); }
    // The right edge a span starting at x0 is drawn to: at least kMinSpanPx wide.
    static double visibleEnd(double x0, double x1) { return std::max(x1, x0 + kMinSpanPx); }

private:
    // std::llround's value, inline (the geometry calls this once per fold window; a libm call
    // there cost a measurable share of a frame): truncate, then step by the exact fraction
    // (v − trunc(v) is exact for |v| < 2^52; above, v is an integer and the fraction is 0).
    static int64_t roundHalfAway(double v)
    {
        int64_t i = int64_t(v);
        const double frac = v - double(i);
        if (frac >= 0.5)
            ++i;
        else if (frac <= -0.5)
            --i;
        return i;
    }
    // base + round(v), saturated to int64 (NaN adds nothing).
    static int64_t offset(int64_t base, double v)
    {
        constexpr double kFast = 9.2e18; // below 2^63: the conversion cannot overflow
        int64_t out = 0;
        if (std::fabs(v) < kFast && !__builtin_add_overflow(base, roundHalfAway(v), &out))
            [[likely]]
            return out;
        if (std::isnan(v))
            return base;
        constexpr double kFar = 1e20; // beyond any int64 sum; keeps the 128-bit maths exact
        const __int128 sum = __int128(base) + __int128(std::round(std::clamp(v, -kFar, kFar)));
        constexpr int64_t lo = std::numeric_limits<int64_t>::min();
        constexpr int64_t hi = std::numeric_limits<int64_t>::max();
        return sum < lo ? lo : sum > hi ? hi : int64_t(sum);
    }

    int64_t m_start = 0;
    double m_pxPerNs = 1.0;
    double m_nsPerPx = 1.0;
    bool m_valid = true;
};

} // namespace syncline::ui
