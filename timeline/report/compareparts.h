// CompareRunPart — one run of `syncline compare` computed in pieces, in other processes
// (syncline.dask, docs/scale.md "Beyond one machine"): each log loaded alone with the whole
// job's clocks (LoadOptions::clockPlan) gives its part — its StatsParts, its event count, the
// global extent of its events in the mode, and what the anchor reads of it
// (CompareAnchor::Starts) —; merge() puts parts together (in any grouping: a tree of merges
// gives the same result); compare() of two runs' merged parts gives exactly what Compare,
// CompareAnchor and CompareExporter give for the two runs loaded whole: the same rows (from
// StatsParts::rows, Stats::compute's), ranks, spans, origins and anchors.
//
// Invariants: beginNs ≤ endNs when events > 0, else (INT64_MAX, INT64_MIN); the anchor's
// starts hold at most anchorK per rank.
// Threading: values; any thread.
#pragma once

#include "timeline/report/compareexporter.h"
#include "timeline/report/statsparts.h"

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

struct CompareRunPart
{
    StatsParts stats;
    int64_t events = 0;
    int64_t beginNs = INT64_MAX; // the earliest start (Timeline::range's begin)
    int64_t endNs = INT64_MIN;   // the latest end
    int anchorK = 1;
    CompareAnchor::Starts anchor;

    // The part of a loaded timeline (one log, or any set of workers) in `mode`, for `anchor`.
    static CompareRunPart of(const Timeline &timeline, ClockMode mode,
                             const CompareAnchor &anchor);
    std::string encode() const;
    // nullopt with *why when the bytes are not an encoded part (truncated, another format).
    static std::optional<CompareRunPart> decode(std::string_view bytes, std::string *why = nullptr);
    static CompareRunPart merge(std::vector<CompareRunPart> parts);

    // What Compare and the JSON read of the run (its parts merged).
    CompareRun run() const;
    CompareRunInfo info() const;
};

// Two runs compared from their merged parts, as `syncline compare` compares them loaded.
struct SplitComparison
{
    CompareResult result;
    CompareInfo info; // with the anchors found (its paths are the caller's to fill)
    // A run without the anchor: which ('A' or 'B') and why (CompareAnchor::find's words).
    char errorRun = 0;
    std::string error;
};

class CompareParts
{
public:
    // a, b: each run's parts merged; `anchor` the one both were taken for.
    static SplitComparison compare(const CompareRunPart &a, const CompareRunPart &b,
                                   ClockMode mode, const CompareAnchor &anchor);
};

} // namespace syncline
