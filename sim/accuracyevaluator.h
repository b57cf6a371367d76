// AccuracyEvaluator — compares clock maps with a SimJob's ground truth.
//
// Error of a stamp = map.toGlobal(local stamp) − true reference time, over both ends of every
// event of every worker. Stamps inside a segment flagged SegStepDetected (the gap around a clock
// step, where no method can know when the step happened) are counted separately. Coverage is the
// fraction of stamps whose |error| is within the guaranteed bound of their segment. Causality
// violations: a message received before it was sent, or a collective that ends on some rank
// before the latest begin of that instance, in corrected time.
// Also builds the "common practice" maps (one offset at start, one at end, a straight line).
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
};

class AccuracyEvaluator
{
public:
    // maps[i] belongs to job.workers[i].
    static AccuracyStats evaluate(const SimJob &job, const std::vector<sync::ClockMap> &maps);
    static int64_t causalityViolations(const SimJob &job, const std::vector<sync::ClockMap> &maps);
    // Offset from the min-round-trip exchange of the first and of the last burst, joined linearly.
    static std::vector<sync::ClockMap> commonPractice(const SimJob &job);
};

} // namespace syncline::sim
