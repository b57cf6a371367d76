// Compare — per-name and per-rank differences between two runs A and B of a job (`syncline
// compare`, the viewer's Compare panel): count, total, mean, p50, p95 and p99 of each side (p95
// is for CompareGate; the exports carry the others), B − A and
// B / A, ordered by impact.
//
// Each side's numbers are Stats::compute's (the one truth: complete intervals only, global
// durations in the query's clock mode, nearest-rank percentiles, mean = total / count rounded
// toward zero), joined by event NAME (the runs have their own string tables) and by RANK (the
// log header's rank; a rank's incarnations count together, as in Stats). A name or rank found
// in one run only gives a row with the other side all zero and `in` = OnlyA / OnlyB.
// Row order (the impact order): names by |Δ total| of their all-ranks row, descending (ties:
// name bytewise); each name's all-ranks row first, then its per-rank rows by |Δ total|
// descending (ties: rank ascending). Ratios are B / A as doubles, NaN when A's value is 0.
// The summary: each run's span (latest end − earliest start) and, for the step name (the
// anchor's name when it names one and both runs have it, else the name recorded by both runs
// whose name contains "step" — case-insensitive — with the largest total in A; none → empty),
// that name's all-ranks row.
// Cost: two Stats::compute passes (one per run, each on every core), then O(rows · log rows).
// Threading: reads both Timelines only; any thread, as for Stats.
#pragma once

#include "timeline/report/compareanchor.h"
#include "timeline/report/stats.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

// One side's numbers of a row (all 0 when the name or rank is absent from that run).
struct CompareSide
{
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t meanNs = 0;
    int64_t p50Ns = 0;
    int64_t p99Ns = 0;
    int64_t p95Ns = 0; // after p99 so that {count, total, mean, p50, p99} initialisers still fit
};

struct CompareRow
{
    enum class In
    {
        Both,
        OnlyA,
        OnlyB
    };
    std::string name;
    std::optional<int> rank; // nullopt: over all ranks
    In in = In::Both;
    CompareSide a, b;

    int64_t deltaCount() const { return b.count - a.count; }
    int64_t deltaTotalNs() const { return b.totalNs - a.totalNs; }
    int64_t deltaMeanNs() const { return b.meanNs - a.meanNs; }
    int64_t deltaP50Ns() const { return b.p50Ns - a.p50Ns; }
    int64_t deltaP99Ns() const { return b.p99Ns - a.p99Ns; }
    int64_t deltaP95Ns() const { return b.p95Ns - a.p95Ns; }
    // The impact per step: Δ mean × the smaller count — what the per-call change costs over the
    // calls both runs made, so a run that simply made fewer calls (fewer steps in the same
    // span) does not look faster, as |Δ total| makes it. 0 when either run lacks the name or
    // rank; saturated to the int64 range.
    int64_t impactNs() const
    {
        const double v = double(deltaMeanNs()) * double(std::min(a.count, b.count));
        return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : int64_t(v);
    }
    // B / A; NaN when A is 0.
    static double ratio(int64_t a, int64_t b) { return a == 0 ? std::nan("") : double(b) / a; }
};

struct CompareQuery
{
    ClockMode mode = ClockMode::Corrected;
    CompareAnchor anchor; // only its name matters here (the summary's step name)
};

struct CompareResult
{
    std::vector<CompareRow> rows;     // impact order (see above)
    std::vector<int> ranksA, ranksB;  // ascending
    std::vector<int> onlyA, onlyB;    // ranks in one run only
    int64_t spanANs = 0, spanBNs = 0; // latest end − earliest start of each run
    std::string stepName;             // "" when none
    // The step name's all-ranks row (when stepName is set).
    const CompareRow *stepRow() const;
    // How the step time changed, one line: "step 'train_step': mean 12.000 ms (A) vs 13.200 ms
    // (B), +1.200 ms (×1.100); span 5.000 s vs 5.500 s" (the span part alone when no step).
    std::string summaryLine() const;
};

// What Compare reads of a run besides its Stats rows: its ranks (ascending, each once) and its
// span (latest end − earliest start in the mode; 0 without events). of() takes them from a
// loaded run; a split comparison (CompareRunPart) from its merged parts.
struct CompareRun
{
    std::vector<int> ranks;
    int64_t spanNs = 0;
    static CompareRun of(const Timeline &run, ClockMode mode);
};

class Compare
{
public:
    // A row's name text by its StatsRow::nameId.
    using NameOf = std::function<std::string_view(uint32_t)>;
    static CompareResult compute(const Timeline &a, const Timeline &b, const CompareQuery &q = {});
    // From already computed Stats rows (per rank included) of each run.
    static CompareResult fromStats(const Timeline &a, const std::vector<StatsRow> &rowsA,
                                   const Timeline &b, const std::vector<StatsRow> &rowsB,
                                   const CompareQuery &q = {});
    // The same from each run's rows, name texts and CompareRun (fromStats is this over the
    // loaded runs).
    static CompareResult fromRows(const std::vector<StatsRow> &rowsA, const NameOf &nameA,
                                  const CompareRun &runA, const std::vector<StatsRow> &rowsB,
                                  const NameOf &nameB, const CompareRun &runB,
                                  const CompareQuery &q = {});
    static const char *inName(CompareRow::In in); // "both", "a", "b"
};

} // namespace syncline
