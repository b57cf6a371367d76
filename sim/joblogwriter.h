// JobLogWriter — writes a SimJob as a real job directory: one log per worker in the documented
// log format v1 (docs/log-format.md: header, thread, B/E, msg, sync, hb, close) plus the ground
// truth (docs/sync.md "Truth files"): truth_events.csv, truth_clock.csv, truth_workers.csv,
// truth_steps.csv. Records of one file are written in local-time order (sync records at t4, when
// the exchange completed). Not thread-safe; one call writes one directory.
#pragma once

#include "simjob.h"

#include <string>

namespace syncline::sim {

class JobLogWriter
{
public:
    // Creates `dir` if needed. Returns "" on success, otherwise an error naming the path.
    static std::string write(const SimJob &job, const std::string &dir);
    static std::string logFileName(int rank); // "timer_events.<rank>.log"
};

} // namespace syncline::sim
