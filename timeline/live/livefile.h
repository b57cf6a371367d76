// LiveFile — one syncline log followed while its worker writes it (part of LiveJob).
//
// ingest() reads only the bytes appended since the previous call (pread from a kept offset, in
// chunks) and feeds the complete lines to the file's one LogParser (the same record parsing
// and reading rules as a full load); a torn last line stays in a small carry buffer until its
// '\n' arrives. merge() then moves what the parser produced since the previous merge into the
// timeline's Worker, with a cost proportional to the new records, not to the file:
//  - new events of a thread are sorted among themselves and appended; only when one starts
//    before the track's last event (an `X` interval recorded after its children) is the suffix
//    from its insertion point merged (std::merge on a permutation) and re-nested
//    (TimelineBuilder::nestFrom);
//  - events still open are remembered as (parser index, timeline index): when their `E`
//    arrives they get their end, overdue flag and merged args; until then their end grows to
//    `openEndLocal` (the live "now" in this worker's local ns) and they turn overdue as soon as
//    they run past their kind's expected maximum;
//  - new threads become new tracks inserted in (pid, tid) order; new names are interned into the
//    timeline's table (per-file remap), new args appended to Timeline::args.
// Memory: the parser keeps its own arrival-order copy of the events (about 22 bytes an event
// plus args) next to the timeline's 28 bytes — the price of reusing LogParser unchanged.
// Invariants: units are local ns; after merge() every touched track satisfies EventTrack's
// invariants (sorted, nested) except that an open event's end is "now".
// Threading: ingest() and merge() must not run concurrently; ingest() may run on a worker
// thread while the timeline is read elsewhere (it touches only this object's parser);
// merge() runs on the thread that owns the Timeline.
#pragma once

#include "timeline/load/log/logparser.h"
#include "timeline/model/timeline.h"

#include <chrono>
#include <cstdint>
#include <string>
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

class LiveFile
{
public:
    using Clock = std::chrono::steady_clock;

    explicit LiveFile(std::string path);
    ~LiveFile();
    LiveFile(const LiveFile &) = delete;
    LiveFile &operator=(const LiveFile &) = delete;

    const std::string &path() const { return m_path; }
    // Reads and parses what was appended, in chunks of chunkBytes through `scratch` (a buffer
    // shared by the files of one job, grown as needed); returns the bytes read (0: nothing new,
    // -1: error, see error()). A file that shrank (truncated or replaced) is reported once and
    // not read further. A path that is not a regular file (a FIFO put in a log's place) is never
    // opened in a way that blocks (FileReader::openRegular): it is skipped, once, with
    // skipped() true and error() "not a regular file (FIFO); skipped".
    int64_t ingest(std::vector<char> &scratch, size_t chunkBytes);
    const std::string &error() const { return m_error; }
    bool skipped() const { return m_skipped; }

    // True once a record was parsed (the file has a worker).
    bool hasRecords() const { return m_parser.partial().records > 0; }
    const load::ParsedFile &parsed() const { return m_parser.partial(); }
    const load::LogParser &parser() const { return m_parser; }
    std::vector<LoadProblem> takeProblems() { return m_parser.takeProblems(); }
    size_t sampleCount() const { return m_parser.partialSamples().size(); }
    // The samples against the reference most samples were taken with, as LogParser::finish().
    std::vector<sync::ClockSample> currentSamples(std::string *refId) const;

    // Merges the newly parsed records into `worker` (this file's Worker in `timeline`).
    LiveMergeStats merge(Worker &worker, Timeline &timeline, load::EventKindLookup &kinds,
                         int64_t openEndLocal);
    // Re-applies the open-event end (the live "now") and the overdue-while-running flag
    // without new records (cheap: only the open events).
    void growOpenEvents(Worker &worker, Timeline &timeline, load::EventKindLookup &kinds,
                        int64_t openEndLocal);

    Clock::time_point lastGrowth() const { return m_lastGrowth; }
    int64_t bytesRead() const { return m_offset; }
    size_t openEvents() const;

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

    std::string m_path;
    int m_fd = -1;
    int64_t m_offset = 0;
    std::string m_carry; // bytes after the last '\n' (a torn or still-being-written line)
    std::string m_error;
    bool m_stopped = false;
    bool m_skipped = false;
    Clock::time_point m_lastGrowth;
    load::LogParser m_parser;

    std::vector<uint32_t> m_nameMap;   // parser name id → timeline name id
    std::vector<uint32_t> m_trackMap;  // parser track → timeline track index
    std::vector<TrackState> m_tracks;  // per parser track
    std::vector<size_t> m_counterSeen; // per parser counter: samples already merged
};

} // namespace syncline
