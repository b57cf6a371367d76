// CollectiveInstances — the one rule for "the k-th instance of a collective": on each worker,
// the complete (not open, not instant) events of one name in begin order (ties: track order, then
// event index), counted from 0 per generation (Generation: an elastic restart or membership
// change counts again). The clock correction aligns on these instances (ClockCorrector, with
// --align-on and the config's "collective" category) and the viewer shows one instance across
// every rank with its spread (ui/collectivespread.h); both go through here.
// Example: rank 0 has all_reduce at 10, 30, 50 µs (local) and rank 1 at 12, 31, 52 µs: the
// instance of rank 0's second all_reduce is k = 1, rank 1's event at 31 µs.
// A failed operation (args `"failed": true`, docs/log-format.md: a peer crashed during it) keeps
// its k, so the instances after it still pair, and is marked `failed`: its end is not the
// operation's end, so it constrains nothing (alignment, causality) and waits for nothing
// (diagnosis); those consumers skip it.
// Threading: stateless; reads a const Timeline.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace syncline {

struct CollectiveEvent
{
    uint32_t track = 0;
    uint32_t index = 0;
    uint32_t nameId = 0;
    int64_t localBegin = 0;
    int64_t localEnd = 0;
    int64_t sequence = 0; // (generation << 40) | k, k counted per name
    bool failed = false;  // args say `"failed": true` (argsSayFailed)
};

// Whether an args object (JSON text) has the top-level key "failed" with the value true.
// Other keys, nested objects and strings that merely contain the words are not it.
bool argsSayFailed(std::string_view json);

class CollectiveInstances
{
public:
    static constexpr int kGenerationShift = 40; // k < 2^40 per generation

    // The events of worker `w` whose name `isCollective` accepts, in begin order, numbered.
    // `generation` is Generation::number(tl)[w].
    static std::vector<CollectiveEvent> of(const Timeline &tl, size_t w, int64_t generation,
                                           const std::function<bool(uint32_t)> &isCollective);
    // The same with the names as flags (isCollective[nameId] != 0; ids past its end are not):
    // no call per event, for the passes over every event of a big job.
    static std::vector<CollectiveEvent> of(const Timeline &tl, size_t w, int64_t generation,
                                           const std::vector<uint8_t> &isCollective);
};

} // namespace syncline
