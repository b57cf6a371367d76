// EventStore — the parsed events of one syncline log in a compact binary form, kept beside its
// time index (docs/scale.md "The index, the event store and the correction cache"), so that opening a window decodes binary blocks
// instead of parsing the window's JSON again.
//
// Written by a full load, on the parser's thread, right after TimelineBuilder::prepareFile: the
// file's tracks as the model holds them — sorted, nested (parent, depth), flags, name ids into
// the file's own name table, args texts — in chunks of up to kChunkEvents events of one track.
// Each chunk is self-contained: its distinct args texts, then seven varints per event
// (ChunkCodec, chunkcodec.h, has the bytes and a worked example). The directory (the log's stamp, the name
// table, every track's thread fields and its chunks' [min start, max end], offset, length and
// hash; the message records' chunks; the counters; the parse's problems) is at the end of the
// file. The `msg` records are stored too, in file order, in chunks by time, so a window pairs
// its own into its arrows.
// The overdue flag is not stored (it depends on the timer config of the job, not on the log):
// the reader applies the config's rule as prepareFile does.
//
// File: `<log>.sevt` in the same place as the log's `.sidx` (CacheFile::placeFor). Layout: the
// chunks, then the directory as a CacheFile record (magic SYNCEVT1, version, own hash), then
// 8 bytes: the directory's offset. A store is used only when its directory checks out (magic,
// version, hash, lengths, chunks inside the file, counts add up) and describes the log as it is
// now (LogFileStamp); a chunk whose bytes do not hash to the directory's value, or that does not
// decode to exactly its event count, fails the read (the caller then loads the whole job).
// Disk cost on the realistic shape: 25.2 bytes per event, 17.6 of them for the events and 7.6 for
// the `msg` records (1,024 workers; docs/scale.md "Measured").
// Threading: values; write/open/read from any thread (one file per call).
#pragma once

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/parse/parsedfile.h"

#include "sync/clockmap.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace syncline::load {

class WindowTest;

class EventStore
{
public:
    // 2: the msg records (1 had only the events; its files are ignored and rewritten); 3: the
    // stamp's ctime and tail hash; 4: each problem's kind. A store of another version is
    // refused (CacheFile::Reader) and rewritten by the next full load.
    static constexpr uint32_t kVersion = 4;
    static constexpr uint32_t kChunkEvents = 1024;

    struct Chunk
    {
        uint32_t count = 0;
        int64_t minStart = 0, maxEnd = 0; // local ns over the chunk's events
        uint64_t offset = 0;              // in the file
        uint32_t length = 0;
        uint64_t hash = 0;
    };
    struct Track
    {
        int64_t tid = 0, pid = 0;
        bool async = false;
        std::string category, threadName;
        uint32_t maxDepth = 0;
        uint64_t events = 0;
        std::vector<Chunk> chunks;
    };

    LogFileStamp stamp;
    bool usable = false, rankKnown = true;
    std::vector<std::string> names; // the file's name table, by id
    std::vector<Track> tracks;
    // The `msg` records in file order, in chunks of kChunkEvents (minStart/maxEnd: their
    // smallest and largest local time); per record the time (delta), track and direction, id.
    std::vector<Chunk> messageChunks;
    std::vector<CounterTrack> counters;
    std::vector<LoadProblem> problems; // the full parse's
    int64_t storedBytes = 0;           // the file's size

    // Where a read interns the chunks' args texts: into `store` under `mutex` (the job's store,
    // so that a window's texts are interned once, not per file and then again per job; the
    // ParsedFile is then marked argsInTimelineStore), or, with no store, into the file's own.
    struct ArgSink
    {
        ArgStore *store;
        std::mutex *mutex;
    };

    static std::string pathFor(const std::string &logPath, bool beside);
    // Writes the store of `file` (a prepared ParsedFile of `logPath`, args still in file.args),
    // beside the log or else in the cache dir; "" when neither could be written.
    static std::string write(const std::string &logPath, const ParsedFile &file,
                             const LogFileStamp &stamp);
    // The directory of the valid store of `logPath` (its stamp equal to the log's now).
    // With `anyStamp`, also a store whose stamp is not the log's now (a grown log: LogExtension
    // checks the log against it).
    static std::optional<EventStore> open(const std::string &logPath, std::string *why = nullptr,
                                          bool anyStamp = false);

    // Decodes into `out` (its worker's tracks replaced, names and args filled) exactly the
    // events overlapping [begin, end] in global ns through `map` (WindowReader::cutTrack's
    // rule), with their parents re-pointed, and the overdue flag by `kinds`, and the `msg`
    // records whose global time lies in [begin, end] (with withMessages; else none). Reads only the chunks whose
    // [min start, max end] meets [aLocal, bLocal]. False (and *why) when the
    // store's file changed, a chunk is corrupt or cannot be read.
    bool read(const sync::ClockMap &map, int64_t begin, int64_t end, int64_t aLocal, int64_t bLocal,
              EventKindLookup &kinds, ParsedFile &out, int64_t *bytesRead, std::string *why,
              bool withMessages = true, const ArgSink &sink = {nullptr, nullptr}) const;
    // Decodes every event, message record, counter and problem into `out`: the log as the
    // full parse that wrote the store prepared it (tracks sorted and nested; the overdue flag
    // not applied). False (and *why) when a chunk is damaged.
    bool readAll(ParsedFile &out, std::string *why = nullptr) const;
    // Appends to this store what `file` (the grown log, prepared, args still in file.args, its
    // first tracks and message records the ones readAll gave) holds beyond `before` (the tracks
    // as readAll gave them): per track, the chunks whose events did not change stay as they are
    // on disk; the changed ones, the new events and the new message records are encoded and
    // written after the file's old end, followed by a new directory for `stamp`. When the superseded bytes would
    // outweigh the live ones, the store is written anew instead. False when nothing was written.
    bool extend(const ParsedFile &file, const std::vector<EventTrack> &before,
                const LogFileStamp &stamp) const;

    const std::string &path() const { return m_path; }

private:
    // read() and readAll(): `in` null keeps every event; `maxNs` (per name, the config's
    // expected maximum; empty: none) sets the overdue flag; `denseArgs` lets a track whose
    // kept events mostly have args hold them as argDense (EventTrack::compactArgs' rule).
    bool decode(const WindowTest *in, int64_t aLocal, int64_t bLocal,
                const std::vector<int64_t> &maxNs, ParsedFile &out, int64_t *bytesRead,
                std::string *why, bool withMessages, const ArgSink &sink, bool denseArgs) const;

    std::string m_path; // the store file opened
};

} // namespace syncline::load
