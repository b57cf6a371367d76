// Stats — duration statistics per event name, per rank and over all ranks.
//
// Counted: complete intervals (B/E pairs and X records, overdue ones included) in the current
// clock mode; open events and instants are not (an open event has no duration yet), nor a
// tracer's span over its whole recording (EventProfilerSpan: Kineto's "PyTorch Profiler (0)").
// Durations are global: end_ns − start_ns on the timeline (as in the events CSV).
// With `tracks`, only those threads count (a box selection of tracks × range).
// With a range [beginNs, endNs] (global ns, absolute, current mode) only events that overlap
// it count, with their whole duration; per track the range is found by binary search, so a
// narrow range over a big job costs little.
// Percentiles are nearest-rank: pXX = the ceil(XX/100 · n)-th smallest duration; mean is
// total / count rounded toward zero. Row order: by name (bytewise), then per run (WorkerInfo::run,
// ascending: "" for one job; "A", "B" in a comparison) the run's all-ranks row (rank = nullopt)
// first, then its ranks ascending. A rank's incarnations count together; the same rank in two
// runs of a comparison does not (each run has its own rows).
// Speed: three passes over the (run, rank) groups, each spread over the threads (query.threads,
// default the hardware's; a job under 100,000 events runs on the caller's thread): count per
// name; write the durations straight into one exactly-sized array per (run, name) (no growth, no
// copy), counting each name's histogram on the way (OrderStats' log-linear buckets), and read
// the per-rank percentiles off each rank's segment (one pass copying out the few values of the
// percentiles' buckets, nth_element on those); the all-ranks rows from the ranks' histograms
// summed and one such pass over the whole array. The durations are never reordered or sorted.
// The result does not depend on the thread count.
// Clock mode: query.mode when set, else the Timeline's mode(). A caller on another thread than
// the Timeline's owner sets query.mode (captured on the owner's thread): the Timeline's mode may
// be switched (setMode) while compute() runs, and compute() then never reads it.
// Threading: compute() only reads the Timeline's events and maps; any thread, as long as nobody
// mutates those (setMode does not: it changes only the mode and the range).
#pragma once

#include "timeline/model/timeline.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace syncline {

struct StatsRow
{
    uint32_t nameId = 0;
    std::optional<int> rank; // nullopt: over all ranks (of `run`)
    std::string run;         // WorkerInfo::run: "" for one job; "A" / "B" in a comparison
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
    // Only these tracks (worker index, track index), sorted; empty = every track. The viewer's
    // box selection (tracks × range) uses it.
    std::vector<std::pair<uint32_t, uint32_t>> tracks;
    size_t threads = 0; // 0: Stats::defaultThreads() (1 for a job under 100,000 events)
    bool includes(size_t worker, size_t track) const
    {
        return tracks.empty() || std::binary_search(tracks.begin(), tracks.end(),
                                                    std::pair(uint32_t(worker), uint32_t(track)));
    }
};

// Durations of one name on a log scale, per rank: bin k holds durations in
// [edge(k), edge(k + 1)) with edge(k) = max(k + 1, round(10^(k / kBinsPerDecade))) ns: each bin
// 1.33× the last (…, 10 ns, 13 ns, 18 ns, 24 ns, …, 1 µs, 1.33 µs, …), and 1 ns wide below
// 10 ns, where the rounded powers would repeat. Counted like the stats table (the same query:
// range, tracks, clock mode).
// Example: durations 1 µs, 1.2 µs and 20 µs → bin 24 ([1 µs, 1.33 µs)) twice, bin 34
// ([17.8 µs, 23.7 µs)) once.
struct DurationHistogram
{
    static constexpr int kBinsPerDecade = 8;
    static int64_t edge(int k);
    static int binOf(int64_t ns);

    uint32_t nameId = 0;
    int firstBin = 0;                         // counts[r][b] is bin firstBin + b
    std::vector<int> ranks;                   // ascending
    std::vector<std::vector<int64_t>> counts; // [rank position][bin], all the same length
    std::vector<int64_t> total;               // per bin, over the ranks
    int binCount() const { return int(total.size()); }
    int64_t binLow(int b) const { return edge(firstBin + b); }      // inclusive
    int64_t binHigh(int b) const { return edge(firstBin + b + 1); } // exclusive
};

// The durations of one name on one rank (its incarnations together), as Stats::compute counts
// them, ascending: what a split computation (StatsParts) ships so that the rows it merges are
// exactly compute()'s.
struct NameDurations
{
    uint32_t nameId = 0;
    int rank = 0;
    std::vector<int64_t> ns; // ascending
};

class Stats
{
public:
    static std::vector<StatsRow> compute(const Timeline &timeline, const StatsQuery &query = {});
    static size_t defaultThreads(); // the machine's hardware threads (at least 1)
    // The duration histogram of one name under the same query (per rank, log-scale bins).
    static DurationHistogram histogram(const Timeline &timeline, uint32_t nameId,
                                       const StatsQuery &query = {});
    // Every counted duration under the query, per (name, rank), each list ascending; ordered
    // by (nameId, rank). The runs of a comparison are not told apart (one job only).
    static std::vector<NameDurations> durations(const Timeline &timeline,
                                                const StatsQuery &query = {});
    // The 0-based index of the nearest-rank percentile p among n sorted values (n >= 1).
    static size_t percentileIndex(size_t n, double p);
    // Nearest-rank percentile of `v` (reorders v); 0 for an empty vector.
    static int64_t percentile(std::vector<int64_t> &v, double p);
};

} // namespace syncline
