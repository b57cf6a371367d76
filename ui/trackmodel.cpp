#include "trackmodel.h"

#include <algorithm>

namespace syncline::ui {

TrackModel::TrackModel(const Timeline *timeline, size_t worker, size_t track)
    : m_timeline(timeline), m_worker(worker), m_track(track)
{
    const EventTrack &t = this->track();
    int maxDepth = -1;
    for (uint16_t d : t.depth)
        maxDepth = std::max<int>(maxDepth, d);
    m_depthRows.resize(size_t(maxDepth + 1));
    std::vector<size_t> sizes(m_depthRows.size(), 0);
    for (uint16_t d : t.depth)
        ++sizes[d];
    m_bucketStarts.resize(m_depthRows.size());
    m_fineStarts.resize(m_depthRows.size());
    for (size_t d = 0; d < sizes.size(); ++d) {
        m_depthRows[d].reserve(sizes[d]);
        m_bucketStarts[d].reserve(sizes[d] / kBucket + 1);
        m_fineStarts[d].reserve(sizes[d] / kFine + 1);
    }
    indexFrom(0);
    indexWaitsFrom(0);
}

// Appends the outermost waits among events [from, count): a wait starting before the end of the
// last one kept lies inside it (perfect nesting) and adds no time.
void TrackModel::indexWaitsFrom(size_t from)
{
    const EventTrack &t = track();
    std::vector<char> isWait(m_timeline->kinds.size(), 0); // per name: RankOutliers::isWait
    bool any = false;
    for (size_t n = 0; n < isWait.size(); ++n)
        any |= bool((isWait[n] = m_timeline->kinds[n].collective));
    if (!any)
        return;
    for (size_t i = from; i < t.count(); ++i) {
        const uint32_t name = t.nameId[i];
        if (name >= isWait.size() || !isWait[name] || (t.flags[i] & EventInstant))
            continue;
        if (!m_waitEnd.empty() && t.localStart[i] < m_waitEnd.back())
            continue;
        const int64_t upTo = m_waitUpTo.empty() ? 0 : m_waitUpTo.back();
        m_waitEnd.push_back(t.localEnd[i]);
        m_waitUpTo.push_back(upTo + std::max<int64_t>(0, t.localEnd[i] - t.localStart[i]));
    }
}

int64_t TrackModel::waitNsBefore(int64_t localT, size_t &hint) const
{
    const size_t n = m_waitEnd.size();
    if (n == 0)
        return 0;
    // k: the first wait ending after localT. Gallop forward from the hint, then binary-search.
    size_t lo = hint <= n && (hint == 0 || m_waitEnd[hint - 1] <= localT) ? hint : 0;
    size_t hi = lo;
    for (size_t step = 1; hi < n && m_waitEnd[hi] <= localT; step *= 2) {
        lo = hi + 1;
        hi = lo + step - 1;
    }
    hi = std::min(hi, n);
    const size_t k =
        size_t(std::upper_bound(m_waitEnd.begin() + lo, m_waitEnd.begin() + hi, localT) -
               m_waitEnd.begin());
    hint = k;
    if (k == n)
        return m_waitUpTo.back();
    // Waits before k count whole; wait k up to localT (none of it when it starts after localT).
    const int64_t dur = m_waitUpTo[k] - (k > 0 ? m_waitUpTo[k - 1] : 0);
    return m_waitUpTo[k] - std::min(dur, m_waitEnd[k] - localT);
}

void TrackModel::indexFrom(size_t from)
{
    const EventTrack &t = track();
    for (size_t i = from; i < t.count(); ++i) {
        const size_t d = t.depth[i];
        if (d >= m_depthRows.size()) {
            m_depthRows.resize(d + 1);
            m_bucketStarts.resize(d + 1);
            m_fineStarts.resize(d + 1);
        }
        std::vector<uint32_t> &row = m_depthRows[d];
        if (row.size() % kFine == 0) {
            m_fineStarts[d].push_back(t.localStart[i]);
            if (row.size() % kBucket == 0)
                m_bucketStarts[d].push_back(t.localStart[i]);
        }
        row.push_back(uint32_t(i));
        if (row.size() % kBucket == 0)
            summariseBucket(d);
    }
}

// The name covering most of the time of the bucket row[size − kBucket, size) that just filled
// (first seen wins a tie), and that time: what the LOD colours folds from.
void TrackModel::summariseBucket(size_t d)
{
    if (d >= m_bucketNames.size())
        m_bucketNames.resize(d + 1);
    const EventTrack &t = track();
    const std::vector<uint32_t> &row = m_depthRows[d];
    std::pair<uint32_t, int64_t> sum[kBucket];
    int distinct = 0;
    for (size_t k = row.size() - kBucket; k < row.size(); ++k) {
        const uint32_t e = row[k];
        const int64_t dur = std::max<int64_t>(1, t.localEnd[e] - t.localStart[e]);
        int j = 0;
        while (j < distinct && sum[j].first != t.nameId[e])
            ++j;
        if (j == distinct)
            sum[distinct++] = {t.nameId[e], 0};
        sum[j].second += dur;
    }
    int best = 0;
    for (int j = 1; j < distinct; ++j)
        if (sum[j].second > sum[best].second)
            best = j;
    m_bucketNames[d].push_back({sum[best].first, float(sum[best].second)});
}

size_t TrackModel::extendFrom(size_t from)
{
    const EventTrack &t = track();
    from = std::min(from, t.count());
    for (size_t d = 0; d < m_depthRows.size(); ++d) {
        std::vector<uint32_t> &row = m_depthRows[d];
        const size_t keep =
            size_t(std::lower_bound(row.begin(), row.end(), uint32_t(from)) - row.begin());
        row.resize(keep);
        m_fineStarts[d].resize((keep + kFine - 1) / kFine);
        m_bucketStarts[d].resize((keep + kBucket - 1) / kBucket);
        if (d < m_bucketNames.size())
            m_bucketNames[d].resize(keep / kBucket); // complete buckets only
    }
    indexFrom(from);
    // Waits from `from` on, and earlier ones whose end may have moved (open ones end at the end
    // of data, so after any start), are indexed again: those ending at or after `from`'s start.
    const int64_t fromStart = from < t.count() ? t.localStart[from] : INT64_MAX;
    int64_t rescanStart = fromStart;
    while (!m_waitEnd.empty() && m_waitEnd.back() >= fromStart) {
        const size_t k = m_waitEnd.size() - 1;
        rescanStart = m_waitEnd[k] - (m_waitUpTo[k] - (k > 0 ? m_waitUpTo[k - 1] : 0));
        m_waitEnd.pop_back();
        m_waitUpTo.pop_back();
    }
    const size_t rescan = std::min(
        from, size_t(std::lower_bound(t.localStart.begin(), t.localStart.end(), rescanStart) -
                     t.localStart.begin()));
    indexWaitsFrom(rescan);
    while (!m_depthRows.empty() && m_depthRows.back().empty()) { // re-nesting made it shallower
        m_depthRows.pop_back();
        m_bucketStarts.pop_back();
        m_fineStarts.pop_back();
        if (m_bucketNames.size() > m_depthRows.size())
            m_bucketNames.pop_back();
    }
    return t.count() - from;
}

size_t TrackModel::rowSeekStart(int d, size_t from, int64_t localT) const
{
    const std::vector<uint32_t> &row = m_depthRows[size_t(d)];
    const std::vector<int64_t> &buckets = m_bucketStarts[size_t(d)];
    const std::vector<int64_t> &st = track().localStart;
    if (from >= row.size())
        return row.size();
    // Bucket kb-1 holds the answer, where kb is the first bucket after from's starting >= localT.
    size_t kb = from / kBucket + 1;
    if (kb < buckets.size() && buckets[kb] < localT) {
        size_t step = 1;
        while (kb + step < buckets.size() && buckets[kb + step] < localT) {
            kb += step;
            step *= 2;
        }
        const size_t end = std::min(kb + step, buckets.size());
        kb = size_t(std::partition_point(buckets.begin() + ptrdiff_t(kb),
                                         buckets.begin() + ptrdiff_t(end),
                                         [&](int64_t s) { return s < localT; }) -
                    buckets.begin());
    }
    size_t lo = std::max(from, (kb - 1) * kBucket);
    size_t hi = std::min(kb * kBucket, row.size());
    // Narrow [lo, hi) to one 8-event bucket with the fine starts (one or two cache lines).
    const std::vector<int64_t> &fine = m_fineStarts[size_t(d)];
    const size_t f0 = lo / kFine + 1; // first fine boundary after lo
    const size_t f1 = std::min((hi + kFine - 1) / kFine, fine.size()); // boundaries before hi
    if (f0 < f1) {
        const size_t j =
            size_t(std::partition_point(fine.begin() + ptrdiff_t(f0), fine.begin() + ptrdiff_t(f1),
                                        [&](int64_t s) { return s < localT; }) -
                   fine.begin());
        lo = std::max(lo, (j - 1) * kFine);
        hi = std::min(hi, j * kFine);
    }
    return size_t(std::partition_point(row.begin() + ptrdiff_t(lo), row.begin() + ptrdiff_t(hi),
                                       [&](uint32_t e) { return st[e] < localT; }) -
                  row.begin());
}

const EventTrack &TrackModel::track() const
{
    return m_timeline->workers[m_worker].tracks[m_track];
}

const Worker &TrackModel::workerData() const
{
    return m_timeline->workers[m_worker];
}

int64_t TrackModel::startTime(int i, ClockMode mode) const
{
    return map(mode).toGlobal(track().localStart[size_t(i)]);
}

int64_t TrackModel::endTime(int i, ClockMode mode) const
{
    return map(mode).toGlobal(track().localEnd[size_t(i)]);
}

size_t TrackModel::rowLowerBound(int d, int64_t localT) const
{
    const std::vector<uint32_t> &row = m_depthRows[size_t(d)];
    const std::vector<int64_t> &ends = track().localEnd;
    return size_t(
        std::partition_point(row.begin(), row.end(), [&](uint32_t e) { return ends[e] < localT; }) -
        row.begin());
}

size_t TrackModel::rowUpperBound(int d, int64_t localT) const
{
    const std::vector<uint32_t> &row = m_depthRows[size_t(d)];
    const std::vector<int64_t> &starts = track().localStart;
    return size_t(std::partition_point(row.begin(), row.end(),
                                       [&](uint32_t e) { return starts[e] <= localT; }) -
                  row.begin());
}

int TrackModel::firstIndex(int64_t globalT, ClockMode mode) const
{
    // The first event ending at or after t is, at each depth, the row's lower bound; the
    // answer is the smallest index over all depths (O(depths · log n)).
    const int64_t localT = map(mode).toLocal(globalT);
    int best = -1;
    for (int d = 0; d < depthCount(); ++d) {
        const size_t p = rowLowerBound(d, localT);
        if (p < m_depthRows[size_t(d)].size()) {
            const int e = int(m_depthRows[size_t(d)][p]);
            // toLocal is exact to ±1 ns; confirm on global times.
            int q = e;
            if (endTime(q, mode) < globalT) {
                if (p + 1 >= m_depthRows[size_t(d)].size())
                    continue;
                q = int(m_depthRows[size_t(d)][p + 1]);
            }
            if (best < 0 || q < best)
                best = q;
        }
    }
    return best;
}

int TrackModel::lastIndex(int64_t globalT, ClockMode mode) const
{
    const std::vector<int64_t> &starts = track().localStart;
    const int64_t localT = map(mode).toLocal(globalT);
    auto it = std::upper_bound(starts.begin(), starts.end(), localT);
    int i = int(it - starts.begin()) - 1;
    while (i >= 0 && startTime(i, mode) > globalT)
        --i;
    while (i + 1 < count() && startTime(i + 1, mode) <= globalT)
        ++i;
    return i;
}

int64_t TrackModel::globalBegin(ClockMode mode) const
{
    return count() ? startTime(0, mode) : 0;
}

int64_t TrackModel::globalEnd(ClockMode mode) const
{
    if (m_depthRows.empty() || m_depthRows[0].empty())
        return 0;
    // Roots are disjoint and sorted, and children lie inside their root: the last root ends last.
    return endTime(int(m_depthRows[0].back()), mode);
}

std::vector<int> TrackModel::children(int i) const
{
    std::vector<int> out;
    const EventTrack &t = track();
    const int d = depth(i) + 1;
    if (d >= depthCount())
        return out;
    // Children are the depth-(d) events between the parent's start and end.
    size_t p = rowLowerBound(d, t.localStart[size_t(i)]);
    const std::vector<uint32_t> &row = m_depthRows[size_t(d)];
    for (; p < row.size() && t.localStart[row[p]] <= t.localEnd[size_t(i)]; ++p) {
        if (t.parent[row[p]] == i)
            out.push_back(int(row[p]));
    }
    return out;
}

EventDetails TrackModel::details(int i, ClockMode mode) const
{
    const EventTrack &t = track();
    const Worker &w = workerData();
    EventDetails d;
    d.index = i;
    d.name = std::string(m_timeline->names.name(nameId(i)));
    d.workerLabel = w.label();
    d.rank = w.info.rank;
    d.tid = t.tid;
    d.threadName = t.threadName;
    d.localStartNs = t.localStart[size_t(i)];
    d.localEndNs = t.localEnd[size_t(i)];
    d.startNs = startTime(i, mode);
    d.endNs = endTime(i, mode);
    d.depth = depth(i);
    d.parent = parentIndex(i);
    d.flags = flags(i);
    const int64_t argsId = (d.flags & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
    if (argsId >= 0 && size_t(argsId) < m_timeline->args.size())
        d.args = m_timeline->args[size_t(argsId)];
    // The correction is what the sync engine changed: corrected minus raw global time (both
    // maps share one global scale), 0 when showing raw clocks.
    const Worker &wk = workerData();
    d.correctionNs = mode == ClockMode::Raw
                         ? 0
                         : wk.corrected.toGlobal(d.localStartNs) - wk.raw.toGlobal(d.localStartNs);
    if (!map(mode).segments().empty()) {
        const sync::ClockSegment &seg = map(mode).segmentAt(d.localStartNs);
        d.boundNs = seg.boundNs;
        d.bandNs = seg.bandNs;
        d.segmentFlags = seg.flags;
    }
    d.rawClock = mode == ClockMode::Raw;
    return d;
}

} // namespace syncline::ui
