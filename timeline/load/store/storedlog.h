// StoredLog — the one place that decides how a syncline log is read. A full load (read): decoded
// from its event store when the log is unchanged since a parse wrote its index and store; from
// its store and its new bytes only when it grew since (LogExtension); else parsed, its index
// written as a by-product of the parse (the checkpoints). What is then left to write waits for
// the file to be prepared (sorted and nested: TimelineBuilder::prepareFile), which the store
// keeps: finish() writes the event store, or extends store and index. A log that changed while
// it was read gets no index and no store (the next load tries again). Only the caches' own
// checks decide what is trusted (CacheFile::open, LogFileStamp); a store that does not decode
// (a damaged chunk) is written again from the parse.
// A windowed open (readWindow): the window decoded from the log's event store; without a store
// that decodes, parsed whole (writing the store, when the load writes caches) or, when it does
// not, only the index's blocks around the window; no index at all: the caller loads the job.
// Threading: one per file, on the thread that reads it.
#pragma once

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/store/logextension.h"
#include "timeline/load/store/logindex.h"

#include <atomic>
#include <optional>
#include <string>

namespace syncline::load {

class StoredLog
{
public:
    explicit StoredLog(std::string path) : m_path(std::move(path)) {}
    // The log's events (unprepared, as a parse gives them). `interval`: bytes between the
    // index's checkpoints.
    ParsedFile read(const std::atomic<bool> *cancel, size_t interval);
    // True when read() decoded the log from its event store alone (nothing to write).
    bool fromStore() const { return m_fromStore; }
    // `prepared` is what read() returned, prepared: writes or extends the caches read() found
    // missing or stale.
    void finish(const ParsedFile &prepared);

    // The window [begin, end] (global ns through `map`; [aLocal, bLocal] the log's local times
    // that can hold it) into `out`, prepared and cut to the window, its args texts into `sink`'s
    // store; its message records kept only when `withMessages` (those inside the window).
    // `writeStore`: a log parsed whole gets its event store written.
    enum class Window
    {
        NoIndex, // no valid index: nothing read (the caller loads the whole job)
        Decoded, // from the event store
        Parsed   // parsed (whole, or the index's blocks for the window)
    };
    Window readWindow(const sync::ClockMap &map, int64_t begin, int64_t end, int64_t aLocal,
                      int64_t bLocal, EventKindLookup &kinds, bool withMessages, bool writeStore,
                      const std::atomic<bool> *cancel, const EventStore::ArgSink &sink,
                      ParsedFile &out, int64_t *bytesRead);

private:
    std::string m_path;
    bool m_fromStore = false;
    std::optional<LogFileStamp> m_storeStamp; // write a store of this stamp
    std::optional<LogExtension> m_extension;  // extend store and index
};

} // namespace syncline::load
