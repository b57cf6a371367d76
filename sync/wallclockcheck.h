// WallClockCheck — the hosts' wall clocks as a second opinion on the corrected clocks.
//
// Every worker's log header pairs its monotonic clock with its wall clock (the anchor). At the
// anchor's instant the corrected clock says where that local instant lies on the job's timeline
// within its guaranteed bound; the difference d = wall − corrected is then the wall clock's
// offset from the corrected timeline, and if every host's wall clock were exact, every d would
// be one constant K (the wall-clock epoch of the timeline) within its bound. So each reading is
// the interval [d − band, d + band] (band = the corrected map's bound at the anchor + the
// anchor's own read spread), and:
//   host      the intersection of its readings' intervals (the processes of one clock domain);
//             empty: its processes' anchors disagree beyond their bands (its wall clock stepped
//             between their starts): Outside;
//   consensus K = the middle of the region that the most hosts' intervals share (Marzullo's
//             intersection, as NTP selects its truechimers), required to be shared by more than
//             half of the hosts with a band and to be the only such region; else no consensus;
//   verdict   Consistent when K lies inside the host's interval (|offset| ≤ band), Outside when
//             not, NoBand when the host has no corrected clock to compare with (the caller says
//             why in `noBandWhy`), NoAnchor when its header had no wall-clock anchor,
//             NoConsensus when the hosts disagree and no majority agrees (every host then);
//   offset    the host's d − K: how far its wall clock reads ahead (+) of where the others'
//             consensus puts it; band its interval's half-width.
// `agree`: at least two hosts were checked and every host is Consistent — the job's wall clocks
// agree within every sync band, so `--clock wall` (each host placed by its wall clock: the
// corrected clock plus the host's offset, rid of the sync path's asymmetry) is worth trying.
// All values are ns; the caller chooses the scale of d (any constant shift of every d moves K by
// the same and changes no verdict). Pure: no I/O, no allocation beyond the result; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace syncline::sync {

enum class WallVerdict
{
    Consistent,
    Outside,
    NoBand,
    NoAnchor,
    NoConsensus
};

// "consistent", "outside", "no_band", "no_anchor", "no_consensus" (stats --json `wall_verdict`).
const char *wallVerdictName(WallVerdict verdict);

// One process's anchor read against its corrected clock.
struct WallReading
{
    int64_t offsetNs = 0; // wall time of the anchor − corrected time of its monotonic instant
    int64_t boundNs = 0;  // the corrected map's guaranteed bound there (0 = none: no band)
    int64_t spreadNs = 0; // the anchor's own uncertainty (its paired reads' spread)
};

// One host (clock domain): its processes' readings. No readings = no anchor.
struct WallHost
{
    std::vector<WallReading> readings;
    // Why there is no band when no reading has one (e.g. "not corrected: no sync samples").
    std::string noBandWhy;
};

struct WallHostVerdict
{
    WallVerdict verdict = WallVerdict::NoAnchor;
    int64_t offsetNs = 0; // d − K (0 without a band or consensus)
    int64_t bandNs = 0;   // half-width of the host's interval (0 = none)
    int64_t wallNs = 0;   // the host's d: the middle of its interval (with a band)
    std::string reason;   // one line for people
};

struct WallCheckResult
{
    std::vector<WallHostVerdict> hosts; // in the input's order
    bool hasConsensus = false;
    int64_t consensusNs = 0; // K, on the caller's scale of d
    bool agree = false;      // ≥ 2 hosts checked, every one Consistent
};

WallCheckResult checkWallClocks(const std::vector<WallHost> &hosts);

} // namespace syncline::sync
