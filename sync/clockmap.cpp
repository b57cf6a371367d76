// ClockMap — see clockmap.h. Evaluation uses the slope's deviation from 1 so that identity-like
// segments are exact: global = globalStart + d + round((slope - 1) · d), d = local - localStart.
#include "clockmap.h"
#include "saturating.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

// Rounds to the nearest integer, saturating at the int64 range: a query far outside any real
// time (a view asking for INT64_MAX as "the end") must not be undefined behaviour (UBSan).
inline int64_t roundToInt(double x)
{
    constexpr double kLimit = 9223372036854775807.0; // 2^63, the first double past INT64_MAX
    if (x >= kLimit)
        return std::numeric_limits<int64_t>::max();
    if (x <= -kLimit)
        return std::numeric_limits<int64_t>::min();
    return x >= 0.0 ? static_cast<int64_t>(x + 0.5) : -static_cast<int64_t>(0.5 - x);
}

// a + b and a − b held at the int64 range: a map read from a cache file, or a query far from
// it, may put the terms past it; within ±2^62 (every time a log holds) they never saturate.
inline int64_t satAdd(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}
inline int64_t satSub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

inline int64_t evalSegment(const ClockSegment &s, double slopeMinusOne, int64_t local)
{
    const int64_t d = satSub(local, s.localStart);
    return satAdd(satAdd(s.globalStart, d), roundToInt(slopeMinusOne * static_cast<double>(d)));
}

// The batch walk shared by toGlobal(span) and durations(): `keys` (local ns, mostly ascending)
// split into runs that stay in one segment, one binary search per run. `each(s, sm1, lo, hi, j)`
// is called for every index j, with segment s (sm1 = its slope − 1) and its local range [lo, hi).
template <class Each>
void forEachInSegmentRuns(const std::vector<ClockSegment> &segments, std::span<const int64_t> keys,
                          size_t n, Each each)
{
    const size_t segCount = segments.size();
    size_t i = 0;
    while (i < n) {
        auto it = std::upper_bound(segments.begin(), segments.end(), keys[i],
                                   [](int64_t x, const ClockSegment &s) { return x < s.localStart; });
        const size_t k = (it == segments.begin()) ? 0 : size_t(it - segments.begin()) - 1;
        const ClockSegment &s = segments[k];
        const double sm1 = s.slope - 1.0;
        const int64_t lo = (k == 0) ? INT64_MIN : s.localStart;
        const int64_t hi = (k + 1 < segCount) ? segments[k + 1].localStart : INT64_MAX;
        size_t j = i;
        for (; j < n && keys[j] >= lo && keys[j] < hi; ++j)
            each(s, sm1, lo, hi, j);
        i = j;
    }
}

} // namespace

ClockMap::ClockMap() = default;

ClockMap::ClockMap(std::vector<ClockSegment> segments) : m_segments(std::move(segments))
{
    std::stable_sort(
        m_segments.begin(), m_segments.end(),
        [](const ClockSegment &a, const ClockSegment &b) { return a.localStart < b.localStart; });
    // Drop empty segments (equal starts): the later one wins, which keeps the map a function.
    std::vector<ClockSegment> unique;
    unique.reserve(m_segments.size());
    for (const ClockSegment &s : m_segments) {
        if (!unique.empty() && unique.back().localStart == s.localStart)
            unique.back() = s;
        else
            unique.push_back(s);
    }
    for (ClockSegment &s : unique) {
        if (!(s.slope > 0.0))
            s.slope = 1.0; // a non-positive slope would break monotonicity; never produced by us
    }
    m_segments = std::move(unique);
}

ClockMap ClockMap::shifted(int64_t ns) const
{
    if (m_segments.empty())
        return offset(ns);
    std::vector<ClockSegment> segs = m_segments;
    for (ClockSegment &s : segs)
        s.globalStart = saturatingAdd(s.globalStart, ns);
    return ClockMap(std::move(segs));
}

ClockMap ClockMap::offset(int64_t offsetNs)
{
    ClockSegment s;
    s.localStart = 0;
    s.globalStart = offsetNs;
    s.slope = 1.0;
    return ClockMap({s});
}

const ClockSegment &ClockMap::segmentAt(int64_t localNs) const
{
    static const ClockSegment identity{};
    if (m_segments.empty())
        return identity;
    auto it = std::upper_bound(m_segments.begin(), m_segments.end(), localNs,
                               [](int64_t v, const ClockSegment &s) { return v < s.localStart; });
    if (it == m_segments.begin())
        return *it;
    return *(it - 1);
}

int64_t ClockMap::toGlobal(int64_t localNs) const
{
    if (m_segments.empty())
        return localNs;
    const ClockSegment &s = segmentAt(localNs);
    return evalSegment(s, s.slope - 1.0, localNs);
}

int64_t ClockMap::toLocal(int64_t globalNs) const
{
    if (m_segments.empty())
        return globalNs;
    // Segments are increasing in globalStart too (continuity + positive slopes).
    auto it = std::upper_bound(m_segments.begin(), m_segments.end(), globalNs,
                               [](int64_t v, const ClockSegment &s) { return v < s.globalStart; });
    const ClockSegment &s = (it == m_segments.begin()) ? *it : *(it - 1);
    const double dg = static_cast<double>(satSub(globalNs, s.globalStart));
    int64_t local = satAdd(s.localStart, roundToInt(dg / s.slope));
    // Polish to the local time whose image is closest to globalNs (rounding in both directions).
    for (int i = 0; i < 2; ++i) {
        const int64_t g = toGlobal(local);
        if (g < globalNs && local < std::numeric_limits<int64_t>::max() &&
            toGlobal(local + 1) <= globalNs)
            ++local;
        else if (g > globalNs && local > std::numeric_limits<int64_t>::min() &&
                 toGlobal(local - 1) >= globalNs)
            --local;
    }
    return local;
}

void ClockMap::toGlobal(std::span<const int64_t> local, std::span<int64_t> out) const
{
    const size_t n = std::min(local.size(), out.size());
    if (m_segments.empty()) {
        std::copy_n(local.begin(), n, out.begin());
        return;
    }
    forEachInSegmentRuns(m_segments, local, n,
                         [&](const ClockSegment &s, double sm1, int64_t, int64_t, size_t j) {
                             out[j] = evalSegment(s, sm1, local[j]);
                         });
}

void ClockMap::durations(std::span<const int64_t> start, std::span<const int64_t> end,
                         std::span<int64_t> out) const
{
    const size_t n = std::min({start.size(), end.size(), out.size()});
    if (m_segments.empty()) {
        for (size_t i = 0; i < n; ++i)
            out[i] = end[i] - start[i];
        return;
    }
    // Runs by the start's segment; an end in the same segment is evaluated there too.
    forEachInSegmentRuns(
        m_segments, start, n,
        [&](const ClockSegment &s, double sm1, int64_t lo, int64_t hi, size_t j) {
            const int64_t b = end[j];
            const int64_t gb = (b >= lo && b < hi) ? evalSegment(s, sm1, b) : toGlobal(b);
            out[j] = satSub(gb, evalSegment(s, sm1, start[j]));
        });
}

bool ClockMap::isIdentity() const
{
    if (m_segments.empty())
        return true;
    for (const ClockSegment &s : m_segments) {
        if (s.slope != 1.0 || s.globalStart != s.localStart)
            return false;
    }
    return true;
}

} // namespace syncline::sync
