#include "timeline/model/loadproblem.h"

namespace syncline {

std::string LoadProblem::toString() const
{
    std::string out = file;
    if (line > 0)
        out += ":" + std::to_string(line);
    out += ": ";
    out += message;
    return out;
}

const char *LoadProblem::severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "";
}

} // namespace syncline
