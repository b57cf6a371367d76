// TimelineBuilder — turns parsed files into a Timeline (before clock correction).
//
// prepareFile() runs on the parser's thread, per file: per track, sort once by (localStart,
// longer first), one nesting pass (parent, depth), overdue flags, tracks sorted by (pid, tid),
// vectors shrunk to size. merge() then runs once: profiler traces move into the syncline worker
// of their rank (TraceAttachment), then each usable file's worker joins through WorkerAdmission
// (rank fill-in, (rank, restart, file) order, duplicate warning, raw clock — the same rule
// LiveJob uses), names interned into one table (ids remapped), args appended, flows
// attached to their worker.
//
// Nesting (half-open intervals [start, end)): walking events in sorted order with a stack of
// open ancestors, an event is a child of the stack top when it starts before the top ends and
// ends no later; otherwise the top is popped. Example: A[0,10) B[2,5) C[5,9) D[9,12):
// B child of A (depth 1); C pops B, child of A; D starts inside A but ends after it: a partial
// overlap — A is popped, D becomes a root beside A and the overlap is reported (misnesting).
// Zero-length events (instants) are never parents.
// Threading: prepareFile is reentrant (one file per thread); merge on one thread.
#pragma once

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/model/timeline.h"

#include <memory>
#include <vector>

namespace syncline::load {

struct BuiltTimeline
{
    std::shared_ptr<Timeline> timeline;
    std::vector<MessageLog> messages; // per worker index
};

class TimelineBuilder
{
public:
    static void prepareFile(ParsedFile &file, EventKindLookup &kinds);
    // `args`: the store the files' args were already moved into (argsInTimelineStore), if any;
    // it becomes the timeline's.
    static BuiltTimeline merge(std::vector<ParsedFile> files, ArgStore args = {});
    // Moves the file's args texts into `store` and re-points its refs (argsInTimelineStore).
    static void moveArgsTo(ParsedFile &file, ArgStore &store);

    // Sorts the track (permuting argRefs too); returns the number of partial overlaps.
    static int64_t sortAndNest(EventTrack &track);
    static void sortTrack(EventTrack &track);
    static int64_t nest(EventTrack &track);
    // Live append: re-nests events [from, count()) when [0, from) is already nested and sorted
    // before them. The nesting stack at `from` is the ancestor chain of event from − 1 (after
    // event i is processed the stack holds exactly i, parent[i], parent[parent[i]], ...), so
    // nest(t) == nestFrom(t, 0) and the cost is O(count() − from + depth).
    static int64_t nestFrom(EventTrack &track, size_t from);
};

} // namespace syncline::load
