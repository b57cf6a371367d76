// LogPath — expands a log path template into this worker's file name.
//
// Placeholders: {rank} {local_rank} {restart} {pid} {host} {run_id} {role}; `{{` and `}}` are
// literal braces. When the template has no {rank} and world size > 1, `.<rank>` is inserted
// before the extension of the file name (`logs/timer_events.log` → `logs/timer_events.3.log`;
// no extension: appended, `events` → `events.3`) so that workers never share a file.
// Example: "run/{run_id}/rank{rank}-r{restart}.log" with rank 3, restart 1, run id "j42" →
// "run/j42/rank3-r1.log".
// Threading: stateless.
#pragma once

#include "recorder/workeridentity.h"

#include <optional>
#include <string>

namespace syncline::rec {

class LogPath
{
public:
    // nullopt when the template is valid, else why (unknown placeholder, unbalanced brace,
    // empty).
    static std::optional<std::string> validate(const std::string &tmpl);
    // Throws ConfigError("log_path: ...") for an invalid template.
    static std::string expand(const std::string &tmpl, const WorkerIdentity &who);
};

} // namespace syncline::rec
