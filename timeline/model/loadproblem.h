// LoadProblem — one thing wrong found while loading (bad line, misnesting, duplicate rank...).
// Plain value type. `line` is 1-based; 0 when the problem is about the whole file.
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

    std::string toString() const; // "file:line: message" (or "file: message" when line == 0)
};

} // namespace syncline
