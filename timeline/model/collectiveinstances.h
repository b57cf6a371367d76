// CollectiveInstances — the one rule for which collective instance an event is: on each worker,
// the complete (not open, not instant) events of the collective names in begin order (ties:
// track order, then event index), each given an instance key (key, sequence) that is equal on
// every rank for the same operation:
//  - by process group and sequence number, when the event's args carry both: the group from
//    "Process Group Name" (PyTorch profiler / Kineto NCCL metadata) or "group" (syncline.torch's
//    record_collectives), the number from "seq_num" or "Seq" (Kineto, PyTorch's
//    record_param_comms) or "seq" (syncline.torch; not with "peer": a point-to-point's seq counts
//    per pair of ranks). Every rank of a process group numbers its
//    collectives alike, so this pairs ranks that recorded different stretches (sub-sampled
//    traces, a profiler window that starts at another step). key = kGroupKey | a hash of the
//    group's text; sequence = (generation << 40) | the number. A second event of one worker with
//    the same key (the CPU op and its kernel, both counted) is not another instance: the first
//    in begin order stands for it, the others are left out.
//  - else by occurrence: the k-th event of its name, counted from 0; key = the name id,
//    sequence = (generation << 40) | k.
// The generation (Generation: an elastic restart or membership change counts again) is in the
// sequence's high bits, so instances pair only within one. The clock correction aligns on these
// instances (ClockCorrector: --align-on, the config's "collective" category, or the names
// CollectiveNames recognises), the diagnosis counts waits on them and the viewer shows one
// instance across every rank with its spread (ui/collectivespread.h); all go through here.
// Example: rank 0 has all_reduce at 10, 30, 50 µs (local) and rank 1 at 12, 31, 52 µs, no
// metadata: rank 0's second all_reduce is k = 1, rank 1's event at 31 µs. With
// {"Process Group Name": "0", "seq_num": 7} on rank 0's event at 30 and rank 1's at 52, those
// two are one instance, wherever they fall in each rank's list.
// A failed operation (args `"failed": true`, docs/log-format.md: a peer crashed during it) keeps
// its place (its k, or its group sequence), so the instances after it still pair, and is marked
// `failed`: its end is not the operation's end, so it constrains nothing (alignment, causality)
// and waits for nothing (diagnosis); those consumers skip it.
// Threading: stateless; reads a const Timeline.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

// CollectiveEvent::key's bit for a key by process group (name ids stay below it).
inline constexpr uint32_t kCollectiveGroupKey = 0x80000000u;

struct CollectiveEvent
{
    uint32_t track = 0;
    uint32_t index = 0;
    uint32_t nameId = 0;
    int64_t localBegin = 0;
    int64_t localEnd = 0;
    // The instance key (see the header): equal (key, sequence) on two workers = one instance.
    int64_t sequence = 0; // (generation << 40) | k, or | the group's sequence number
    uint32_t key = 0;     // the name id, or kGroupKey | hash of the process group
    bool failed = false;  // args say `"failed": true` (argsSayFailed)
    bool byGroup() const { return (key & kCollectiveGroupKey) != 0; }
};

// Whether an args object (JSON text) has the top-level key "failed" with the value true.
// Other keys, nested objects and strings that merely contain the words are not it.
bool argsSayFailed(std::string_view json);

class CollectiveInstances
{
public:
    static constexpr int kGenerationShift = 40; // k, seq < 2^40 per generation
    static constexpr uint32_t kGroupKey = kCollectiveGroupKey;
    static constexpr int64_t kIndexMask = (int64_t(1) << kGenerationShift) - 1;

    // The events of worker `w` whose name `isCollective` accepts, in begin order, keyed.
    // `generation` is Generation::number(tl)[w].
    static std::vector<CollectiveEvent> of(const Timeline &tl, size_t w, int64_t generation,
                                           const std::function<bool(uint32_t)> &isCollective);
    // The same with the names as flags (isCollective[nameId] != 0; ids past its end are not):
    // no call per event, for the passes over every event of a big job.
    static std::vector<CollectiveEvent> of(const Timeline &tl, size_t w, int64_t generation,
                                           const std::vector<uint8_t> &isCollective);

    // The process group and sequence number an args object carries (see the header); false
    // when it lacks either, the number is not an integer in [0, 2^40), or the text is no JSON
    // object. Reads only the object's own members; linear in the text, never throws.
    static bool groupAndSequence(std::string_view args, std::string &group, int64_t &sequence);
};

} // namespace syncline
