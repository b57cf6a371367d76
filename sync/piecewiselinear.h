// PiecewiseLinear — a non-negative piecewise-linear function of local time used for causality
// adjustments: linear between knots, 0 before the first and after the last knot.
// Invariants: knots sorted by t (strictly increasing); values >= 0; first and last values are 0
// once built from tents. Units: t in local ns, values in ns. Value type; no threading rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncline::sync {

class PiecewiseLinear
{
public:
    struct Knot
    {
        double t;
        double v;
    };

    PiecewiseLinear() = default;
    // Rises linearly from 0 at rampStart to `height` at peak, then falls at `decay` ns per ns.
    static PiecewiseLinear tent(double rampStart, double peak, double height, double decay);

    // The same function, forced to fall linearly from its value at `from` to 0 at `end`.
    PiecewiseLinear clippedAfter(double end, double from) const;

    double value(double t) const;
    bool isZero() const { return m_knots.empty(); }
    const std::vector<Knot> &knots() const { return m_knots; }
    double maxOver(double a, double b) const; // largest value on [a, b]

    // Pointwise maximum (adds the crossing points as knots).
    PiecewiseLinear maxWith(const PiecewiseLinear &other) const;
    // The same in place, touching only the knots over `other`'s support: O(knots of other + log n
    // + the knots moved), so a long series of short tents added in time order stays linear.
    void maxWithInPlace(const PiecewiseLinear &other);

    size_t knotCount() const { return m_knots.size(); }

private:
    void dropCollinear(); // removes knots that lie on the line through their neighbours
    std::vector<Knot> m_knots;
};

} // namespace syncline::sync
