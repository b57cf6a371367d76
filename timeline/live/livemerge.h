// LiveMerge — the merging half of LiveFile: moves what one followed log's LogParser produced
// since the previous merge into the timeline's Worker, with a cost proportional to the new
// records, not to the file (the rules are LiveFile's, see livefile.h):
//  - new events of a thread are sorted among themselves and appended; only when one starts
//    before the track's last event is the suffix from its insertion point merged and re-nested
//    (TimelineBuilder::nestFrom);
//  - open events are remembered as (parser index, timeline index) until their `E` arrives;
//    until then their end grows to the live "now" and they turn overdue when due;
//  - new threads become tracks inserted in (pid, tid) order; names and args are interned into
//    the timeline's; new counter samples are appended to the worker's series.
// Threading: used by the thread that owns the Timeline (LiveFile::merge); reads the parser,
// which ingest() must not be feeding at the same time.
#pragma once

#include "timeline/load/parse/log/logparser.h"
#include "timeline/model/timeline.h"

#include <cstdint>
#include <vector>

namespace syncline {

namespace load {
class EventKindLookup;
}

struct LiveMergeStats
{
    size_t newEvents = 0;
    size_t closedEvents = 0;
    bool newTracks = false;
    bool newCounters = false;     // counter series appeared (Worker::counters re-sorted)
    size_t newCounterSamples = 0; // samples appended to Worker::counters
    // (timeline track index, first changed event index) per track that got new events: events
    // before that index kept their index, depth, parent and start (only open events' ends and
    // flags may have changed); from it on, events were appended, merged and re-nested.
    std::vector<std::pair<uint32_t, uint32_t>> changedTracks;
};

class LiveMerge
{
public:
    explicit LiveMerge(const load::LogParser &parser) : m_parser(parser) {}

    LiveMergeStats merge(Worker &worker, Timeline &timeline, load::EventKindLookup &kinds,
                         int64_t openEndLocal);
    void growOpenEvents(Worker &worker, Timeline &timeline, load::EventKindLookup &kinds,
                        int64_t openEndLocal);
    size_t openEvents() const;
    // The parser's message records with their tracks as the worker's.
    load::MessageLog messages() const;

private:
    struct OpenEvent
    {
        uint32_t src;         // index in the parser's track
        uint32_t dst;         // index in the timeline's track
        int64_t srcArgs = -1; // position in the parser track's argRefs (-1: none)
        int64_t dstArgs = -1; // args id in the timeline (-1: none)
    };
    struct TrackState
    {
        uint32_t committed = 0; // parser events already merged
        size_t argRefsSeen = 0; // parser argRefs already looked at
        std::vector<OpenEvent> open;
    };
    struct NewEvent
    {
        int64_t start, end;
        uint32_t src;
    };

    void syncNames(Timeline &timeline);
    void syncTracks(Worker &worker, LiveMergeStats &stats);
    void noteLateArgs(size_t p);
    void closeOrGrow(size_t p, EventTrack &dst, Timeline &timeline, load::EventKindLookup &kinds,
                     int64_t openEndLocal, LiveMergeStats &stats);
    // Returns the first changed index of dst (dst.count() when nothing was appended).
    size_t appendNew(size_t p, EventTrack &dst, Timeline &timeline, load::EventKindLookup &kinds,
                     int64_t openEndLocal, LiveMergeStats &stats);
    void mergeSuffix(EventTrack &dst, TrackState &state, size_t k, size_t old);
    uint32_t copyArgs(Timeline &timeline, size_t p, int64_t srcRef);
    // Appends the parser's new counter samples to the worker's counters (new series inserted in
    // (pid, name, series) order); min/max kept up to date, re-sorted only when a sample is late.
    void mergeCounters(Worker &worker, LiveMergeStats &stats);


    const load::LogParser &m_parser;
    std::vector<uint32_t> m_nameMap;   // parser name id → timeline name id
    std::vector<uint32_t> m_trackMap;  // parser track → timeline track index
    std::vector<TrackState> m_tracks;  // per parser track
    std::vector<size_t> m_counterSeen; // per parser counter: samples already merged
};

} // namespace syncline
