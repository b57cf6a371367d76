// WallClockSummary — the wall-clock check (Worker::wall, computed by the loader) per host, and
// the one sentence that says what it means for the user: that every host's wall clock agrees
// within its sync band (and `--clock wall` is worth trying), which hosts it would be refused for,
// or that the job is on its wall clocks. Used by `syncline stats` (text) and the viewer's Clocks
// panel, which both show it as is.
// Threading: reads the timeline only; any thread, while nobody mutates it.
#pragma once

#include "timeline/model/timeline.h"

#include <string>
#include <vector>

namespace syncline {

struct WallClockHost
{
    std::string host;       // the workers' host name
    std::vector<int> ranks; // its workers' ranks, ascending, distinct
    WallClockStatus status; // its first worker's (every worker of a host has its verdict)
};

struct WallClockSummary
{
    std::vector<WallClockHost> hosts; // in the order of their first worker
    // One line ("" when there is nothing to say: no host with a sync band to compare).
    std::string headline;

    static WallClockSummary of(const Timeline &timeline);
    // "+3.000 ms", "-12.3 µs", "850 ns".
    static std::string signedDuration(int64_t ns);
};

} // namespace syncline
