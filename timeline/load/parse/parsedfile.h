// ParsedFile — what one parser thread produces from one input file, before the TimelineBuilder
// merges files: one Worker (tracks filled with local times, names and flags; NOT yet sorted or
// nested), the file's own name table and args, message sides, flow points and problems.
// Name ids in the tracks refer to `names`; argRefs' second member indexes `args`.
// Threading: built by one thread, then moved to the builder.
#pragma once

#include "timeline/load/parse/messagelog.h"
#include "timeline/model/argstore.h"
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

struct ParsedFile
{
    // Threads (tracks) one file may have. A track costs about 500 bytes even with one event
    // (the EventTrack and its arrays), so a hostile file of 1M distinct tids, one event each,
    // would take ~0.6 GB; past this limit the records of new tids are dropped and reported
    // (`too many threads`), which bounds a file's track memory to ~32 MB. Real processes have
    // hundreds of threads, a Kineto trace tens of streams.
    static constexpr size_t kMaxTracks = 65536;

    std::string path;
    bool usable = false; // a worker was produced (even a partial one)
    bool rankKnown = true;
    Worker worker;
    StringTable names;
    ArgStore args; // interned; argRefs' second members are its ids
    // Set when the argRefs' ids already refer to the timeline's store (JobLoader moves each
    // file's texts there as the file finishes, so 64 files do not each hold every step's text);
    // `args` is then empty.
    bool argsInTimelineStore = false;
    MessageLog messages;
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

private:
    // The last few texts interned and their ids: nearby events mostly share their args
    // ({"step":N} on every event of a step, threads interleaved), so most skip the hash lookup.
    static constexpr size_t kRecentArgs = 4;
    std::string m_recentArgs[kRecentArgs];
    uint32_t m_recentArgsId[kRecentArgs] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    size_t m_recentNext = 0;
};

} // namespace syncline::load
