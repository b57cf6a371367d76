// LinkIndex — the Timeline's links (MessageLink: msg pairs, flow steps) grouped by track pair,
// for drawing them in time ∝ pixels and for finding the links of one event.
//
// Invariants: Timeline::links (LinkTable) is grouped by (from track, to track, kind) and sorted
// by send time within a group, so each Pair (one group) is a contiguous range sorted by its send
// time in every clock mode (the maps are monotone). Per pair and mode, the smallest and largest (to − from) in global ns bound where a link can lie relative
// to its send: a link meets [t0, t1] only if its send lies in [t0 − maxDelta, t1 − minDelta], so
// candidates are one binary search away. Built once per scene (O(links)); 56 bytes a pair.
// Threading: read-only after construction; the Timeline must outlive it.
#pragma once

#include "timeline/model/timeline.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace syncline::ui {

class LinkIndex
{
public:
    struct Pair
    {
        size_t begin = 0, end = 0; // range in Timeline::links
        uint32_t fromWorker = 0, fromTrack = 0, toWorker = 0, toTrack = 0;
        int64_t minDelta[2] = {0, 0}; // per mode (Corrected, Raw): min of to − from, global ns
        int64_t maxDelta[2] = {0, 0};
    };
    explicit LinkIndex(const Timeline *timeline);

    const std::vector<Pair> &pairs() const { return m_pairs; }
    size_t size() const { return m_timeline->links.size(); }
    MessageLink link(size_t i) const { return m_timeline->links.at(i); } // O(log groups)
    const LinkTable::Ends &ends(size_t i) const { return m_timeline->links.ends(i); }
    int64_t fromNs(size_t i, ClockMode mode) const;
    int64_t toNs(size_t i, ClockMode mode) const;
    // First link of pair p at or after `from` whose send is at or after globalT (p.end if none).
    size_t seek(const Pair &p, size_t from, int64_t globalT, ClockMode mode) const;
    // The candidates of pair p for [t0, t1]: [first, last) by send time (see the header).
    std::pair<size_t, size_t> candidates(const Pair &p, int64_t t0, int64_t t1,
                                         ClockMode mode) const;
    // Whether link i meets [t0, t1] (its span from send to receive, either order).
    bool meets(size_t i, int64_t t0, int64_t t1, ClockMode mode) const;
    // Links leaving (`out`) and arriving at (`in`) track (worker, track) at a local time in
    // [localA, localB], in time order per pair; the scan stops after `max` endpoints of both
    // kinds together. Returns how many it found.
    size_t endpointsIn(uint32_t worker, uint32_t track, int64_t localA, int64_t localB,
                       ClockMode mode, size_t max, std::vector<size_t> *out,
                       std::vector<size_t> *in) const;

    // The same for link i of pair p, without the search for its group.
    int64_t fromNs(const Pair &p, size_t i, ClockMode mode) const;
    int64_t toNs(const Pair &p, size_t i, ClockMode mode) const;
    bool meets(const Pair &p, size_t i, int64_t t0, int64_t t1, ClockMode mode) const;

private:
    static int slot(ClockMode mode) { return mode == ClockMode::Raw ? 1 : 0; }
    const Timeline *m_timeline;
    std::vector<Pair> m_pairs;
};

} // namespace syncline::ui
