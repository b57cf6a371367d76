// Diagnosis — who holds the job back, on the corrected clock: the job's steps (a ranks × steps
// matrix), every collective instance's arrivals, its last arriver and everyone's wait, blame
// per rank, the critical path of each step and what fixing a culprit would buy. The one
// implementation behind `syncline diagnose`, `Timeline.diagnose()`, the wait rule of
// `syncline stats` and the viewer's step graph, heat map and culprit marks.
//
// Steps. The step name is the query's (`step`, matched exactly or as "NAME#<n>", so
// `ProfilerStep` finds ProfilerStep#12); else the config's kind of category "step" (when its
// names occur as outermost events); otherwise detected: among names that occur as the
// outermost event of a thread (depth 0), complete, at least twice on a worker, not collectives,
// the one recorded by the most workers, then covering the most time (sum of durations). A
// trailing "#<digits>" is dropped first (Kineto numbers ProfilerStep#N). Step k of a generation
// (Generation: restart, world size) is the k-th such event of each worker in begin order; its
// time runs from the earliest rank's start to the latest rank's end.
//
// Collective instances: Timeline::kinds' `collective` names (config, --align-on, or recognised
// by CollectiveNames), the k-th per name per generation on each worker (CollectiveInstances).
// For one instance: arrival = a rank's global begin; the last arriver L; wait(r) = arrival(L) −
// arrival(r). The instance is *undecided* when arrival(L) − arrival(second last) is not more
// than the two ranks' clock bounds added (WorkerClockResult::boundNs, or assumedBoundNs when
// aligned on collectives): the order of the two is then not known, and nobody is blamed. A
// decided instance blames L with the wait it alone caused: every other rank would have waited
// (arrival(L) − arrival(second last)) less had L come with the second last, so
//     blame = (n − 1) · (arrival(L) − arrival(second last)).
// Example: ranks 0 and 1 arrive at 10 ms, rank 2 at 15 ms (bounds 20 µs): rank 2 is last,
// blame 2 × 5 ms = 10 ms; ranks 0 and 1 wait 5 ms each (victims).
//
// What-if for a rank c: its compute before each collective of a step (from its previous
// collective's end, or its step start, to its arrival) replaced by the median of the other
// ranks' (for the same instance) when that is shorter, the step's chain of collectives replayed:
// instance i then completes Δ_i earlier, Δ_i = last_i − max(max over r ≠ c of arrival_r − Δ_{i−1},
// arrival_c − Δ_{i−1} − (gap_c − median_i)), and the step ends Δ_last earlier. This assumes
// every rank takes part in the step's collectives (data parallel); other instances are skipped.
// Culprits: ranks whose blame is an outlier among the ranks (RankOutliers' rule over per-rank
// blame) and whose what-if saves at least 1 % of the run's step time (of the collectives' spans
// when no step is found): so a rank that is last now and then by chance is not named.
//
// Critical path of a step: walking back from the last rank's step end through each collective
// instance to its last arriver: per instance the last arriver's compute before it (by name:
// the events at the collective's depth on its track in that gap, the rest "(other)"), the
// collective itself from the last arrival to its earliest end, and the step's tail on the rank
// that ended last. Shares are of the summed path time, by rank and by name.
//
// Units: ns; times global in the query's clock mode. Ranks: a rank's incarnations count
// together in per-rank totals; the steps × workers matrix is per worker.
// Cost: per worker, two passes over all its events to find the step, two to find its
// collectives; memory 8 B per step event, 8 B per (step, worker) cell (DiagnoseQuery::cells),
// 4 B per (instance, worker) while medians are taken, then freed.
// Threading: pure; reads a const Timeline (any thread, while nobody mutates it). The scans of
// each worker's events run on DiagnoseQuery::threads threads; the result does not depend on
// their number.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

struct DiagnoseQuery
{
    ClockMode mode = ClockMode::Corrected;
    bool useRange = false; // only steps and instances that begin inside [beginNs, endNs]
    int64_t beginNs = 0;   // global ns, absolute
    int64_t endNs = 0;
    std::string stepName; // empty: detect
    int whatIfRanks = 8;  // what-if for at most this many ranks (highest blame first)
    size_t threads = 0;   // 0: 1 for a job under 100,000 events, else Stats::defaultThreads()
    // The steps × workers cells (8 bytes each: the viewer's heat map); off, they and
    // DiagnosisStep::waitMaxNs stay empty/0 (the CLI and Python, whose output has neither).
    bool cells = true;
    // Every instance's arrivals, one row per (instance, worker) (Diagnosis::instanceList and
    // ::arrivals: the SQLite `collectives` table); off, both stay empty.
    bool arrivals = false;
};

struct DiagnosisStep
{
    int64_t generation = 0;
    int64_t index = 0; // k within its generation
    int64_t beginNs = 0;
    int64_t endNs = 0;
    int64_t waitMaxNs = 0;    // the largest per-worker wait inside the step (with cells)
    int64_t whatIfEndNs = 0;  // end with the top culprit fixed (= endNs without one)
    int32_t lastRankWorker = -1; // worker whose step ended last
    int64_t durationNs() const { return endNs - beginNs; }
};

struct DiagnosisRank
{
    int rank = 0;
    int64_t blameNs = 0;
    int64_t timesLast = 0; // decided instances where it was last
    int64_t instances = 0; // instances it took part in
    int64_t waitNs = 0;    // its own waiting
    int64_t criticalNs = 0; // its time on the steps' critical paths
    bool culprit = false;
    // What-if (computed for the ranks of highest blame, see DiagnoseQuery::whatIfRanks).
    bool hasWhatIf = false;
    int64_t whatIfStepP50Ns = 0;
    int64_t savedNsPerStep = 0;
    int64_t savedNsTotal = 0;
};

struct DiagnosisShare
{
    std::string name; // rank as text for by-rank shares
    int rank = -1;
    int64_t ns = 0;
    double share = 0.0;
};

struct DiagnosisInstance // an undecided one, or any for the viewer
{
    uint32_t nameId = 0;
    int64_t sequence = 0; // CollectiveEvent::sequence
    uint32_t key = 0;     // CollectiveEvent::key (by process group or by name)
    bool decided = false; // (instanceList only: the undecided list holds undecided ones)
    int32_t lastWorker = -1;
    int32_t secondWorker = -1;
    int64_t lastArrivalNs = 0;
    int64_t secondArrivalNs = 0;
    int64_t boundNs = 0; // the two ranks' bounds added
    int participants = 0;
};

struct Diagnosis
{
    ClockMode mode = ClockMode::Corrected;
    // Steps.
    std::string stepName; // "" when none was found
    std::vector<DiagnosisStep> steps; // by (generation, index)
    int64_t stepP50Ns = 0, stepMeanNs = 0, stepMaxNs = 0;
    // [step][worker]: the worker's own step duration and its wait inside the step (float ns;
    // NaN when the worker has no such step). Empty unless DiagnoseQuery::cells.
    std::vector<float> cellDurationNs, cellWaitNs;
    size_t workerCount = 0;
    float cellDuration(size_t step, size_t worker) const
    {
        return cellDurationNs[step * workerCount + worker];
    }
    float cellWait(size_t step, size_t worker) const
    {
        return cellWaitNs[step * workerCount + worker];
    }
    // Collectives.
    std::vector<uint32_t> collectiveNames; // name ids counted
    int64_t instances = 0;
    int64_t decided = 0;
    std::vector<DiagnosisInstance> undecided; // at most kMaxUndecidedListed
    // With DiagnoseQuery::arrivals: every instance counted above (`instances`: two or more
    // participants, in the query's range), in the order first seen (workers in order, each by
    // begin), and per instance each participant's arrival, end and wait, by (instance, worker).
    // Summed per rank, the waits are DiagnosisRank::waitNs and the rows DiagnosisRank::instances.
    struct Arrival
    {
        uint32_t instance = 0; // index into instanceList
        uint32_t worker = 0;
        uint32_t track = 0, index = 0; // its collective event
        int64_t arrivalNs = 0, endNs = 0, waitNs = 0;
    };
    std::vector<DiagnosisInstance> instanceList;
    std::vector<Arrival> arrivals;
    static constexpr size_t kMaxUndecidedListed = 100;
    int64_t undecidedCount = 0;
    // Per rank (ascending rank), and the culprits (rank indices into `ranks`, by blame).
    std::vector<DiagnosisRank> ranks;
    std::vector<size_t> culprits;
    std::vector<size_t> victims; // ranks by own wait, most first (those with any wait)
    // Critical path shares.
    std::vector<DiagnosisShare> criticalByRank, criticalByName;
    int64_t criticalTotalNs = 0;
    // Workers whose log has no close record (crashed, killed, or still running): worker index
    // and the global time of its last record. Their open events are not counted anywhere above.
    std::vector<std::pair<size_t, int64_t>> unclosed;
    // Per worker: the global begin of each collective instance it was last at (decided), for
    // culprit marks on the timeline.
    std::vector<std::vector<int64_t>> lastArrivals;
};

class Diagnoser
{
public:
    static Diagnosis run(const Timeline &timeline, const DiagnoseQuery &query = {});
    // "ProfilerStep#12" → "ProfilerStep"; other names unchanged.
    static std::string_view stepKey(std::string_view name);
};

} // namespace syncline
