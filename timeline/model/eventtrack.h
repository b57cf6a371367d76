// EventTrack — the events of one thread of one worker, as flat arrays (structure of arrays).
//
// Invariants (after TimelineBuilder / the live appender has finished a batch):
//  - sorted by localStart; for equal starts the enclosing (longer) event comes first;
//  - perfect nesting: parent[i] < i, depth[i] == depth[parent[i]] + 1, and a child lies inside
//    its parent; roots have parent -1 and depth 0;
//  - times are the worker's LOCAL monotonic ns as stamped; global times come from the worker's
//    ClockMap (Timeline::toGlobal), never stored here, so raw/corrected is a map swap;
//  - open events (no end recorded) have the EventOpen flag and localEnd = the worker's last
//    local time seen (end of data); instants have EventInstant and localEnd == localStart;
//  - 28 bytes per event: 8 + 8 + 4 + 4 + 2 + 2; args 8 bytes a ref, or 4 an event (compactArgs).
// Threading: no internal locking; the owner (Timeline) serialises writes.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace syncline {

enum EventFlag : uint16_t
{
    EventOpen = 1u << 0,     // begin without end (crash, hang, still running)
    EventOverdue = 1u << 1,  // longer than the config's expected maximum for its kind
    EventInstant = 1u << 2,  // an `I` record
    EventInterval = 1u << 3, // an `X` record (measured elsewhere)
    EventHasArgs = 1u << 4,  // args are in Timeline::args(), see argsId()
    // The tracer's own span over the whole recording (Kineto's "PyTorch Profiler (0)"): drawn
    // on its track, never counted in stats (so not in the legend either).
    EventProfilerSpan = 1u << 5,
};

class EventTrack
{
public:
    int64_t tid = 0;
    int64_t pid = 0; // process id of the thread (Chrome traces may hold several pids per worker)
    std::string threadName;
    // An async lane (Chrome `b`/`e`/`n` events, matched by cat + id [+ scope]): not a thread;
    // `tid` is synthetic (negative) and `category` the events' cat. Spans that overlap without
    // nesting go to different lanes of one (pid, cat), so each lane nests perfectly.
    bool async = false;
    std::string category;
    // Display order within a worker (see displayBefore): 0 unless the trace gives one — Kineto's
    // process_sort_index (a CPU process: its pid; GPU n: 2^24 + n), so CPU threads come before
    // GPU streams as in the profiler's own viewers.
    int64_t order = 0;

    std::vector<int64_t> localStart;
    std::vector<int64_t> localEnd;
    std::vector<uint32_t> nameId;
    std::vector<int32_t> parent;
    std::vector<uint16_t> depth;
    std::vector<uint16_t> flags;
    // (event index, args id into Timeline::args()), sorted by event index; only events with args.
    // The form tracks are built in (parsers, live appends).
    std::vector<std::pair<uint32_t, uint32_t>> argRefs;
    // The compact form of a loaded track whose events mostly have args (compactArgs): per event
    // its args id, or kNoArgs; 4 bytes an event instead of 8 a ref. When it is not empty,
    // argRefs is empty and argDense.size() == count(). Read both through argsId/argCount.
    static constexpr uint32_t kNoArgs = UINT32_MAX;
    std::vector<uint32_t> argDense;
    int maxDepth = 0;

    size_t count() const { return localStart.size(); }
    // The one order of a worker's tracks (loader, trace attachment, live merge): threads before
    // async lanes, then by `order`, pid, tid.
    static bool displayBefore(const EventTrack &a, const EventTrack &b)
    {
        return std::tuple(a.async, a.order, a.pid, a.tid) < std::tuple(b.async, b.order, b.pid, b.tid);
    }
    // The track's label: its thread name with the tid in parentheses, unless the name already
    // shows it ("CPU / thread 1262 (pt_main_thread)", "GPU 0 / stream 7"); "thread <tid>"
    // without a name. Example: "worker (42)" for threadName "worker", tid 42.
    std::string label() const { return labelOf(threadName, tid); }
    static std::string labelOf(const std::string &threadName, int64_t tid);
    // First event whose localEnd >= t / last whose localStart <= t (binary search on starts,
    // using the fact that a root's end bounds its children). -1 when none.
    int firstIndexEndingAfter(int64_t localT) const;
    int lastIndexStartingBefore(int64_t localT) const;
    int64_t argsId(uint32_t event) const; // -1 when the event has no args
    size_t argCount() const;              // events with args
    // Moves argRefs into argDense when that is smaller (more than half the events have args).
    void compactArgs();
    // Args ids become map[id] (the args moved to another store), in either form.
    void remapArgIds(const std::vector<uint32_t> &map);
    void reserve(size_t n);
};

} // namespace syncline
