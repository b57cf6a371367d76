// Stragglers — who finishes repeated step-like events last.
//
// A name is step-like when at least two ranks record it, every rank that records it does so
// the same number of times (≥ 2; complete intervals only), so the k-th instance on each rank is
// the same step. For each instance k, the rank with the latest global end is "last", and its
// lag is its end minus the median of all ranks' ends for that instance (for an even count, the
// lower median). Per name the summary gives the rank most often last (ties: lower rank), how
// often, and its mean lag over the instances where it was last.
// Example: 3 ranks, step ends {100, 130, 110} → rank 1 last, lag 130 − 110 = 20.
// Elastic jobs: instances are counted per Generation (run id, restart, world size) — the rule
// applies within each, and a name's row sums the generations where it holds.
// Threading: read-only over the Timeline.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

struct StragglerRow
{
    uint32_t nameId = 0;
    int64_t instances = 0; // steps compared
    int ranks = 0;         // ranks that record the name
    int slowestRank = -1;  // most often last
    int64_t timesLast = 0;
    int64_t meanLagNs = 0; // over the instances where slowestRank was last
    int64_t totalNs = 0;   // sum of durations over all ranks (for ordering)
};

class Stragglers
{
public:
    // `pattern`: only names matching this glob (empty = every step-like name). Rows ordered
    // by totalNs descending.
    static std::vector<StragglerRow> compute(const Timeline &timeline, ClockMode mode,
                                             const std::string &pattern = {});
};

} // namespace syncline
