// WorkerAdmission — the one way a worker joins a Timeline, shared by the batch merge
// (TimelineBuilder::merge) and the live job (LiveJob, as workers' files appear):
//   rank        a file that carries none takes the digits of its file name
//               (LogHeader::rankFromFileName), else the next free rank (one past the highest
//               present), with an Info problem "no rank in the file; rank N ...";
//   order       workers stay sorted by (rank, restart, source file): the new one goes before the
//               first worker that sorts after it;
//   duplicates  a (rank, restart) already present: both are kept (two incarnations of one rank
//               are distinct workers) and flagged sharesRankRestart (labelPid too when their
//               world sizes are equal), so their labels tell them apart. Two syncline logs with another
//               world size are an elastic membership change (torchelastic re-forms the group without
//               counting a restart): an Info problem; with the same world size a Warning
//               ("duplicate rank R restart N"); either names the other file;
//   raw clock   the header's wall-clock anchor: global = wall_ns + (local − mono_ns); identity
//               without an anchor (Chrome traces: their µs are already the tracer's clock).
// admit() moves the worker in and returns the index it took; workers at and after that index
// moved up by one, so the caller shifts whatever it keeps per worker index.
// Threading: whoever owns the Timeline (loader thread, or the live job's owner).
#pragma once

#include "timeline/model/timeline.h"

#include <vector>

namespace syncline::load {

class WorkerAdmission
{
public:
    static size_t admit(Timeline &timeline, Worker worker, bool rankKnown,
                        std::vector<LoadProblem> &problems);
    static sync::ClockMap rawClock(const WorkerInfo &info);
    // The clock-anchor rule, the one place for it: a worker has an anchor when its header gave
    // one (wall or monotonic time not 0), and then wall = local + wallMinusLocalNs(info). Used
    // by rawClock and by TraceAttachment (a profiler trace's wall times onto the log's clock).
    static bool hasClockAnchor(const WorkerInfo &info)
    {
        return info.anchorWallNs != 0 || info.anchorMonoNs != 0;
    }
    static int64_t wallMinusLocalNs(const WorkerInfo &info)
    {
        return info.anchorWallNs - info.anchorMonoNs;
    }
};

} // namespace syncline::load
