// ClockModelBuilder — turns one clock domain's burst bounds into the segments of its ClockMap.
//
// Steps: (1) StepDetector splits the bursts into step-free runs; (2) per run, WindowSelector picks
// the window and OffsetFitter gives one offset knot per burst (runs of fewer than 8 bursts:
// ShortRunFitter — rate from the run, from the domain's other processes, or none); (3) consecutive knots become
// segments (continuous; a segment that bridges two runs is the step gap, flagged SegStepDetected);
// (4) every segment gets a guaranteed bound and a statistical band; (5) segments before the first
// and after the last burst are flagged SegExtrapolated.
//
// Guaranteed bound: each burst j says U_j >= θ at tU_j and L_j <= θ at tL_j. Carried to time t with
// the local drift a and an allowance ρ for how much the true drift may differ from a,
//     θ(t) <= min_j U_j + a·(t − tU_j) + ρ·|t − tU_j|,
//     θ(t) >= max_j L_j + a·(t − tL_j) − ρ·|t − tL_j|
// (j over the bursts next to the segment). The bound is the largest distance from the map to either
// edge of that band over the segment, evaluated exactly (at the ends and where two cones cross).
// ρ = max(option, 2 × the 95th percentile of slope changes between neighbouring windows). The bound
// holds whenever the drift assumption holds; it is what the data prove, not a statistical guess.
// Units: ns. Pure, thread-safe.
#pragma once

#include "burstreducer.h"
#include "clockmap.h"

#include <span>
#include <vector>

namespace syncline::sync {

struct ClockModelOptions
{
    double minDriftAllowance = 1e-7; // ρ floor (0.1 ppm)
    int64_t boundMarginNs = 20;      // added to every guaranteed bound (clock-read granularity)
    int maxWindow = 512;             // bursts
};

struct ClockModel
{
    std::vector<ClockSegment> segments;
    int steps = 0;
    int window = 0; // window length chosen for the longest run (bursts)
    double driftAllowance = 0.0;
    int bursts = 0;
    int droppedBursts = 0; // bursts with lower > upper (a step inside the burst), left out
    int shortRuns = 0;     // step-free runs fitted by ShortRunFitter (too few bursts for windows)
    int priorRuns = 0;     // … of which took the clock domain's rate (other processes' bursts)
    int constantRuns = 0;  // … of which could not determine a rate: constant offset
};

class ClockModelBuilder
{
public:
    explicit ClockModelBuilder(const ClockModelOptions &opt = {}) : m_opt(opt) {}

    // `bursts` sorted by time; [spanFirst, spanLast] the local span of the events to map.
    // `domain`: the bursts of every process that reads the same clock (sorted by time; may
    // include `bursts`) — the rate prior of runs too short to determine their own (ShortRunFitter).
    ClockModel build(std::span<const BurstBound> bursts, int64_t spanFirst, int64_t spanLast,
                     std::span<const BurstBound> domain = {}) const;

private:
    ClockModelOptions m_opt;
};

} // namespace syncline::sync
