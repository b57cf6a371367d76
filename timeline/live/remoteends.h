// RemoteEnds — when a worker whose process cannot be checked (it runs on another machine) has
// ended without a `close` record, judged from the other workers of the job, without options.
//
// A worker that is not local, not closed and not already ended is ended (probably crashed) when:
//   superseded  a later incarnation of the same rank appeared (same run id and role): a higher
//               restart count (torchelastic restarts every worker after a failure), or the same
//               restart count starting after this worker's last record (a membership change
//               re-forms the group without counting a restart) — and this worker has not written
//               for kSupersededQuietS (a stopped group's last flush has landed);
//   orphaned    it is silent (no record and no heartbeat for silentAfterS) and every other
//               worker of its incarnation (same run id, restart count and world size; at least
//               one) has closed its log: the job went on to the end without it.
// A hung worker whose peers still run (or hang with it, waiting) stays silent. Local workers are
// never judged here: their pid says whether they run (LiveJob::pidGone).
// Cost: O(n) expected (hash maps keyed by incarnation), for every state refresh of a big job.
// Threading: pure function of its arguments.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/model/worker.h"

#include <string>
#include <vector>

namespace syncline {

class RemoteEnds
{
public:
    static constexpr double kSupersededQuietS = 1.0;

    struct Input
    {
        const WorkerInfo *info = nullptr;
        WorkerState state = WorkerState::Running; // as judged from the worker alone
        double quietS = 0;                        // seconds since its file last grew
        bool local = false;                       // its pid can be checked on this machine
        int64_t firstGlobalNs = 0; // its first and last record, corrected global time
        int64_t lastGlobalNs = 0;
    };

    // One reason per input: "" for a worker left as it is, else the sentence to show with
    // "ended" (e.g. "probably crashed: restart 1 of rank 3 started").
    static std::vector<std::string> reasons(const std::vector<Input> &workers);
};

} // namespace syncline
