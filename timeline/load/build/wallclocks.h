// WallClocks — gathers each worker's wall-clock anchor against its corrected clock, groups the
// workers by clock domain (the engine's, WorkerClockResult::domain) and asks the pure check
// (sync/wallclockcheck.h) for a verdict per host; then, for `--clock wall`, places the hosts.
//
// check():  per worker with a clock anchor (WorkerAdmission::hasClockAnchor, the one rule), a
//           reading per wall-clock pair (the header's anchor, then the pairs on its `hb` and
//           `close` records, log format 1.2): d = wall − corrected(mono), the corrected map's
//           guaranteed bound there and the pair's spread; its host's verdict goes into
//           Worker::wall (offset, band, reason) and Timeline::wallClocksAgree. Workers the engine
//           did not correct have no band (their corrected map is their raw wall-clock map).
// useWall(): --clock wall. Every worker of a Consistent host follows its wall clock: straight
//           from pair to pair (pairs at least 100 ms apart), the corrected map's rates before
//           the first and after the last; a worker with one pair (the anchor of a log of format
//           < 1.2): corrected map + its host's d (keeping the engine's rates, so only the sync
//           path's constant asymmetry goes). Every other corrected worker: + the consensus K,
//           so it stays on the corrected clock relative to the accepted hosts; each refused
//           host gets a clock note
//           ("--clock wall refused for host …"). Without a consensus nothing moves. Workers
//           without a band keep their (raw) maps. Timeline::referenceShiftNs grows by K.
// Must run after the corrected maps are final (ClockCorrector::apply calls both).
// Threading: the loader's thread, on a Timeline not yet shared.
#pragma once

#include "timeline/model/timeline.h"

#include "sync/wallclockcheck.h"

#include <vector>

namespace syncline::load {

class WallClocks
{
public:
    struct Check
    {
        sync::WallCheckResult result;
        std::vector<std::vector<size_t>> hostWorkers; // per host (result.hosts' order): workers
    };
    // `correct`: false when the correction was turned off (no worker then has a band).
    static Check check(Timeline &timeline, bool correct);
    static void useWall(Timeline &timeline, const Check &check);
    // "host node-c (ranks 2-3)": how a note names one host's workers.
    static std::string hostLabel(const Timeline &timeline, const std::vector<size_t> &workers);
};

} // namespace syncline::load
