// problemkinds — tests find load problems by their kind (LoadProblem::Kind), not by the wording
// of their message; `detail`, when given, must also appear in the message (which event, which
// rank: what tells two problems of one kind apart).
#pragma once

#include "timeline/model/loadproblem.h"

#include <algorithm>
#include <string>
#include <vector>

namespace problemkinds {

inline int count(const std::vector<syncline::LoadProblem> &problems, syncline::LoadProblem::Kind kind,
                 const std::string &detail = {})
{
    return int(std::count_if(problems.begin(), problems.end(), [&](const syncline::LoadProblem &p) {
        return p.kind == kind && p.message.find(detail) != std::string::npos;
    }));
}

} // namespace problemkinds
