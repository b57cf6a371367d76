// CsvExporter — the events CSV. Header, exactly:
//   rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,local_start_ns,local_end_ns,status
// One row per event, workers in (rank, restart) order, then tracks, then events by start.
// start_ns/end_ns: global ns in the timeline's current clock mode MINUS Timeline::originNs()
// (the earliest global event start), so the first event starts at 0; duration_ns = end − start;
// local_*: the worker's own stamps. status: "open" (no end recorded; end = last time seen),
// "overdue" (longer than the config's expected maximum), else "complete" (instants too).
// Fields are quoted per RFC 4180 when they hold a comma, quote or line break. Lines end "\n".
// A comparison of two runs (CompareTimeline) writes the events CSV's version 2 (kHeaderCompare):
// the same columns and a last one, `run` ("A" / "B"); a single job's CSV stays version 1
// (kHeader) — CsvTable holds that rule for every per-worker CSV.
// With a range, only events overlapping [beginNs, endNs] (global, absolute) are written.
// Threading: reads the Timeline only.
#pragma once

#include "timeline/model/timeline.h"

#include <ostream>
#include <string>

namespace syncline {

struct EventRange
{
    bool use = false;
    int64_t beginNs = 0;
    int64_t endNs = 0;
};

class CsvExporter
{
public:
    static constexpr const char *kHeader = "rank,restart,host,pid,tid,name,depth,start_ns,end_ns,"
                                           "duration_ns,local_start_ns,local_end_ns,status";
    static constexpr const char *kHeaderCompare =
        "rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,local_start_ns,"
        "local_end_ns,status,run";
    // Returns the number of rows written.
    static int64_t write(const Timeline &timeline, ClockMode mode, std::ostream &out,
                         const EventRange &range = {});
    // The rows alone, no header, times from `originNs` (the whole job's Timeline::originNs):
    // a split export writes each log's rows apart (syncline.dask); the header and the parts in
    // the timeline's worker order are write()'s text.
    static int64_t writeRows(const Timeline &timeline, ClockMode mode, std::ostream &out,
                             const EventRange &range, int64_t originNs);
    static bool writeFile(const Timeline &timeline, ClockMode mode, const std::string &path,
                          const EventRange &range, std::string *error);
    static const char *status(uint16_t flags);
};

} // namespace syncline
