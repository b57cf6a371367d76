#include "linkindex.h"

#include <algorithm>
#include <limits>

namespace syncline::ui {

LinkIndex::LinkIndex(const Timeline *timeline) : m_timeline(timeline)
{
    for (const LinkTable::Group &g : timeline->links.groups()) {
        Pair p;
        p.begin = g.begin;
        p.end = g.end;
        p.fromWorker = g.fromWorker;
        p.fromTrack = g.fromTrack;
        p.toWorker = g.toWorker;
        p.toTrack = g.toTrack;
        for (ClockMode mode : {ClockMode::Corrected, ClockMode::Raw}) {
            int64_t lo = std::numeric_limits<int64_t>::max();
            int64_t hi = std::numeric_limits<int64_t>::min();
            for (size_t k = p.begin; k < p.end; ++k) {
                const int64_t d = toNs(p, k, mode) - fromNs(p, k, mode);
                lo = std::min(lo, d);
                hi = std::max(hi, d);
            }
            p.minDelta[slot(mode)] = lo;
            p.maxDelta[slot(mode)] = hi;
        }
        m_pairs.push_back(p);
    }
}

int64_t LinkIndex::fromNs(size_t i, ClockMode mode) const
{
    return fromNs(m_pairs[m_timeline->links.groupOf(i)], i, mode);
}

int64_t LinkIndex::toNs(size_t i, ClockMode mode) const
{
    return toNs(m_pairs[m_timeline->links.groupOf(i)], i, mode);
}

int64_t LinkIndex::fromNs(const Pair &p, size_t i, ClockMode mode) const
{
    return m_timeline->toGlobal(p.fromWorker, ends(i).fromLocal, mode);
}

int64_t LinkIndex::toNs(const Pair &p, size_t i, ClockMode mode) const
{
    return m_timeline->toGlobal(p.toWorker, ends(i).toLocal, mode);
}

size_t LinkIndex::seek(const Pair &p, size_t from, int64_t globalT, ClockMode mode) const
{
    const std::vector<LinkTable::Ends> &links = m_timeline->links.ends();
    const int64_t localT = m_timeline->map(p.fromWorker, mode).toLocal(globalT);
    from = std::clamp(from, p.begin, p.end);
    // The send's local time is >= localT exactly when its global time is >= globalT (monotone
    // map), up to the map's rounding: check the neighbour.
    size_t k = size_t(
        std::lower_bound(links.begin() + ptrdiff_t(from), links.begin() + ptrdiff_t(p.end), localT,
                         [](const LinkTable::Ends &l, int64_t t) { return l.fromLocal < t; }) -
        links.begin());
    while (k > from && fromNs(p, k - 1, mode) >= globalT)
        --k;
    while (k < p.end && fromNs(p, k, mode) < globalT)
        ++k;
    return k;
}

std::pair<size_t, size_t> LinkIndex::candidates(const Pair &p, int64_t t0, int64_t t1,
                                                ClockMode mode) const
{
    const int64_t maxD = std::max<int64_t>(0, p.maxDelta[slot(mode)]);
    const int64_t minD = std::min<int64_t>(0, p.minDelta[slot(mode)]);
    const size_t first = seek(p, p.begin, t0 - maxD, mode);
    const size_t last = seek(p, first, t1 - minD + 1, mode);
    return {first, last};
}

bool LinkIndex::meets(size_t i, int64_t t0, int64_t t1, ClockMode mode) const
{
    return meets(m_pairs[m_timeline->links.groupOf(i)], i, t0, t1, mode);
}

bool LinkIndex::meets(const Pair &p, size_t i, int64_t t0, int64_t t1, ClockMode mode) const
{
    const int64_t a = fromNs(p, i, mode), b = toNs(p, i, mode);
    return std::min(a, b) <= t1 && std::max(a, b) >= t0;
}

size_t LinkIndex::endpointsIn(uint32_t worker, uint32_t track, int64_t localA, int64_t localB,
                              ClockMode mode, size_t max, std::vector<size_t> *out,
                              std::vector<size_t> *in) const
{
    size_t total = 0;
    const std::vector<LinkTable::Ends> &links = m_timeline->links.ends();
    const int64_t a = m_timeline->toGlobal(worker, localA, mode);
    const int64_t b = m_timeline->toGlobal(worker, localB, mode);
    for (const Pair &p : m_pairs) {
        if (p.fromWorker == worker && p.fromTrack == track) {
            for (size_t k = seek(p, p.begin, a, mode); k < p.end && links[k].fromLocal <= localB;
                 ++k) {
                if (links[k].fromLocal < localA)
                    continue;
                if (++total > max)
                    return total; // scanned enough (the caller stops at max)
                if (out)
                    out->push_back(k);
            }
        }
        if (p.toWorker == worker && p.toTrack == track) {
            const auto [first, last] =
                std::pair(seek(p, p.begin, a - p.maxDelta[slot(mode)], mode), p.end);
            const int64_t stop = b - p.minDelta[slot(mode)];
            for (size_t k = first; k < last && fromNs(p, k, mode) <= stop; ++k) {
                if (links[k].toLocal < localA || links[k].toLocal > localB)
                    continue;
                if (++total > max)
                    return total;
                if (in)
                    in->push_back(k);
            }
        }
    }
    return total;
}

} // namespace syncline::ui
