// PiecewiseLinear — see piecewiselinear.h.
#include "piecewiselinear.h"

#include <algorithm>
#include <cmath>

namespace syncline::sync {

PiecewiseLinear PiecewiseLinear::tent(double rampStart, double peak, double height, double decay)
{
    PiecewiseLinear p;
    if (height <= 0.0)
        return p;
    if (rampStart < peak)
        p.m_knots.push_back({rampStart, 0.0});
    p.m_knots.push_back({peak, height});
    p.m_knots.push_back({peak + height / decay, 0.0});
    return p;
}

PiecewiseLinear PiecewiseLinear::clippedAfter(double end, double from) const
{
    PiecewiseLinear p;
    for (const Knot &k : m_knots) {
        if (k.t <= from)
            p.m_knots.push_back(k);
    }
    if (end > from)
        p.m_knots.push_back({end, 0.0});
    return p;
}

double PiecewiseLinear::value(double t) const
{
    if (m_knots.empty() || t < m_knots.front().t || t > m_knots.back().t)
        return 0.0;
    auto it = std::upper_bound(m_knots.begin(), m_knots.end(), t,
                               [](double x, const Knot &k) { return x < k.t; });
    if (it == m_knots.end())
        return m_knots.back().v;
    const Knot &b = *it, &a = *(it - 1);
    return a.v + (b.v - a.v) * (t - a.t) / (b.t - a.t);
}

double PiecewiseLinear::maxOver(double a, double b) const
{
    double m = std::max(value(a), value(b));
    for (const Knot &k : m_knots) {
        if (k.t >= a && k.t <= b)
            m = std::max(m, k.v);
    }
    return m;
}

PiecewiseLinear PiecewiseLinear::maxWith(const PiecewiseLinear &other) const
{
    if (m_knots.empty())
        return other;
    if (other.m_knots.empty())
        return *this;
    std::vector<double> ts;
    for (const Knot &k : m_knots)
        ts.push_back(k.t);
    for (const Knot &k : other.m_knots)
        ts.push_back(k.t);
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    PiecewiseLinear out;
    for (size_t i = 0; i < ts.size(); ++i) {
        const double a0 = value(ts[i]), b0 = other.value(ts[i]);
        out.m_knots.push_back({ts[i], std::max(a0, b0)});
        if (i + 1 == ts.size())
            break;
        // Both are linear on (ts[i], ts[i+1]); add the crossing if they swap order inside.
        const double a1 = value(ts[i + 1]), b1 = other.value(ts[i + 1]);
        const double d0 = a0 - b0, d1 = a1 - b1;
        if ((d0 < 0 && d1 > 0) || (d0 > 0 && d1 < 0)) {
            const double x = d0 / (d0 - d1);
            const double t = ts[i] + x * (ts[i + 1] - ts[i]);
            if (t > ts[i] && t < ts[i + 1])
                out.m_knots.push_back({t, a0 + x * (a1 - a0)});
        }
    }
    return out;
}

void PiecewiseLinear::maxWithInPlace(const PiecewiseLinear &other)
{
    if (other.m_knots.empty())
        return;
    if (m_knots.empty()) {
        m_knots = other.m_knots;
        return;
    }
    const double lo = other.m_knots.front().t, hi = other.m_knots.back().t;
    // [a, b]: the knots that bracket other's support (the function is unchanged outside it).
    auto ia = std::upper_bound(m_knots.begin(), m_knots.end(), lo,
                               [](double x, const Knot &k) { return x < k.t; });
    size_t a = ia == m_knots.begin() ? 0 : size_t(ia - m_knots.begin()) - 1;
    auto ib = std::lower_bound(m_knots.begin(), m_knots.end(), hi,
                               [](const Knot &k, double x) { return k.t < x; });
    size_t b = ib == m_knots.end() ? m_knots.size() - 1 : size_t(ib - m_knots.begin());
    if (m_knots[a].t > hi || m_knots[b].t < lo) {
        // Disjoint supports: insert other's knots as they are (both are 0 between them).
        const auto at = m_knots[a].t > hi ? m_knots.begin() : m_knots.end();
        m_knots.insert(at, other.m_knots.begin(), other.m_knots.end());
        return;
    }
    PiecewiseLinear sub;
    sub.m_knots.assign(m_knots.begin() + long(a), m_knots.begin() + long(b) + 1);
    PiecewiseLinear merged = sub.maxWith(other);
    merged.dropCollinear();
    m_knots.erase(m_knots.begin() + long(a), m_knots.begin() + long(b) + 1);
    m_knots.insert(m_knots.begin() + long(a), merged.m_knots.begin(), merged.m_knots.end());
}

void PiecewiseLinear::dropCollinear()
{
    // A knot on the line through its neighbours (to 1e-6 ns) adds nothing; without this every
    // maximum keeps the knots of both sides, and a series of raises that cover one another
    // (each a little higher, as repeated passes make them) keeps every knot it ever had.
    if (m_knots.size() < 3)
        return;
    size_t out = 1;
    for (size_t i = 1; i + 1 < m_knots.size(); ++i) {
        const Knot &p = m_knots[out - 1], &k = m_knots[i], &n = m_knots[i + 1];
        const double onLine = p.v + (n.v - p.v) * (k.t - p.t) / (n.t - p.t);
        if (std::abs(onLine - k.v) > 1e-6)
            m_knots[out++] = k;
    }
    m_knots[out++] = m_knots.back();
    m_knots.resize(out);
}

} // namespace syncline::sync
