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

} // namespace syncline
