// WindowReader — reads the part of one syncline log that a time window needs, using its LogIndex
// (docs/scale.md "Windowed opening"): the blocks [lo, hi) that LogIndex::blocksFor gives for the
// window's local times are read with one pread, after the header line and the events still
// open at checkpoint lo, restored into the parser (LogParser::restore: events that began before
// the window keep their ancestors and their E records match); events still open at the end of block hi − 1 get
// the end the full parse gave them (the index's spans). The result is a ParsedFile like
// LogParser::parseFile's, holding every event of the file that overlaps the window (and some
// around it, up to a block's worth: the caller cuts), with the worker fields, thread names and
// every sync sample of the whole file.
//
// cut() is the one rule for a window: an event is kept when its global start <= end and its
// global end >= begin in the window's mode (an ancestor of a kept event is kept too, since it
// encloses it); parents and args refs are re-pointed. A link (an arrow) is kept when both its
// ends lie in [begin, end]: a windowed load pairs only the window's message records, so an arrow
// leaving the window could not be drawn the same way by both paths.
// Threading: stateless; any thread.
#pragma once

#include "timeline/load/store/logindex.h"
#include "timeline/load/parse/parsedfile.h"

#include <atomic>
#include <string>

namespace syncline::load {

// The window rule for one worker: an event is in [begin, end] (global ns) when
// map.toGlobal(localStart) <= end and map.toGlobal(localEnd) >= begin. The map is monotone
// (ClockMap: every slope > 0, continuous within 1 ns), so the test is decided by local
// thresholds, found once by bisection; only locals within a few ns of the window's edges are
// mapped one by one (where the 1 ns seams could decide). Exactly the direct test.
class WindowTest
{
public:
    WindowTest(const sync::ClockMap &map, int64_t begin, int64_t end);
    bool keep(int64_t localStart, int64_t localEnd) const
    {
        const bool startOk = localStart <= m_sureStart ? true
                             : localStart >= m_noStart ? false
                                                       : m_map->toGlobal(localStart) <= m_end;
        if (!startOk)
            return false;
        return localEnd >= m_sureEnd ? true
               : localEnd <= m_noEnd ? false
                                     : m_map->toGlobal(localEnd) >= m_begin;
    }

private:
    const sync::ClockMap *m_map;
    int64_t m_begin, m_end;
    int64_t m_sureStart, m_noStart; // starts at or below: before the end; at or above: after it
    int64_t m_sureEnd, m_noEnd;     // ends at or above: after the begin; at or below: before it
};

class WindowReader
{
public:
    // Reads local times [a, b] of `path`; *bytesRead gets the bytes read from the log.
    static ParsedFile read(const std::string &path, const LogIndex &index, int64_t a, int64_t b,
                           int64_t *bytesRead = nullptr);
    // The worker of `path` as its header line and its index describe it (rank, host, anchors,
    // every sync sample, thread names, first/last local time, drops, close), with no events:
    // what an EventStore read fills in.
    static ParsedFile header(const std::string &path, const LogIndex &index);
    // The records of `log` whose global time through `map` lies in [begin, end]: the only ones a
    // link kept by cut() can end at (a window pairs only those).
    static MessageLog messagesIn(const MessageLog &log, const sync::ClockMap &map, int64_t begin,
                                 int64_t end);
    // Puts the index's whole-file worker fields on f (a window's parse of part of the file).
    static void applyIndex(ParsedFile &f, const LogIndex &index);
    // Keeps the events overlapping [begin, end] (global ns of `mode`) on every track.
    static void cut(Timeline &timeline, ClockMode mode, int64_t begin, int64_t end);
    // The same for one track whose worker maps local to global by `map`; the vectors are shrunk
    // to what is kept (the windowed load cuts each file as it is read, so the blocks' events
    // outside the window never add up).
    static void cutTrack(EventTrack &track, const sync::ClockMap &map, int64_t begin, int64_t end);
    static void cutTrack(EventTrack &track, const WindowTest &in);
};

} // namespace syncline::load
