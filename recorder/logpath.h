// LogPath — expands a log path template into this worker's file name, and gives the inverse: the
// glob patterns that find every file a template can have produced (the viewer's job loader).
//
// Placeholders: {rank} {local_rank} {restart} {pid} {host} {run_id} {role}; `{{` and `}}` are
// literal braces. When the template has no {rank} and world size > 1, `.<rank>` is inserted
// before the extension of the file name (`logs/timer_events.log` → `logs/timer_events.3.log`;
// no extension, or a name whose only dot is its first character: appended, `events` →
// `events.3`, `.events` → `.events.3`) so that workers never share a file.
// Example: "run/{run_id}/rank{rank}-r{restart}.log" with rank 3, restart 1, run id "j42" →
// "run/j42/rank3-r1.log".
//
// A log is never truncated: when the expanded path exists (an earlier incarnation's log: an
// elastic restart, a membership change, a rerun in the same directory), the writer takes
// incarnation(path, restart, pid, 0), then n = 1, 2, ... until a name is free (LogWriter::open,
// O_EXCL). The tag goes where the rank tag goes: `.r<restart>` (restart > 0 only: the plain name
// is restart 0's), then `.r<restart>.p<pid>` when rank and restart collide (two incarnations of
// one restart count: torchelastic re-forming the group after a membership change keeps it), then
// `.r<restart>.p<pid>.<k>` (a pid reused). `timer_events.3.log`: restart 1 →
// `timer_events.3.r1.log`, then `timer_events.3.r1.p4242.log`; restart 0 →
// `timer_events.3.r0.p4242.log`, then `timer_events.3.r0.p4242.1.log`.
//
// globs(): each placeholder becomes `*`; the numeric ones ({rank} {local_rank} {restart} {pid})
// are never empty, the text ones ({host} {run_id} {role}) may be, and a path component that is
// then empty disappears as the file system sees it ("logs//rank0.log" is logs/rank0.log), so
// every combination of empty text placeholders gets its pattern; without {rank}, each pattern
// also gets its `.<rank>` variant, and every pattern its `.r*` (incarnation) variant. Example: "logs/{run_id}/ev.log" →
//   logs/*/ev.log   logs/*/ev.*.log   logs/ev.log   logs/ev.*.log
// followed by the same four with `.r*` before `.log` (logs/*/ev.r*.log, logs/*/ev.*.r*.log, ...).
// The patterns use glob(3) / fnmatch(3) syntax (GlobPattern's too), literal `*?[]\` escaped;
// they match the expanded path with runs of '/' written as one, assuming no placeholder value
// contains '/' or starts with '.' (glob's `*` matches neither).
// Threading: stateless.
#pragma once

#include "recorder/workeridentity.h"

#include <optional>
#include <string>
#include <vector>

namespace syncline::rec {

class LogPath
{
public:
    // nullopt when the template is valid, else why (unknown placeholder, unbalanced brace,
    // empty).
    static std::optional<std::string> validate(const std::string &tmpl);
    // Throws ConfigError("log_path: ...") for an invalid template.
    static std::string expand(const std::string &tmpl, const WorkerIdentity &who);
    // The glob patterns (see above), without duplicates, the all-placeholders-set ones first.
    // A pattern is absolute exactly when the path it matches is (a relative template whose
    // leading component is one empty placeholder expands to "/…"). Throws like expand().
    static std::vector<std::string> globs(const std::string &tmpl);
    // The n-th alternative name (n >= 0) of an expanded `path` whose file exists (see above).
    static std::string incarnation(const std::string &path, int restart, int64_t pid, int n);
};

} // namespace syncline::rec
