// CollectiveSpread — one collective instance across every rank: the selected event's instance
// (CollectiveInstances: by process group and sequence number, else the k-th of its name — the
// rule the clock correction aligns on) found on every worker
// of its generation, with the spread of its begins and ends — the straggler story in one click:
// begin spread = latest begin − earliest begin, and the rank that began last is the one every
// other rank waited for; end spread = latest end − earliest end (near 0 for a blocking
// collective on well-corrected clocks).
// An event is a collective instance when its name is a collective for the loader
// (NameKind::collective: category "collective" or --align-on) or when it carries a `seq` arg
// (syncline.torch's record_collectives and DDP hook): its instance as above.
// Example: all_reduce #3 begins at 10.0, 10.2, 14.0, 10.1 ms on ranks 0–3 and ends at 14.1 ms on
// all → begin spread 4.0 ms (rank 2 began last: everyone waited for rank 2), end spread ~0.
// Threading: pure; GUI thread (reads the scene).
#pragma once

#include "timelinescene.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace syncline::ui {

struct CollectiveSpread
{
    struct Member
    {
        int worker = 0;
        int rank = 0;
        EventRef ref;
        int64_t beginNs = 0; // global, the scene's clock mode
        int64_t endNs = 0;
    };
    uint32_t nameId = 0;
    int64_t instance = 0;        // k (from 0, within the generation), or the group's seq
    std::vector<Member> members; // by worker index; the selected event's own worker included
    int lastBegin = -1;          // index into members: the one everybody waited for
    int firstBegin = -1, firstEnd = -1, lastEnd = -1;
    int64_t beginSpreadNs() const
    {
        return members[size_t(lastBegin)].beginNs - members[size_t(firstBegin)].beginNs;
    }
    int64_t endSpreadNs() const
    {
        return members[size_t(lastEnd)].endNs - members[size_t(firstEnd)].endNs;
    }
    std::vector<EventRef> refs() const;

    // nullopt when `ref` is no collective instance (see the header).
    static std::optional<CollectiveSpread> of(const TimelineScene &scene, const EventRef &ref);
    static bool isInstance(const TimelineScene &scene, const EventRef &ref);
};

} // namespace syncline::ui
