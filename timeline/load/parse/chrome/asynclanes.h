// AsyncLanes — lays out asynchronous span trees (the roots of Chrome `b`/`e`/`n` events of one
// (pid, cat), one tree per cat + id) in lanes where no two overlap, so async work that runs at the
// same time never collides on screen (a tree's own nested spans go with its root).
//
// Greedy interval partitioning over spans in (start, longer first) order: each lane keeps the
// end of its last span; a span goes to the first (lowest) lane that has ended at or before its
// start. Example: A[0,10) B[2,5) C[12,14): A → lane 0, B overlaps A → lane 1, C → lane 0. An
// instant (start == end) needs a lane free at its time too (one that ended before it).
// The lanes are exactly those of that first fit (a test compares with the plain scan), found
// through heaps of free and busy lanes: O(spans · log spans), whatever the overlap.
// At most `maxLanes` lanes: a span that finds none of them free gets kNoLane (the caller drops
// it and says so); the others keep the lanes first fit over that many lanes gives them.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace syncline::load {

struct AsyncSpan
{
    int64_t start = 0;
    int64_t end = 0;    // == start for an instant (`n`)
    uint32_t point = 0; // the caller's reference (index of its begin record)
};

class AsyncLanes
{
public:
    static constexpr uint32_t kNoLane = UINT32_MAX;
    // Sorts `spans` by (start, longer first) and returns each one's lane (same order), or
    // kNoLane past `maxLanes`; *laneCount gets the number of lanes used.
    static std::vector<uint32_t> assign(std::vector<AsyncSpan> &spans, uint32_t *laneCount,
                                        uint32_t maxLanes = kNoLane);
};

} // namespace syncline::load
