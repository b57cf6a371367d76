// StatsParts — `syncline stats --json` computed in pieces, in other processes (syncline.dask,
// docs/scale.md "Beyond one machine"): each log loaded alone with the whole job's clocks
// (LoadOptions::clockPlan) gives its part — its worker's StatsWorker entry, and per (name, rank)
// every counted duration, ascending (Stats::durations); merge() puts parts together (in any
// grouping: a tree of merges gives the same result), and rows() / writeJson() give exactly
// Stats::compute's rows and StatsExporter's document for the whole job. Exact percentiles need
// every duration, so that is what a part holds: on the wire (encode) the sorted durations as
// varint deltas, about 1–3 bytes a duration instead of 8.
//
// Invariants: `durations` sorted by (name text, rank), one entry per (name, rank), each list
// ascending; nameId indexes `names`; `workers` in the timeline's order (rank, restart, file).
// Threading: values; any thread.
#pragma once

#include "timeline/report/stats.h"
#include "timeline/report/statsexporter.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

struct StatsParts
{
    std::vector<StatsWorker> workers;
    std::vector<std::string> names;
    std::vector<NameDurations> durations;

    // The part of a loaded timeline (one log, or any set of workers) under `query` (its mode
    // and range; every track).
    static StatsParts of(const Timeline &timeline, const StatsQuery &query);
    std::string encode() const;
    // nullopt with *why when the bytes are not an encoded part (truncated, another format).
    static std::optional<StatsParts> decode(std::string_view bytes, std::string *why = nullptr);
    // All of `parts` as one: names unified, a (name, rank)'s lists merged, workers in order.
    static StatsParts merge(std::vector<StatsParts> parts);
    // Stats::compute's rows, in its order (by name, the all-ranks row first, then the ranks).
    std::vector<StatsRow> rows() const;
    void writeJson(std::ostream &out) const;
};

} // namespace syncline
