#include "timeline/live/livemerge.h"

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/build/timelinebuilder.h"

#include <algorithm>
#include <numeric>

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

// Track order: by start, the enclosing (longer) event first for equal starts.
bool before(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    return s1 < s2 || (s1 == s2 && e1 > e2);
}

template <typename T>
void permuteSuffix(std::vector<T> &v, size_t k, const std::vector<uint32_t> &order)
{
    std::vector<T> tmp(order.size());
    for (size_t i = 0; i < order.size(); ++i)
        tmp[i] = v[order[i]];
    std::copy(tmp.begin(), tmp.end(), v.begin() + ptrdiff_t(k));
}

// First existing event that sorts after (start, end) (an upper bound); count() when none,
// which is the common case of events arriving in order.
size_t insertionPoint(const EventTrack &t, int64_t start, int64_t end)
{
    const size_t n = t.count();
    if (n == 0 || !before(start, end, t.localStart[n - 1], t.localEnd[n - 1]))
        return n;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (before(start, end, t.localStart[mid], t.localEnd[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void markOverdue(EventTrack &t, uint32_t i, EventKindLookup &kinds, const Timeline &tl)
{
    const int64_t max = kinds.expectedMaxNs(tl.names, t.nameId[i]);
    if (max >= 0 && t.localEnd[i] - t.localStart[i] > max)
        t.flags[i] |= EventOverdue;
}

} // namespace

size_t LiveMerge::openEvents() const
{
    size_t n = 0;
    for (const TrackState &t : m_tracks)
        n += t.open.size();
    return n;
}

void LiveMerge::syncNames(Timeline &tl)
{
    const StringTable &names = m_parser.partial().names;
    for (size_t i = m_nameMap.size(); i < names.size(); ++i)
        m_nameMap.push_back(tl.names.intern(names.name(uint32_t(i))));
}

void LiveMerge::syncTracks(Worker &w, LiveMergeStats &stats)
{
    const auto &srcTracks = m_parser.partial().worker.tracks;
    for (size_t p = m_trackMap.size(); p < srcTracks.size(); ++p) {
        EventTrack t;
        t.tid = srcTracks[p].tid;
        t.pid = srcTracks[p].pid;
        t.async = srcTracks[p].async;
        t.order = srcTracks[p].order;
        const auto pos =
            std::lower_bound(w.tracks.begin(), w.tracks.end(), t, EventTrack::displayBefore);
        const auto at = uint32_t(pos - w.tracks.begin());
        w.tracks.insert(pos, std::move(t));
        for (uint32_t &m : m_trackMap)
            if (m >= at)
                ++m;
        m_trackMap.push_back(at);
        m_tracks.emplace_back();
        stats.newTracks = true;
    }
}

// `srcRef` is a position in the parser's argRefs of the track: the parser re-points a ref when
// an E merges more args in (texts are interned, never edited), so the position, not the id, is
// what stays valid while the event is open.
uint32_t LiveMerge::copyArgs(Timeline &tl, size_t p, int64_t srcRef)
{
    const ParsedFile &pf = m_parser.partial();
    return tl.args.intern(pf.args.text(pf.worker.tracks[p].argRefs[size_t(srcRef)].second));
}

// Args that arrived with the `E` of an event merged while it was open (it had none at `B`).
void LiveMerge::noteLateArgs(size_t p)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    TrackState &st = m_tracks[p];
    for (size_t r = st.argRefsSeen; r < src.argRefs.size(); ++r) {
        const uint32_t event = src.argRefs[r].first;
        if (event >= st.committed)
            continue; // a new event: appendNew() copies it
        for (OpenEvent &o : st.open)
            if (o.src == event)
                o.srcArgs = int64_t(r);
    }
}

void LiveMerge::closeOrGrow(size_t p, EventTrack &dst, Timeline &tl, EventKindLookup &kinds,
                           int64_t openEndLocal, LiveMergeStats &stats)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    auto &open = m_tracks[p].open;
    size_t kept = 0;
    for (OpenEvent &o : open) {
        const bool closed = !(src.flags[o.src] & EventOpen);
        dst.flags[o.dst] &= uint16_t(~EventOverdue);
        if (closed) {
            dst.localEnd[o.dst] = src.localEnd[o.src];
            dst.flags[o.dst] &= uint16_t(~EventOpen);
            ++stats.closedEvents;
        } else {
            dst.localEnd[o.dst] = std::max(dst.localStart[o.dst], openEndLocal);
        }
        markOverdue(dst, o.dst, kinds, tl);
        if (o.srcArgs >= 0 && o.dstArgs < 0) {
            o.dstArgs = copyArgs(tl, p, o.srcArgs);
            const std::pair<uint32_t, uint32_t> ref(o.dst, uint32_t(o.dstArgs));
            dst.argRefs.insert(std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(), ref), ref);
            dst.flags[o.dst] |= EventHasArgs;
        } else if (closed && o.dstArgs >= 0) {
            // E's args merged in: point the event's ref at the merged text.
            o.dstArgs = copyArgs(tl, p, o.srcArgs);
            auto it = std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(),
                                       std::pair<uint32_t, uint32_t>(o.dst, 0));
            if (it != dst.argRefs.end() && it->first == o.dst)
                it->second = uint32_t(o.dstArgs);
        }
        if (!closed)
            open[kept++] = o;
    }
    open.resize(kept);
}

size_t LiveMerge::appendNew(size_t p, EventTrack &dst, Timeline &tl, EventKindLookup &kinds,
                           int64_t openEndLocal, LiveMergeStats &stats)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    TrackState &st = m_tracks[p];
    const size_t n = src.count(), c = st.committed;
    if (n == c)
        return dst.count();
    std::vector<int64_t> argsOf(n - c, -1);
    for (size_t r = st.argRefsSeen; r < src.argRefs.size(); ++r)
        if (src.argRefs[r].first >= c)
            argsOf[src.argRefs[r].first - c] = int64_t(r); // a position in src.argRefs
    std::vector<NewEvent> batch;
    batch.reserve(n - c);
    for (size_t i = c; i < n; ++i) {
        const int64_t s = src.localStart[i];
        const bool open = src.flags[i] & EventOpen;
        batch.push_back({s, open ? std::max(s, openEndLocal) : src.localEnd[i], uint32_t(i)});
    }
    const auto cmp = [](const NewEvent &a, const NewEvent &b) {
        return before(a.start, a.end, b.start, b.end);
    };
    if (!std::is_sorted(batch.begin(), batch.end(), cmp))
        std::stable_sort(batch.begin(), batch.end(), cmp);

    const size_t old = dst.count();
    const size_t k = insertionPoint(dst, batch[0].start, batch[0].end);
    dst.reserve(old + batch.size());
    for (const NewEvent &e : batch) {
        const auto at = uint32_t(dst.count());
        dst.localStart.push_back(e.start);
        dst.localEnd.push_back(e.end);
        dst.nameId.push_back(m_nameMap[src.nameId[e.src]]);
        dst.flags.push_back(uint16_t(src.flags[e.src] & ~(EventOverdue | EventHasArgs)));
        markOverdue(dst, at, kinds, tl);
        int64_t dstArgs = -1;
        const int64_t srcArgs = argsOf[e.src - c];
        if (srcArgs >= 0) {
            dstArgs = copyArgs(tl, p, srcArgs);
            dst.argRefs.emplace_back(at, uint32_t(dstArgs));
            dst.flags[at] |= EventHasArgs;
        }
        if (dst.flags[at] & EventOpen)
            st.open.push_back({e.src, at, srcArgs, dstArgs});
    }
    if (k < old)
        mergeSuffix(dst, st, k, old);
    TimelineBuilder::nestFrom(dst, k);
    st.committed = uint32_t(n);
    stats.newEvents += n - c;
    return k;
}

// [k, old) and [old, count()) are each sorted: merge them (stable: existing events first on
// ties) and remap what refers to their indices (argRefs, the open list).
void LiveMerge::mergeSuffix(EventTrack &dst, TrackState &st, size_t k, size_t old)
{
    const size_t n = dst.count();
    std::vector<uint32_t> order(n - k);
    std::iota(order.begin(), order.end(), uint32_t(k));
    std::inplace_merge(order.begin(), order.begin() + ptrdiff_t(old - k), order.end(),
                       [&dst](uint32_t a, uint32_t b) {
                           return before(dst.localStart[a], dst.localEnd[a], dst.localStart[b],
                                         dst.localEnd[b]);
                       });
    permuteSuffix(dst.localStart, k, order);
    permuteSuffix(dst.localEnd, k, order);
    permuteSuffix(dst.nameId, k, order);
    permuteSuffix(dst.flags, k, order);
    std::vector<uint32_t> where(n - k);
    for (size_t i = 0; i < order.size(); ++i)
        where[order[i] - k] = uint32_t(k + i);
    const auto firstMoved = std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(),
                                             std::pair<uint32_t, uint32_t>(uint32_t(k), 0));
    for (auto it = firstMoved; it != dst.argRefs.end(); ++it)
        it->first = where[it->first - k];
    std::sort(firstMoved, dst.argRefs.end());
    for (OpenEvent &o : st.open)
        if (o.dst >= k)
            o.dst = where[o.dst - k];
}

LiveMergeStats LiveMerge::merge(Worker &w, Timeline &tl, EventKindLookup &kinds,
                               int64_t openEndLocal)
{
    LiveMergeStats stats;
    const ParsedFile &pf = m_parser.partial();
    syncNames(tl);
    syncTracks(w, stats);
    const int rank = w.info.rank;
    w.info = pf.worker.info;
    if (!pf.rankKnown)
        w.info.rank = rank; // assigned by LiveJob
    for (size_t p = 0; p < m_trackMap.size(); ++p) {
        EventTrack &dst = w.tracks[m_trackMap[p]];
        const EventTrack &src = pf.worker.tracks[p];
        if (dst.threadName != src.threadName)
            dst.threadName = src.threadName;
        noteLateArgs(p);
        closeOrGrow(p, dst, tl, kinds, openEndLocal, stats);
        const size_t from = appendNew(p, dst, tl, kinds, openEndLocal, stats);
        if (from < dst.count())
            stats.changedTracks.emplace_back(m_trackMap[p], uint32_t(from));
        m_tracks[p].argRefsSeen = src.argRefs.size();
    }
    mergeCounters(w, stats);
    return stats;
}

void LiveMerge::mergeCounters(Worker &w, LiveMergeStats &stats)
{
    const auto &src = m_parser.partial().worker.counters;
    auto find = [&w](const CounterTrack &c) {
        for (CounterTrack &d : w.counters)
            if (d.pid == c.pid && d.name == c.name && d.series == c.series)
                return &d;
        return static_cast<CounterTrack *>(nullptr);
    };
    for (size_t k = m_counterSeen.size(); k < src.size(); ++k) {
        CounterTrack c;
        c.pid = src[k].pid;
        c.name = src[k].name;
        c.series = src[k].series;
        c.category = src[k].category;
        w.counters.push_back(std::move(c));
        m_counterSeen.push_back(0);
        stats.newCounters = true;
    }
    if (stats.newCounters)
        CounterTrack::sortByKey(w.counters);
    for (size_t k = 0; k < src.size(); ++k) {
        const CounterTrack &from = src[k];
        if (m_counterSeen[k] == from.count())
            continue;
        CounterTrack *to = find(from);
        const bool first = to->count() == 0;
        bool sorted = true;
        for (size_t i = m_counterSeen[k]; i < from.count(); ++i) {
            sorted = sorted && (to->count() == 0 || to->localTs.back() <= from.localTs[i]);
            to->add(from.localTs[i], from.value[i]);
            to->minValue = first && i == m_counterSeen[k] ? from.value[i]
                                                          : std::min(to->minValue, from.value[i]);
            to->maxValue = first && i == m_counterSeen[k] ? from.value[i]
                                                          : std::max(to->maxValue, from.value[i]);
        }
        if (!sorted)
            to->finish();
        stats.newCounterSamples += from.count() - m_counterSeen[k];
        m_counterSeen[k] = from.count();
    }
}

void LiveMerge::growOpenEvents(Worker &w, Timeline &tl, EventKindLookup &kinds, int64_t openEndLocal)
{
    for (size_t p = 0; p < m_trackMap.size(); ++p) {
        EventTrack &dst = w.tracks[m_trackMap[p]];
        for (const OpenEvent &o : m_tracks[p].open) {
            dst.localEnd[o.dst] = std::max(dst.localStart[o.dst], openEndLocal);
            markOverdue(dst, o.dst, kinds, tl);
        }
    }
}

load::MessageLog LiveMerge::messages() const
{
    load::MessageLog out = m_parser.partial().messages;
    std::vector<uint32_t> where(m_parser.partial().worker.tracks.size(), UINT32_MAX);
    std::copy(m_trackMap.begin(), m_trackMap.end(), where.begin());
    out.remapTracks(where);
    return out;
}

} // namespace syncline
