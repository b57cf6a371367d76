// WindowSelector — chooses the fit window length (in bursts) from the data.
//
// A longer window averages queueing noise away (the envelope touches ever smaller delays) but a
// line cannot follow the oscillator's wander and thermal curvature over a long window. For each
// candidate length W the run is cut into adjacent, non-overlapping windows, each is fitted with the
// HullFitter, and the two fits of every pair of neighbours are compared where they meet. Both noise
// and curvature show up as disagreement there, in the units we care about (ns of offset), so the
// W with the smallest root-mean-square disagreement wins — compared as the 1-σ upper confidence
// of each RMS, rms / (1 − 1/√(2n)) for n joints, because an RMS from few joints is uncertain
// and the minimum over the lengths would pick the luckiest. Ties go to the longer window. A length
// with fewer than 3 joints competes only when no length has 3 (too few to trust its RMS).
// In sparse runs (bursts ≥ 5 s apart) the same comparison also covers parabolic windows of 4+
// bursts: over minutes the thermal swing of the oscillator bends θ by more than the queueing
// noise, and a line cannot follow it.
// Pure, thread-safe.
#pragma once

#include "burstreducer.h"

#include <span>
#include <vector>

namespace syncline::sync {

class WindowSelector
{
public:
    struct Choice
    {
        int window = 2;              // bursts per window
        bool quadratic = false;      // windows are parabolas (HullFitter::fitQuadratic)
        double disagreementNs = 0.0; // RMS disagreement at the joints (upper confidence, see above)
    };

    // Bursts at least this far apart (median) make a run sparse: windows then span minutes and
    // parabolic windows (4 bursts and more) compete with straight ones.
    static constexpr double kSparseSpacingNs = 5e9;
    static bool isSparse(std::span<const BurstBound> run);

    // Candidates: 2, 3, 4, 6, 8, 12, … up to maxWindow bursts (each also limited by the run size).
    explicit WindowSelector(int maxWindow = 512) : m_maxWindow(maxWindow) {}

    Choice select(std::span<const BurstBound> run) const;
    static std::vector<int> candidates(int maxWindow);

private:
    int m_maxWindow;
};

} // namespace syncline::sync
