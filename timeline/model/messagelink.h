// MessageLink — one arrow of the timeline: from a point on one track to a point on another
// (or the same) track. Made by the loader from a syncline `msg` send/recv pair (the same pairing
// rule the clock correction uses: ClockCorrector::pairMessages) or from two consecutive points
// of one Chrome flow (`s` → `t` → … → `f`, e.g. a CPU launch to its GPU kernel).
//
// Invariants: times are the workers' LOCAL ns (global through each worker's ClockMap, so an arrow
// follows raw/corrected like every event); tracks index Worker::tracks. The order lessByPair —
// (fromWorker, fromTrack, toWorker, toTrack, kind, fromLocal, …) — puts the links of one track
// pair and kind together and, the maps being monotone, in global send order too; the viewer
// binary-searches them per group (ui/linkindex.h). 32 bytes a link: the form links are made and
// read in; Timeline::links holds them in 16 (LinkTable).
#pragma once

#include <cstdint>
#include <tuple>

namespace syncline {

struct MessageLink
{
    enum Kind : uint8_t
    {
        Message, // syncline msg records (send → recv)
        Flow     // Chrome flow events (s/t → t/f)
    };
    int64_t fromLocal = 0;
    int64_t toLocal = 0;
    uint32_t fromWorker = 0;
    uint32_t toWorker = 0;
    uint32_t fromTrack = 0;
    uint32_t toTrack : 31 = 0;
    uint32_t kind : 1 = Message;

    static bool lessByPair(const MessageLink &a, const MessageLink &b)
    {
        // (kind before the times: one group per pair and kind; to too: a total order, so the
        // links' order never depends on hashing)
        return std::make_tuple(a.fromWorker, a.fromTrack, a.toWorker, uint32_t(a.toTrack),
                               int(a.kind), a.fromLocal, a.toLocal) <
               std::make_tuple(b.fromWorker, b.fromTrack, b.toWorker, uint32_t(b.toTrack),
                               int(b.kind), b.fromLocal, b.toLocal);
    }
    // The same track pair and kind (one LinkTable group).
    bool sameGroup(const MessageLink &o) const { return samePair(o) && kind == o.kind; }
    bool operator==(const MessageLink &o) const
    {
        return sameGroup(o) && fromLocal == o.fromLocal && toLocal == o.toLocal;
    }
    bool samePair(const MessageLink &o) const
    {
        return fromWorker == o.fromWorker && fromTrack == o.fromTrack && toWorker == o.toWorker &&
               toTrack == o.toTrack;
    }
};
static_assert(sizeof(MessageLink) == 32);

} // namespace syncline
