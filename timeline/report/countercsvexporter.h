// CounterCsvExporter — the counters CSV (`syncline export --counters-csv FILE`), a file of its
// own so the events CSV's header (a contract) stays as it is. Header, exactly:
//   rank,restart,host,pid,counter,series,time_ns,local_ns,value
// One row per sample: workers in (rank, restart) order, then counters by (pid, name, series),
// then samples by time. time_ns: global ns in the clock mode MINUS Timeline::originNs() (the
// events CSV's zero, so both files share one time axis); local_ns: the worker's own stamp;
// series: the args key of a Chrome `C` event ("" for a syncline log's counter); value: the
// shortest text that reads back as the same double. RFC 4180 quoting, lines end "\n". With a
// range, only samples inside [beginNs, endNs] (global, absolute) are written. A comparison of two
// runs adds a last column, `run` (kHeaderCompare; see CsvTable).
// Threading: reads the Timeline only.
#pragma once

#include "timeline/report/csvexporter.h"

namespace syncline {

class CounterCsvExporter
{
public:
    static constexpr const char *kHeader =
        "rank,restart,host,pid,counter,series,time_ns,local_ns,value";
    static constexpr const char *kHeaderCompare =
        "rank,restart,host,pid,counter,series,time_ns,local_ns,value,run";
    // Returns the number of rows written.
    static int64_t write(const Timeline &timeline, ClockMode mode, std::ostream &out,
                         const EventRange &range = {});
    static bool writeFile(const Timeline &timeline, ClockMode mode, const std::string &path,
                          const EventRange &range, std::string *error);
};

} // namespace syncline
