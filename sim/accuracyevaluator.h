// AccuracyEvaluator — compares clock maps with a SimJob's ground truth.
//
// Error of a stamp = map.toGlobal(local stamp) − true reference time, over both ends of every
// event of every worker. Stamps inside a segment flagged SegStepDetected (the gap around a clock
// step, where no method can know when the step happened) are counted separately. Coverage is the
// fraction of stamps whose |error| is within the guaranteed bound of their segment. Causality
// violations: a message received before it was sent, or a collective that ends on some rank
// before the latest begin of that instance, in corrected time.
// Also builds three baselines from each worker's own samples: the "common practice" line (the
// min-round-trip offset of the first and of the last burst joined linearly), a per-burst min-RTT
// piecewise-linear map (the min-RTT exchange's midpoint of every burst, joined), and a per-burst
// bound-midpoint piecewise-linear map (the middle of BurstReducer's tightest interval of every
// burst, joined). Outside the first and last burst they extrapolate the edge slope.
// Collective-only runs have no reference clock: evaluateRelative() expresses the truth in the
// clock of one worker (the timeline's clock then) and removes one global offset and rate.
// Stateless; thread-safe.
#pragma once

#include "simjob.h"

#include "sync/clockmap.h"

#include <vector>

namespace syncline::sim {

struct AccuracyStats
{
    double p50Ns = 0, p99Ns = 0, maxNs = 0; // |error| outside step gaps
    double floorNs = 0;                     // half the delay asymmetry (the same for all hosts)
    double coverage = 0;                    // fraction of all stamps with |error| <= bound
    int64_t stamps = 0, stampsInStepGaps = 0;
    int64_t violations = 0;
    double medianBoundNs = 0; // median over all stamps of their segment's guaranteed bound
    // The same for the assumption-based bound (ClockSegment::assumedBoundNs; the guaranteed one
    // where a segment has none).
    double assumedCoverage = 0;
    double medianAssumedBoundNs = 0;
};

class AccuracyEvaluator
{
public:
    // maps[i] belongs to job.workers[i].
    static AccuracyStats evaluate(const SimJob &job, const std::vector<sync::ClockMap> &maps);
    static int64_t causalityViolations(const SimJob &job, const std::vector<sync::ClockMap> &maps);
    // Offset from the min-round-trip exchange of the first and of the last burst, joined linearly.
    static std::vector<sync::ClockMap> commonPractice(const SimJob &job);
    static std::vector<sync::ClockMap> minRttPiecewise(const SimJob &job);
    static std::vector<sync::ClockMap> boundMidpointPiecewise(const SimJob &job);
    // Truth = the local reading of job.workers[refWorker]'s host clock at the true time; one
    // least-squares offset and rate over all stamps is removed before scoring. Coverage is
    // relative to the same truth, without the removal (the bounds are relative to that clock),
    // with 1 ns for the rounding of the true times (the reference worker's own bound is 0).
    static AccuracyStats evaluateRelative(const SimJob &job,
                                          const std::vector<sync::ClockMap> &maps, int refWorker);
    // Largest spread (max − min true end) of the ends of one collective instance over the ranks.
    static double collectiveEndSpreadNs(const SimJob &job);
    // Step gaps (maximal runs of SegStepDetected segments) in the maps of hosts whose true clock
    // has no step (one map per host: its first worker's).
    static int stepsOnStepFreeClocks(const SimJob &job, const std::vector<sync::ClockMap> &maps);
};

} // namespace syncline::sim
