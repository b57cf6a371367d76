// LiveFile — one syncline log followed while its worker writes it (part of LiveJob).
//
// ingest() reads only the bytes appended since the previous call (pread from a kept offset, in
// chunks) and feeds the complete lines to the file's one LogParser (the same record parsing
// and reading rules as a full load); a torn last line stays in a carry buffer, appended to by
// later reads, until its '\n' arrives (so the cost is linear in the bytes read, however long the
// line: like a full load, a line of any length is read). merge() then moves what the parser produced since the previous merge into the
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

#include "timeline/live/livemerge.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/model/timeline.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

namespace load {
class EventKindLookup;
}

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
    // -1: error, see error()). A path that is not a regular file (a FIFO put in a log's place) is
    // never opened in a way that blocks (FileReader::openRegular): it is skipped, once, with
    // skipped() true and error() "not a regular file (FIFO); skipped".
    //
    // The file is checked to still be the byte stream read so far, at almost no cost: when it
    // grew, its first line is read again before the new bytes are parsed (truncated and
    // rewritten past the old size: the first line changed); when nothing is new, one fstat
    // (shrunk: truncated) and, at most once a second, one stat of the path (replaced by
    // rename(): device/inode differ from the open fd's). Each change is reported once (a
    // problem in takeProblems()) and resolved (resolveChange()):
    //  - the new file begins with every byte read so far (the first line and the last 4 KiB
    //    before the offset compare equal: a copy of the log, extended, renamed over it): the
    //    new file is followed from the same offset — nothing is read twice;
    //  - its first line is a header record: it is another incarnation; this file is frozen
    //    (replaced() true: what was read stays, nothing more is read) and the owner follows the
    //    path from its start with a new LiveFile;
    //  - it has no header (copytruncate: the recorder writes with O_APPEND and goes on at the new
    //    end): its content is read from its start as more of this worker's log;
    //  - its first line is not complete yet: nothing is decided or read until it is.
    //
    // The descriptor stays open between calls unless closeDescriptor() let it go (a job with
    // more files than it keeps open, LiveOptions::maxOpenFiles): the next ingest() then opens
    // the path again, and a file there with another device/inode than the one read so far is a
    // replacement, resolved as above. While the descriptor is closed a deleted path has nothing
    // more to read (an open one would be read on).
    int64_t ingest(std::vector<char> &scratch, size_t chunkBytes);
    bool holdsDescriptor() const { return m_fd >= 0; }
    void closeDescriptor();
    const std::string &error() const { return m_error; }
    bool skipped() const { return m_skipped; }
    // True once another incarnation's log took this path's place (see ingest()); stays true.
    bool replaced() const { return m_replaced; }
    // True once, the first time it is called after replaced() became true.
    bool takeReplaced()
    {
        const bool r = m_replaced && !m_replacedTaken;
        m_replacedTaken = m_replacedTaken || r;
        return r;
    }

    // True once a record was parsed (the file has a worker).
    bool hasRecords() const { return m_parser.partial().records > 0; }
    const load::ParsedFile &parsed() const { return m_parser.partial(); }
    // A copy of the message records with their tracks as the worker's (the parser's track order
    // → the worker's sorted tracks, what Timeline::links index); a record on a thread not merged
    // yet gets no track (ClockCorrector then draws no link for it).
    load::MessageLog messages() const;
    const load::LogParser &parser() const { return m_parser; }
    // The parser's problems and this file's own notes (a change of the file, see ingest()).
    std::vector<LoadProblem> takeProblems();
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
    // A change found by ingest(); false when nothing is to be read now (not decided yet, or
    // this file frozen).
    // `openedAgain`: the path's file, already opened (after closeDescriptor()), when replaced.
    bool resolveChange(bool replaced, bool shrank, int openedAgain = -1);
    // Opens the path again after closeDescriptor(); false when there is nothing to read now.
    bool reopen(std::vector<char> &scratch, size_t chunkBytes, int64_t &result);
    void adopt(int fd); // follow `fd` (the file now at the path) instead of m_fd
    void keepHeadAndTail(std::string_view bytes); // bytes just read at m_offset - size
    void feed(std::string_view fresh);            // bytes just read, after m_carry
    void note(LoadProblem::Severity severity, std::string message);
    std::string m_path;
    int m_fd = -1;
    int64_t m_offset = 0;
    std::string m_carry; // bytes after the last '\n' (a torn or still-being-written line)
    std::string m_error;
    bool m_stopped = false;
    bool m_skipped = false;
    bool m_replaced = false;
    bool m_replacedTaken = false;
    uint64_t m_dev = 0, m_ino = 0; // of m_fd (kept while it is closed: see closeDescriptor())
    bool m_parked = false;         // closeDescriptor() closed it; the path is opened again
    Clock::time_point m_lastPathCheck{};
    std::string m_head;      // the file's first line (with its '\n'), at most 4 KiB
    bool m_headDone = false; // m_head is complete
    std::string m_tail;      // the last (at most 4 KiB) bytes before m_offset
    std::vector<LoadProblem> m_notes;
    Clock::time_point m_lastGrowth;
    load::LogParser m_parser;

    LiveMerge m_merge; // after m_parser: it reads it
};

} // namespace syncline
