// LogExtension — a grown log loaded without parsing its old bytes again (docs/scale.md "A
// growing log"): the part its index and event store describe is decoded from the store, only
// the bytes appended since are parsed, and the store and index are extended, not rebuilt.
//
// The same decoding serves a full load of a log that did not change at all (prepare with
// unchangedToo): its store is decoded instead of its JSON parsed (a seventh of the bytes read,
// docs/scale.md "Loading an unchanged job again"), nothing new.
//
// When: the log's index and event store were written by one parse (same stamp), the index's
// Continuation is possible, and the log now is that log grown — same inode, larger, the same
// first 4 KiB (as far as the old size reached) and the same 4 KiB before the continuation
// offset (the end of its last complete line; a torn last line is parsed again). A log rewritten
// with the same size, truncated, replaced or changed within those bytes is parsed whole (and
// its files rewritten); so is one whose state at the old end cannot be restored exactly.
//
// How it stays exactly the full parse: a LogParser is given the header line, then the state
// the parse of the old bytes left (LogParser::restore, from the index and the decoded store) —
// the events still open (so their E in the new bytes matches them), per thread the last time
// of its order check, every sync sample with its reference (the choice of reference counts them
// all), the first and last local time, the last heartbeat, the drops and the close — and it
// continues at the old line number and offset. No record is written to be parsed again. Its output (the open events' ends, the new events, messages, samples, counters,
// problems, the worker's fields) is merged into the decoded tracks; TimelineBuilder::prepareFile
// then sorts and nests them as it would a full parse (a stable sort: the old events come first
// among equals, as they do in the file).
//
// Threading: a value used by the thread that parses the log.
#pragma once

#include "timeline/load/store/eventstore.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/parse/parsedfile.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace syncline::load {

class LogExtension
{
public:
    // The extension of `path`, or nullopt (and *why) when the log must be parsed whole.
    // With `unchangedToo`, also a log that did not change at all since its index and store
    // were written: parse() then decodes the store and parses no byte of the log but its
    // header line (a full load of an unchanged job; finish() has nothing to write).
    static std::optional<LogExtension> prepare(const std::string &path, std::string *why = nullptr,
                                               bool unchangedToo = false);
    // The grown log as LogParser::parseFile gives it (not prepared); nullopt when the old end's
    // state could not be restored (the caller parses the log whole).
    std::optional<ParsedFile> parse(const std::atomic<bool> *cancel, size_t interval);
    // After TimelineBuilder::prepareFile(file): appends the new chunks to the event store and
    // writes the extended index, when the log did not change during the parse.
    void finish(const ParsedFile &file);

    // The Continuation of a finished parse `file` of `path` (not prepared yet) whose index is
    // `index` (its checkpoints, stamp and header length set).
    static LogIndex::Continuation continuation(const std::string &path, const ParsedFile &file,
                                               const LogIndex &index);

private:
    std::string m_path;
    LogIndex m_index;                 // the old one; extended by parse()
    EventStore m_store;               // the old one's directory
    LogFileStamp m_now;               // the log when it was checked
    std::vector<EventTrack> m_before; // the decoded tracks, as the store holds them
    LogIndex m_more;                  // the new bytes' checkpoints (parse)
    LogIndex::Continuation m_resume;  // the grown log's
    bool m_parsed = false;
    bool m_unchanged = false; // the log is as its index and store describe it
};

} // namespace syncline::load
