// EventBounds — how well a worker's events are placed: the guaranteed clock bound at each event.
//
// A worker's clock summary (WorkerClockResult::boundNs) is the largest bound over its span, which
// the extrapolated or sparsely sampled edges dominate; the typical event is placed far better.
// medianNs() is the median over the worker's events (every event of every track, instants and
// open ones included) of the bound of the corrected map's segment holding the event's start
// (ClockSegment::boundNs, the bound the viewer's tooltip shows), nearest-rank: the
// ceil(n / 2)-th smallest. 0 with no events or a map without segments (no correction).
// Cost: per track, one binary search per segment (tracks are sorted by start), then a sort of
// the distinct (bound, count) pairs: never a pass over the events.
// Threading: reads the worker only; any thread, while nobody mutates it.
#pragma once

#include "timeline/model/worker.h"

#include <cstdint>

namespace syncline {

class EventBounds
{
public:
    static int64_t medianNs(const Worker &w);
};

} // namespace syncline
