// StatsExporter — statistics as CSV and as JSON.
//
// CSV header: name,rank,count,total_ns,mean_ns,p50_ns,p95_ns,p99_ns,max_ns (rank empty on the
// all-ranks rows); rows in Stats order.
// JSON (also what `syncline stats --json` prints), exactly:
//   {"workers": [{"rank", "restart", "host", "events", "clock": {"offset_ns", "drift_ppm",
//     "bound_ns", "method"}}],
//    "events": [{"name", "rank", "count", "total_ns", "mean_ns", "p50_ns", "p95_ns", "p99_ns",
//     "max_ns"}]}
// with "rank": null on the all-ranks rows. clock.offset_ns = global − local at the worker's
// first event in the corrected map (global = the timeline's wall-clock-epoch scale),
// drift_ppm = mean slope − 1 in ppm, bound_ns = guaranteed error bound (0 = none),
// method = "sync" | "collectives" | "none".
// Threading: reads the Timeline only.
#pragma once

#include "timeline/report/stats.h"
#include "timeline/model/timeline.h"

#include <ostream>
#include <string>
#include <vector>

namespace syncline {

// One entry of the JSON's "workers": what the document says of a worker (StatsWorker::of), so
// that a split computation (StatsParts) writes the same document without the events.
struct StatsWorker
{
    int rank = 0, restart = 0, worldSize = 1;
    int64_t pid = 0;
    bool closed = false;
    std::string host, sourceFile;
    int64_t events = 0;
    int64_t offsetNs = 0, boundNs = 0, medianBoundNs = 0;
    double driftPpm = 0;
    std::string method;
    // The wall-clock check (Worker::wall): the JSON's wall_* keys.
    bool wallUsed = false;
    std::string wallVerdict, wallReason;
    int64_t wallOffsetNs = 0, wallBandNs = 0;
    static StatsWorker of(const Worker &worker);
};

class StatsExporter
{
public:
    static void writeCsv(const Timeline &timeline, const std::vector<StatsRow> &rows,
                         std::ostream &out);
    static void writeJson(const Timeline &timeline, const std::vector<StatsRow> &rows,
                          std::ostream &out);
    // The same document from the workers' entries (in the timeline's worker order) and the
    // rows' names (`names[nameId]`).
    static void writeJson(const std::vector<StatsWorker> &workers,
                          const std::vector<std::string> &names, const std::vector<StatsRow> &rows,
                          std::ostream &out);
    // Opens `path` and writes; false with *error on failure.
    static bool writeCsvFile(const Timeline &timeline, const std::vector<StatsRow> &rows,
                             const std::string &path, std::string *error);
    static bool writeJsonFile(const Timeline &timeline, const std::vector<StatsRow> &rows,
                              const std::string &path, std::string *error);
};

} // namespace syncline
