// LogIndex — the time index of one syncline log (docs/scale.md "Windowed opening"): checkpoints
// at line boundaries about every kInterval bytes, each with the byte offset and line number, the
// largest local time of any record before it, the smallest start of the events whose first line
// lies in the block after it, and the events still open there (their B lines are before the
// checkpoint, their ends after it). Those open events ("spans") are stored whole — tid, local
// start and end as the full parse found them, flags, name and args — so a windowed read can
// start at any checkpoint with the right ancestors and give events that end after its last
// block their true end. The log's sync samples, wall-clock pairs, thread names and the worker
// fields a full parse ends with (first/last local time, heartbeat, drops, close) are stored too:
// clock correction and the clock panel always see every sample.
//
// File: `<log dir>/.syncline-index/<log name>.sidx`, or, when that directory cannot be written,
// `$XDG_CACHE_HOME/syncline/index/<hash of the log dir>/<log name>.sidx` (~/.cache without
// XDG_CACHE_HOME). Binary, little-endian, version kVersion; it describes the log by its LogFileStamp (size,
// mtime, ctime, inode, hashes of its first and last 4 KiB), and ends with a hash of its own bytes. An index that does
// not match its log in every one of those, or fails its own hash, is ignored (and rebuilt by the
// next full load) — never trusted.
//
// Threading: a LogIndex is a value; Builder is used by the thread parsing its file; load/store
// are safe from any thread (stores go through a temporary file and rename).
#pragma once

#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/store/cachefile.h"

#include "sync/clocksample.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace syncline::load {

class LogParser;

// The identity of a log file its caches were made from: the one stamp rule of the store. A
// cache is used only when the log's stamp now equals the one it was written with (every field);
// written into the index and the event store (write/read), and into the key of the correction
// and link caches (text). A log rewritten in place with its size, inode, first bytes and even
// its mtime kept (a tool that restores the time) still changes its ctime (which no user can
// set) and, almost always, its last bytes.
struct LogFileStamp
{
    int64_t size = 0;
    int64_t mtimeNs = 0;
    int64_t ctimeNs = 0;
    uint64_t inode = 0;
    uint64_t headHash = 0; // FNV-1a 64 of the first min(4096, size) bytes
    uint64_t tailHash = 0; // FNV-1a 64 of the last min(4096, size) bytes
    bool operator==(const LogFileStamp &) const = default;
    static std::optional<LogFileStamp> of(const std::string &path);
    void write(CacheFile::Writer &w) const;
    static LogFileStamp read(CacheFile::Reader &r);
    // The fields as one line of text (the correction and link caches' key).
    std::string text() const;
};

struct LogIndex
{
    // 2: the continuation (a grown log is extended, LogExtension); 3: the stamp's ctime and
    // tail hash; 4: the wall-clock pairs (log format 1.2); 5: the recorder notes in the
    // continuation. Files of other versions are rebuilt.
    static constexpr uint32_t kVersion = 5;
    static constexpr size_t kInterval = 256 << 10; // bytes between checkpoints (default)

    struct Checkpoint
    {
        int64_t offset = 0;
        int64_t line = 0;                      // lines before it
        int64_t maxTsBefore = INT64_MIN;       // largest local ts of any record before it
        int64_t minStartAfter = INT64_MAX;     // smallest start of events first seen in its block
        uint32_t openBegin = 0, openCount = 0; // into openSpans
    };
    struct Span
    {
        int64_t tid = 0;
        int64_t localStart = 0;
        int64_t localEnd = 0;
        uint16_t flags = 0; // the full parse's (EventOpen when it never ended)
        std::string name;
        std::string args; // "" = none
    };
    // Where the parse of this log can be taken up again when the log grows (LogExtension,
    // docs/scale.md "A growing log"): the end of its last complete line, the lines before it,
    // a hash of the (up to) 4 KiB before it, and per thread the last time the parser's order
    // check saw (its B starts and E ends). `possible` is false when the parse's state there is
    // not all in the store and this index (a problem other than the open-events note, no
    // header, a valid record without its '\n' at the end, no time at all): a grown log is then
    // parsed whole.
    struct Continuation
    {
        bool possible = false;
        int64_t offset = 0, line = 0;
        uint64_t tailHash = 0;
        int64_t firstTid = 0; // the parse's first thread (a record without tid belongs to it)
        std::vector<std::pair<int64_t, int64_t>> lastOrderTs; // (tid, local ns)
        // The recorder's `note` records before `offset` (line, the problem's message), in
        // order: the parse's only problems there (LogParser::restoreNotes). A log with more
        // than ProblemLog::kShownPerKind of them, or with any other problem, has no
        // continuation (the counts of a summarised kind would not carry over).
        std::vector<std::pair<int64_t, std::string>> notes;
    };

    // Bytes of the header line at the start of the log at `path` (0 when its first line is not
    // a header): what headerEnd must be.
    static int64_t headerLengthOf(const std::string &path);

    LogFileStamp stamp;
    int64_t headerEnd = 0; // bytes of the header line (0 when the first line is not a header)
    std::vector<Checkpoint> checkpoints; // checkpoints[0] is offset 0
    std::vector<uint32_t> openSpans;     // per checkpoint, bottom to top per tid
    std::vector<Span> spans;
    std::vector<std::pair<int64_t, std::string>> threadNames;
    std::string refId;
    std::vector<sync::ClockSample> samples;
    std::vector<WallPair> wallPairs;
    int64_t firstLocalNs = 0, lastLocalNs = 0, lastHeartbeatLocalNs = 0, droppedEvents = 0;
    bool closedCleanly = false;
    int64_t events = 0;
    Continuation resume;

    // Where the index of `logPath` is (beside it, else in the cache dir). `beside` selects.
    static std::string pathFor(const std::string &logPath, bool beside);
    // The valid index of `logPath`, if one exists beside it or in the cache dir: its stamp
    // matches the log's now, version and own hash check out. *why (when given) says why not.
    // With `anyStamp`, also an index whose stamp is not the log's now (LogExtension checks the
    // grown log against it).
    static std::optional<LogIndex> load(const std::string &logPath, std::string *why = nullptr,
                                        bool anyStamp = false);
    // Reads one index file (no comparison with the log). nullopt when corrupt or another version.
    static std::optional<LogIndex> read(const std::string &indexPath, std::string *why = nullptr);
    // Writes beside the log, else into the cache dir; returns the path written ("" when neither
    // could be written: the job still loads, without an index).
    std::string store(const std::string &logPath) const;

    // The parser's "N event(s) without an end, kept as open" note (it counts the events open at
    // the end of what was read, so a read of part of a log, or of a grown log, makes its own).
    static bool isOpenEventsNote(const LoadProblem &p);
    // The whole-file fields (sync samples, thread names, first/last local time, heartbeat, drops,
    // close, event count) from a finished parse of the log.
    void setWholeFile(const ParsedFile &file);
    // Appends the checkpoints of `more` (an index of the log's new bytes, whose spans refer to
    // its own) after this index's.
    void append(const LogIndex &more);

    // Blocks [lo, hi) a read of local times [a, b] needs (hi may be checkpoints.size(): to EOF).
    std::pair<size_t, size_t> blocksFor(int64_t a, int64_t b) const;

    // Collects checkpoints while LogParser::parseFile runs, then the spans from the finished
    // (not yet sorted) file.
    class Builder
    {
    public:
        void checkpoint(const LogParser &parser);
        LogIndex finish(const ParsedFile &file, const LogFileStamp &stamp, int64_t headerEnd);

    private:
        struct Snap
        {
            LogIndex::Checkpoint cp;
            std::vector<uint32_t> trackSizes;
            std::vector<std::pair<uint32_t, uint32_t>> open; // (track, event)
        };
        std::vector<Snap> m_snaps;
    };
};

} // namespace syncline::load
