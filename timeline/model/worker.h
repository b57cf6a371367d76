// Worker — one worker process (rank, restart) of a job: identity, its threads' events,
// its clock samples and both clock maps (corrected by the sync engine, and raw).
//
// Invariants: tracks sorted by (pid, tid), async lanes (EventTrack::async) after the threads; every track's events satisfy EventTrack's invariants.
// `raw` maps local time through the header's wall-clock anchor (what viewers without skew
// correction show); `corrected` is the sync engine's map. Both map into the same global ns
// scale so the view can toggle between them in place.
// Threading: owned by Timeline; no locking of its own.
#pragma once

#include "timeline/model/clockmode.h"
#include "timeline/model/countertrack.h"
#include "timeline/model/eventtrack.h"

#include "sync/clockmap.h"
#include "sync/clocksample.h"
#include "sync/syncengine.h"
#include "sync/wallclockcheck.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

enum class SourceKind
{
    SynclineLog,
    ChromeTrace
};

struct WorkerInfo
{
    int rank = 0;
    int localRank = 0;
    int worldSize = 1;
    int groupRank = 0;
    int restart = 0;
    std::string role;
    std::string runId;
    std::string host;
    std::string bootId;
    std::string clockSource;
    int64_t pid = 0;
    std::string sourceFile;
    SourceKind kind = SourceKind::SynclineLog;
    int64_t anchorMonoNs = 0; // header anchor (0,0 when unknown)
    int64_t anchorWallNs = 0;
    int64_t anchorSpreadNs = 0; // the anchor's uncertainty (spread of its paired reads)
    // Profiler traces (Kineto) attached to this worker by rank (TraceAttachment): their files.
    std::vector<std::string> attachedTraces;
    int64_t firstLocalNs = 0; // span of all records seen (local ns)
    int64_t lastLocalNs = 0;
    int64_t lastHeartbeatLocalNs = 0;
    int64_t droppedEvents = 0;  // from the latest hb/close record
    bool closedCleanly = false; // a `close` record was read
    bool hasSkew = false;       // header carried the synthetic `skew` (test facility)
    // Another worker of the timeline has the same rank and restart count (torchelastic re-formed
    // the group after a membership change without counting a restart, or a rerun): set by
    // WorkerAdmission on both; the label then names the world size (and pid when that is equal).
    bool sharesRankRestart = false;
    int64_t skewOffsetNs = 0;
    double skewDriftPpm = 0.0;
    bool labelPid = false; // sharesRankRestart with a worker of the same world size
    // In a comparison of two runs (CompareTimeline): "A" or "B", the run this worker belongs to;
    // the label starts with it ("B · rank 3 · …"). Empty in a normal job.
    std::string run;
};

// A wall-clock read paired with the worker's clock after its header's anchor (log format 1.2:
// `wall_ns`, `wall_spread_ns` on `hb` and `close` records): wall time `wallNs` at local time
// `monoNs`, read within `spreadNs`.
struct WallPair
{
    int64_t monoNs = 0;
    int64_t wallNs = 0;
    int64_t spreadNs = 0;
    bool operator==(const WallPair &) const = default;
};

// The worker's wall clock as a second opinion on its corrected clock (WallClocks,
// sync/wallclockcheck.h): its host's verdict, offset (ns its wall clock reads ahead of where the
// hosts' consensus puts it), band (its sync band at the anchor, ± ns), a reason for people, and
// whether the load placed it by its wall clock (`--clock wall`, accepted host).
struct WallClockStatus
{
    sync::WallVerdict verdict = sync::WallVerdict::NoAnchor;
    int64_t offsetNs = 0;
    int64_t bandNs = 0;
    std::string reason = "not checked";
    bool used = false;
};

class Worker
{
public:
    WorkerInfo info;
    std::vector<EventTrack> tracks;
    // Counter series (log `C` records, Chrome `C` events), sorted by (pid, name, series); local
    // times like the tracks', mapped by the same ClockMap.
    std::vector<CounterTrack> counters;
    std::vector<sync::ClockSample> samples;
    std::string refId; // reference clock id of the samples
    std::vector<WallPair> wallPairs; // in log order (increasing monoNs)
    sync::ClockMap corrected;
    sync::ClockMap raw;
    // Summary from the engine (offset, drift, bound, method, flags). Its `map` stays empty: the
    // corrected map is `corrected` (one copy).
    sync::WorkerClockResult clock;
    WallClockStatus wall;

    // The one rule for which map a mode uses.
    const sync::ClockMap &map(ClockMode mode) const
    {
        return mode == ClockMode::Raw ? raw : corrected;
    }
    size_t eventCount() const;
    // "rank 3 · host-b · restart 0" ("B · rank 3 · …" in a comparison, see WorkerInfo::run); with sharesRankRestart "rank 0 · host-a · restart 0 · world 2"
    // (and " · pid 4242" with labelPid: the other incarnation has the same world size too).
    // A Chrome trace's worker (SourceKind::ChromeTrace) names no restart: "rank 3 · host-b".
    std::string label() const;
};

} // namespace syncline
