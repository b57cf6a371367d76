// AsyncLanes — lays out asynchronous spans (Chrome `b`/`e`/`n` events of one (pid, cat)) in as
// few lanes as keep every lane perfectly nested, so overlapping spans never collide on screen.
//
// Greedy over spans in (start, longer first) order: each lane keeps the stack of its spans still
// open; a span goes to the first lane where, after popping the spans that ended at or before its
// start, it fits inside the top (or the stack is empty). Example: A[0,10) B[2,5) C[4,12):
// A → lane 0; B nests in A → lane 0; C starts inside A and B but ends after both → lane 1.
// Instants (start == end) always fit the first lane. O(spans · lanes).
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace syncline::load {

struct AsyncSpan
{
    int64_t start = 0;
    int64_t end = 0; // == start for an instant (`n`)
    uint32_t point = 0; // the caller's reference (index of its begin record)
};

class AsyncLanes
{
public:
    // Sorts `spans` by (start, longer first) and returns each one's lane (same order);
    // *laneCount gets the number of lanes used.
    static std::vector<uint32_t> assign(std::vector<AsyncSpan> &spans, uint32_t *laneCount);
};

} // namespace syncline::load
