// LogHeader — the first record of a syncline v1 log, `{"t":"header",...}` (docs/log-format.md),
// read into WorkerInfo; and the rank a file without one (a log without a header, a Chrome trace
// without distributedInfo) gets from its file name.
//
// The header is read once per file with nlohmann_json (small document, any key order); the
// bulk records never go through it. Fields: rank, local_rank, world_size, group_rank, restart,
// role, run_id, host, boot_id, clock, pid, anchor {mono_ns, wall_ns}, skew {offset_ns,
// drift_ppm}, start_ns (local ns). Missing fields keep WorkerInfo's defaults.
// Stateless; safe from any thread.
#pragma once

#include "timeline/load/parse/problemlog.h"
#include "timeline/model/worker.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncline::load {

class LogHeader
{
public:
    // Fills `info` from the header `line` (line number lineNo, for problems). A "format" other
    // than "syncline" is a warning; unreadable JSON or a missing version is an error, and the
    // result is false (info may then be partly filled). A "version" that is present but not the
    // integer 1 (2, 1.9, "1") is an error that sets *unsupported: the file's records may mean
    // something else, so the caller loads none of them. *startNs gets start_ns when present.
    static bool read(std::string_view line, int64_t lineNo, WorkerInfo &info, ProblemLog &problems,
                     bool *unsupported,
                     std::optional<int64_t> *startNs);
    // The last run of digits (at most 9) in the file's base name without its extension:
    // "/job/timer_events.12.log" → 12, "rank3-b.json" → 3; nullopt when there is none.
    static std::optional<int> rankFromFileName(const std::string &path);
};

} // namespace syncline::load
