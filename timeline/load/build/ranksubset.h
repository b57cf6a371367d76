// RankSubset — what a load restricted to some ranks (--ranks, LoadOptions::ranks) does after
// the files are parsed: drops those whose worker is outside the set (a log whose file name gave
// no rank or another than its header, a Chrome trace), each with an Info problem, and says once
// what the subset leaves out of the clock correction (messages to ranks outside it, collectives
// aligned over its ranks only). The choice of which logs to open at all is JobInputs::selectRanks.
// Threading: plain functions on the caller's data.
#pragma once

#include "timeline/load/parse/parsedfile.h"
#include "timeline/model/loadproblem.h"
#include "timeline/model/rankset.h"
#include "timeline/model/timeline.h"

#include <cstddef>
#include <vector>

namespace syncline::load {

struct RankSubset
{
    static void dropOutside(std::vector<ParsedFile> &files, const RankSet &ranks,
                            std::vector<LoadProblem> &problems);
    // `records`: the message records parsed; `pairs`: those paired (unpaired = records − 2 pairs).
    static void note(Timeline &tl, const RankSet &ranks, size_t droppedByName, size_t records,
                     size_t pairs);
};

} // namespace syncline::load
