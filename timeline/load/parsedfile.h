// ParsedFile — what one parser thread produces from one input file, before the TimelineBuilder
// merges files: one Worker (tracks filled with local times, names and flags; NOT yet sorted or
// nested), the file's own name table and args, message sides, flow points and problems.
// Name ids in the tracks refer to `names`; argRefs' second member indexes `args`.
// Threading: built by one thread, then moved to the builder.
#pragma once

#include "timeline/model/loadproblem.h"
#include "timeline/model/stringtable.h"
#include "timeline/model/timeline.h"
#include "timeline/model/worker.h"

#include "recorder/timerange.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace syncline::load {

// The range of times (ns) a loader accepts from a file (recorder/timerange.h, one rule for the
// writer and the readers): a record outside it is reported with its line and dropped.
constexpr int64_t kMaxTimeNs = rec::kMaxLogTimeNs;
using rec::logEndInRange;
using rec::logTimeInRange;

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

    // Appends an event to track t (one of worker.tracks): local times, name id (into `names`)
    // and flags; returns its index in the track.
    uint32_t addEvent(EventTrack &t, int64_t start, int64_t end, uint32_t nameId, uint16_t flags)
    {
        const auto index = static_cast<uint32_t>(t.localStart.size());
        t.localStart.push_back(start);
        t.localEnd.push_back(end);
        t.nameId.push_back(nameId);
        t.flags.push_back(flags);
        return index;
    }
    // Attaches `json` (an object's text) to event `event` of t (the track's last event with args
    // so far): stored in `args`, referenced from t.argRefs, flagged EventHasArgs. An object
    // holding nothing ("{}", blanks) is not stored.
    void addArgs(EventTrack &t, uint32_t event, std::string_view json);
};

} // namespace syncline::load
