// Stats — duration statistics per event name, per rank and over all ranks.
//
// Counted: complete intervals (B/E pairs and X records, overdue ones included) in the current
// clock mode; open events and instants are not (an open event has no duration yet).
// Durations are global: end_ns − start_ns on the timeline (as in the events CSV).
// With a range [beginNs, endNs] (global ns, absolute, current mode) only events that overlap
// it count, with their whole duration; per track the range is found by binary search, so a
// narrow range over a big job costs little.
// Percentiles are nearest-rank: pXX = the ceil(XX/100 · n)-th smallest duration; mean is
// total / count rounded toward zero. Row order: by name (bytewise), the all-ranks row
// (rank = nullopt) first, then ranks ascending.
// Clock mode: query.mode when set, else the Timeline's mode(). A caller on another thread than
// the Timeline's owner sets query.mode (captured on the owner's thread): the Timeline's mode may
// be switched (setMode) while compute() runs, and compute() then never reads it.
// Threading: compute() only reads the Timeline's events and maps; any thread, as long as nobody
// mutates those (setMode does not: it changes only the mode and the range).
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace syncline {

struct StatsRow
{
    uint32_t nameId = 0;
    std::optional<int> rank; // nullopt: over all ranks
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t meanNs = 0;
    int64_t p50Ns = 0;
    int64_t p95Ns = 0;
    int64_t p99Ns = 0;
    int64_t maxNs = 0;
};

struct StatsQuery
{
    bool useRange = false;
    int64_t beginNs = 0; // global ns, inclusive
    int64_t endNs = 0;   // global ns, inclusive
    bool perRank = true;
    ClockMode mode = ClockMode::Corrected; // which clock maps the range and durations use
};

class Stats
{
public:
    static std::vector<StatsRow> compute(const Timeline &timeline, const StatsQuery &query = {});
    // Nearest-rank percentile of `v` (reorders v); 0 for an empty vector.
    static int64_t percentile(std::vector<int64_t> &v, double p);
};

} // namespace syncline
