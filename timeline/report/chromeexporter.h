// ChromeExporter — writes the timeline as Chrome Trace Event JSON that Perfetto and
// chrome://tracing open: {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
//
// One process per worker (pid = worker index + 1) named "rank N (host)" ("rank N" when the host
// is unknown, ", restart R" added when R > 0) via process_name metadata, sorted by rank; one thread
// per track (tid = track index + 1) named by thread_name metadata (the track's name, else "tid T").
// Events: X for intervals (open ones with cat "open", overdue ones with cat "overdue"; args kept),
// "i" (thread scope) for instants; flow points s/t/f kept; async lanes as b/e (n for instants,
// cat = the lane's category, one id per tree of nested spans, no thread metadata); counters as one C event per
// sample (args {series: value}, the counter's name as key when it has no series). Times are µs with three decimals (exact
// ns) relative to Timeline::originNs() in the current clock mode (corrected by default);
// otherData.syncline_origin_ns holds the origin so absolute times can be recovered. Threading:
// reads the Timeline only.
#pragma once

#include "timeline/model/timeline.h"

#include <ostream>
#include <string>

namespace syncline {

class ChromeExporter
{
public:
    static int64_t write(const Timeline &timeline, ClockMode mode, std::ostream &out);
    static bool writeFile(const Timeline &timeline, ClockMode mode, const std::string &path,
                          std::string *error);
};

} // namespace syncline
