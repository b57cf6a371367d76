// TrackModel — the view's model of one thread of one worker (one EventTrack), shaped like Qt
// Creator's TimelineModel: queries by event index in O(1) or O(log n), times in GLOBAL ns
// through the worker's ClockMap of the clock mode each query is given.
//
// Invariants: indices are the EventTrack's (sorted by local start, parents before children);
// events of one depth never overlap (perfect nesting), so each depth row (depthRow(d)) is sorted
// by start AND by end — the geometry and hit-testing binary-search it. The map is monotone, so
// local order == global order and searches run on local times after one toLocal() per query.
// Memory: 4 bytes per event (the depth rows) + 8 bytes per 8 and per 64 events (the two levels
// of bucket starts, ≈ 1.1 bytes per event) + 8 bytes per 64 events (each bucket's dominant name,
// bucketNames) on top of the EventTrack, + 16 bytes per outermost wait event (waitNsBefore: its
// end and the wait time up to it; a wait is a collective, RankOutliers::isWait).
// Live (incremental) use: when the Timeline's track grew in place, extendFrom(k) re-indexes only
// events from k on (the rows are sorted by index, so the tail from k is cut and re-appended):
// cost ∝ count() − k, not count(). setPosition() follows the track when workers or tracks
// were inserted before it.
// Threading: read-only after construction; const methods are safe from any thread as long as
// the Timeline outlives the model and is not mutated meanwhile (setClockMode, extendFrom and
// setPosition are GUI-thread only, between the Timeline's live commits and the next paint).
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline::ui {

// Everything the tooltip and the details panel show about one event.
struct EventDetails
{
    int index = -1;
    std::string name;
    std::string workerLabel;
    int rank = 0;
    int64_t tid = 0;
    std::string threadName;
    int64_t startNs = 0; // global
    int64_t endNs = 0;   // global (end of data for open events)
    int64_t localStartNs = 0;
    int64_t localEndNs = 0;
    int depth = 0;
    int parent = -1;
    uint16_t flags = 0;
    std::string args;          // JSON object text, "" when none
    int64_t correctionNs = 0;  // corrected − raw global time at the event start (0 in raw mode)
    int64_t boundNs = 0;       // guaranteed bound of the clock segment (0 = none)
    int64_t bandNs = 0;        // statistical band of the segment
    uint32_t segmentFlags = 0; // sync::SegmentFlag bits
    bool rawClock = false;     // shown on raw (uncorrected) times
};

class TrackModel
{
public:
    TrackModel(const Timeline *timeline, size_t worker, size_t track);

    // The track's events from index `from` on changed or were appended (events before it kept
    // their index, depth and start): re-index them. Returns how many events were indexed.
    size_t extendFrom(size_t from);
    void setPosition(size_t worker, size_t track)
    {
        m_worker = worker;
        m_track = track;
    }

    size_t worker() const { return m_worker; }
    size_t trackIndex() const { return m_track; }
    const EventTrack &track() const;
    const Worker &workerData() const;
    // Global times take the clock mode they are asked in (the view's: TimelineScene::clockMode).
    const sync::ClockMap &map(ClockMode mode) const { return workerData().map(mode); }

    int count() const { return int(track().count()); }
    int64_t startTime(int i, ClockMode mode) const;
    int64_t endTime(int i, ClockMode mode) const;
    int64_t duration(int i, ClockMode mode) const { return endTime(i, mode) - startTime(i, mode); }
    int depth(int i) const { return track().depth[size_t(i)]; }
    int parentIndex(int i) const { return track().parent[size_t(i)]; }
    uint32_t nameId(int i) const { return track().nameId[size_t(i)]; }
    uint16_t flags(int i) const { return track().flags[size_t(i)]; }
    // First event (lowest index) whose end >= t; -1 when every event ends before t.
    int firstIndex(int64_t globalT, ClockMode mode) const;
    // Last event (highest index) whose start <= t; -1 when every event starts after t.
    int lastIndex(int64_t globalT, ClockMode mode) const;
    EventDetails details(int i, ClockMode mode) const;
    std::vector<int> children(int i) const; // direct children, in start order

    int depthCount() const { return int(m_depthRows.size()); }
    const std::vector<uint32_t> &depthRow(int d) const { return m_depthRows[size_t(d)]; }
    // Position in depthRow(d) of the first event whose local end >= localT (row size when none).
    size_t rowLowerBound(int d, int64_t localT) const;
    // Position in depthRow(d) of the first event whose local start > localT.
    size_t rowUpperBound(int d, int64_t localT) const;
    // First position p in [from, row size) of depthRow(d) whose local start >= localT; searches
    // forward from `from` through 64-event then 8-event buckets (the bucket starts are
    // contiguous arrays, so a hop touches few cache lines), then at most 8 events. LOD fold.
    size_t rowSeekStart(int d, size_t from, int64_t localT) const;
    // Per complete 64-event bucket k of depthRow(d): the name covering most of its time and that
    // time (local ns) — the LOD's fold colours read these instead of the events (a compact
    // array: 8 bytes per 64 events, cache-resident where the event arrays are not).
    struct BucketName
    {
        uint32_t nameId = 0;
        float ns = 0;
    };
    static constexpr size_t bucketSize() { return kBucket; }
    const std::vector<BucketName> &bucketNames(int d) const
    {
        static const std::vector<BucketName> none;
        return size_t(d) < m_bucketNames.size() ? m_bucketNames[size_t(d)] : none;
    }
    // Local ns before localT the thread spent in waits (collectives of any depth: a name whose
    // Timeline::kinds entry is collective, RankOutliers::isWait), counted once where waits nest.
    // One search over the outermost waits' ends (contiguous, with a running sum of their
    // durations, built with the rows). `hint` (start at 0) is the wait found last: a later query
    // for a later time gallops forward from it, so a left-to-right sweep costs O(log gap) each.
    // Example: waits [80, 100) and [180, 200) → before(190) = 30, before(50) = 0.
    int64_t waitNsBefore(int64_t localT, size_t &hint) const;
    int64_t waitNsIn(int64_t localA, int64_t localB) const
    {
        size_t hint = 0;
        const int64_t a = waitNsBefore(localA, hint);
        return localB > localA ? waitNsBefore(localB, hint) - a : 0;
    }
    bool hasWaits() const { return !m_waitEnd.empty(); }
    int64_t globalBegin(ClockMode mode) const; // start of the first event (0 when empty)
    int64_t globalEnd(ClockMode mode) const;   // latest end (0 when empty)

private:
    void indexFrom(size_t from);
    void summariseBucket(size_t d);
    void indexWaitsFrom(size_t from);

    const Timeline *m_timeline;
    size_t m_worker;
    size_t m_track;
    static constexpr size_t kBucket = 64;
    static constexpr size_t kFine = 8;
    std::vector<std::vector<uint32_t>> m_depthRows;
    std::vector<std::vector<int64_t>> m_bucketStarts;   // [d][k] = local start of row[k·kBucket]
    std::vector<std::vector<int64_t>> m_fineStarts;     // [d][j] = local start of row[j·kFine]
    std::vector<std::vector<BucketName>> m_bucketNames; // [d][k]: complete buckets only
    // The outermost wait events (disjoint, sorted by start and by end: perfect nesting): their
    // local ends and the wait ns up to each end (their durations summed, that one included).
    std::vector<int64_t> m_waitEnd;
    std::vector<int64_t> m_waitUpTo;
};

} // namespace syncline::ui
