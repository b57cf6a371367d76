// LoadProblem — one thing wrong found while loading (bad line, misnesting, duplicate rank...).
// Plain value type. `line` is 1-based; 0 when the problem is about the whole file. Problems about
// one record of a thread also say where it is (tid, the record's local ns), so the viewer's
// Problems panel can jump to the event there; localNs < 0 when not known.
#pragma once

#include <cstdint>
#include <string>

namespace syncline {

struct LoadProblem
{
    enum class Severity
    {
        Info,
        Warning,
        Error
    };
    Severity severity = Severity::Warning;
    std::string file;
    int64_t line = 0;
    std::string message;
    int64_t tid = 0;
    int64_t localNs = -1;

    std::string toString() const; // "file:line: message" (or "file: message" when line == 0)
    static const char *severityName(Severity s); // "info", "warning", "error"
};

} // namespace syncline
