// ParsedFile — what one parser thread produces from one input file, before the TimelineBuilder
// merges files: one Worker (tracks filled with local times, names and flags; NOT yet sorted or
// nested), the file's own name table and args, message sides, flow points and problems.
// Name ids in the tracks refer to `names`; argRefs' second member indexes `args`.
// Threading: built by one thread, then moved to the builder.
#pragma once

#include "loadproblem.h"
#include "stringtable.h"
#include "timeline.h"
#include "worker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

struct ParsedMessage
{
    int64_t localNs = 0;
    bool send = true;
    int64_t peer = 0; // the other rank
    std::string id;
};

struct ParsedFile
{
    std::string path;
    bool usable = false; // a worker was produced (even a partial one)
    bool rankKnown = true;
    Worker worker;
    StringTable names;
    std::vector<std::string> args;
    std::vector<ParsedMessage> messages;
    std::vector<FlowPoint> flows; // `worker` unset; `track` indexes worker.tracks
    std::vector<LoadProblem> problems;
    int64_t bytes = 0;
    int64_t records = 0;
};

} // namespace syncline
