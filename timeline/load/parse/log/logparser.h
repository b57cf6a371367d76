// LogParser — reads one syncline v1 log (docs/log-format.md) into a ParsedFile, following the
// format's reading rules: header first (else the rank comes from the file name, else the loader
// gives the worker the next free rank: rankKnown false, still usable), blank lines
// skipped, a torn last line skipped silently, every other bad line reported with file:line and
// reason; per thread, E matched to the innermost open B of the same name (an E without an open
// event, or with another name, is reported and dropped); B without E kept as open, ending at the
// worker's last local time seen.
// Names and args are kept valid UTF-8: an invalid byte becomes U+FFFD, reported with the line.
// Incremental: feed() consumes whole lines and returns the bytes consumed (a live reader feeds
// the rest again later); finish() treats what is left as the torn last line.
// Resumable: snapshot() is the state at a line boundary that the rest of the file depends on
// (open events, order checks, sync samples, local time range, heartbeat, drops, close);
// restore() puts such a state into a parser that has read only the header line, so that the
// bytes after that boundary parse as they would have in one pass (LogExtension: a grown log).
// Threading: one parser per file, used by one thread.
#pragma once

#include "timeline/load/parse/log/linescanner.h"
#include "timeline/load/parse/log/syncsampleset.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/parse/problemlog.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncline::load {

class LogParser
{
public:
    explicit LogParser(std::string path);
    // Parses the complete lines of `text` (which continues the previous feed); returns the number
    // of bytes consumed (up to and including the last '\n').
    size_t feed(std::string_view text);
    // Ends the file: `tail` is what follows the last '\n' (a torn line unless it is a valid
    // record).
    ParsedFile finish(std::string_view tail = {});

    // Reads the whole file; returns a ParsedFile whose problems explain any failure.
    static ParsedFile parseFile(const std::string &path, const std::atomic<bool> *cancel = nullptr);
    // The same, calling `checkpoint(parser)` at line boundaries about every `interval` bytes
    // (and once at offset 0), between feeds: LogIndex records the position and open stacks there.
    static ParsedFile parseFile(const std::string &path, const std::atomic<bool> *cancel,
                                const std::function<void(const LogParser &)> &checkpoint,
                                size_t interval);
    // True when the first line of `head` looks like a syncline log record.
    static bool sniff(std::string_view head);
    // The parse state at a line boundary that the rest of the file depends on.
    struct Resume
    {
        struct Open
        {
            int64_t localStart = 0;
            std::string name;
            std::string args; // the args object's text, empty for none
        };
        struct Thread
        {
            int64_t tid = 0;
            std::vector<Open> open;             // its open B events, outermost first
            std::optional<int64_t> lastOrderTs; // the order check's last time on it
        };
        std::vector<Thread> threads; // the tracks, in creation order (records without tid: first)
        std::vector<std::string> refs;
        std::vector<std::pair<uint32_t, sync::ClockSample>> samples; // (index into refs), in order
        std::vector<WallPair> wallPairs; // in order, each later than the one before
        std::optional<std::pair<int64_t, int64_t>> localRange; // first and last local time seen
        int64_t lastHeartbeatLocalNs = 0, droppedEvents = 0;
        bool closedCleanly = false;
        int64_t line = 0, bytes = 0; // where the parse goes on (lines read, bytes consumed)
    };
    // The state now (between feeds).
    Resume snapshot() const;
    // Puts `state` into this parser, which has been fed the header line (or nothing) and no
    // other record: each open event is taken as its B record would be (one more line: the same
    // checks, problems and order state), so the next E records close them; the rest becomes the
    // parser's state, and reading goes on at state.line / state.bytes. False when the state is
    // one no parse could have left (a time out of range, an inconsistent sample); a problem
    // (takeProblems) when restoring reported one (open events whose starts are out of order,
    // reported again as their B records would be): a caller that needs the exact state of a
    // parse without problems parses the file whole then.
    bool restore(const Resume &state);
    // After restore() (and a takeProblems() that found none): the recorder notes the old
    // bytes' parse reported, (line, message) in order, reported again as they were, so that
    // the problems of the whole file come out as one parse's (LogIndex::Continuation::notes).
    void restoreNotes(const std::vector<std::pair<int64_t, std::string>> &notes);

    // One line (without its '\n') read on its own: its record type when it is a valid record,
    // else nothing (the store asks whether a first line is a header, a fragment a whole record).
    static std::optional<RecordType> recordTypeOf(std::string_view line);

    // Live reading (LiveJob) between feeds, without finish(): the output so far — events in
    // arrival order, not sorted or nested, open ones flagged EventOpen with localEnd ==
    // localStart; sync samples so far as (index into syncRefs(), sample) in file order; and the
    // problems reported since the previous takeProblems().
    const ParsedFile &partial() const { return m_out; }
    const std::vector<std::pair<uint32_t, sync::ClockSample>> &partialSamples() const
    {
        return m_sync.all();
    }
    const std::vector<std::string> &syncRefs() const { return m_sync.refs(); }
    std::vector<LoadProblem> takeProblems() { return m_problems.take(); }
    // The next fed line is line 1 again (a live reader whose file was truncated goes on
    // reading its new content as more of the same log).
    void restartLineNumbers() { m_line = 0; }

    // Index support (LogIndex), between feeds: the lines read so far, whether any record carried
    // a time, and per track (index into partial().worker.tracks) the stack of open B events.
    int64_t line() const { return m_line; }
    bool anyTime() const { return m_anyTime; }
    const std::vector<std::vector<uint32_t>> &openStacks() const { return m_open; }
    // A windowed read continues at line `line`, byte `bytes` of the file (what lies before was
    // skipped), so problems keep their file:line.
    void seek(int64_t line, int64_t bytes)
    {
        m_line = line;
        m_out.bytes = bytes;
    }
    // Events to reserve for the first thread (parseFile sets it from the file's size).
    void reserveEvents(size_t n) { m_reserveHint = n; }

private:
    void handleLine(std::string_view line, bool last);
    void handleRecord(const LogRecord &r, std::string_view line);
    void handleHeader(std::string_view line);
    void handleEvent(const LogRecord &r); // B, X, I
    void handleEnd(const LogRecord &r);
    void handleSync(const LogRecord &r);
    void handleCounter(const LogRecord &r); // C (format 1.1)
    bool need(bool has, const char *what)
    {
        if (has) [[likely]]
            return true;
        missingKey(what);
        return false;
    }
    void missingKey(const char *what);
    // `text` when it is valid UTF-8; else a copy (in m_fixed[slot], valid until the next call
    // with that slot) with each invalid byte replaced by U+FFFD, and a problem for the line.
    std::string_view validText(std::string_view text, int slot, const char *what);
    // An args object as it is kept: valid UTF-8 (validText; `ascii`: known to be ASCII, no check)
    // and every `\u` escape of a lone surrogate (U+D800..U+DFFF outside a high-low pair: JSON
    // text that strict parsers refuse, so an export would be unreadable to them) as \ufffd, with
    // a problem for the line. Names need no such pass: the scanner decodes them (lone → U+FFFD).
    std::string_view validArgs(std::string_view text, bool ascii);
    // The id of `name` (valid UTF-8) in m_out.names, through a small cache.
    uint32_t nameId(std::string_view name);
    // The track of `tid`, created at its first record; kNoTrack (the record is dropped, and
    // reported) for a new tid once the file has ParsedFile::kMaxTracks tracks.
    static constexpr uint32_t kNoTrack = UINT32_MAX;
    uint32_t trackFor(int64_t tid);
    void seeTime(int64_t ts);
    // The wall-clock pair of an `hb`/`close` record (format 1.2), when it has one.
    void addWallPair(const LogRecord &r);
    void checkOrder(uint32_t track, int64_t ts);
    void finishSamples();
    // No rank from a header (`why`: none, or unreadable): the file name's, or the next free one.
    void rankFromFileName(std::string_view why);

    ParsedFile m_out;
    ProblemLog m_problems;
    LineScanner m_scanner;
    LogRecord m_record;
    int64_t m_line = 0;
    bool m_sawRecord = false;
    // A line that starts like a record ('{'): a file without one holds no syncline records at all
    // (launcher output, torchrun's logs) and is skipped with an Info, not an error.
    bool m_sawObjectLine = false;
    bool m_sawHeader = false;
    bool m_refused = false; // the header names a format version this reader does not know
    std::unordered_map<int64_t, uint32_t> m_trackIndex;
    // The first kFewTracks tids (index = track), scanned while the file has no more tracks.
    static constexpr size_t kFewTracks = 8;
    std::vector<int64_t> m_fewTids;
    std::vector<std::vector<uint32_t>> m_open; // per track: stack of open event indices
    // Per track that has had an E matching no innermost open event: its open events counted
    // per name id (what m_open holds), so handleEnd finds an enclosing event of the E's name in
    // O(1). Valid logs never build one.
    std::unordered_map<uint32_t, std::unordered_map<uint32_t, uint32_t>> m_openNames;
    std::vector<int64_t> m_lastTs;             // per track: last ts seen, for order checks
    // One-entry cache in front of m_trackIndex. Every int64 is a valid tid (INT64_MIN too), so
    // "no last track yet" is a flag, not a reserved tid value.
    bool m_hasLastTrack = false;
    int64_t m_lastTid = 0;
    uint32_t m_lastTrack = 0;
    std::string m_fixed[2]; // validText() / validArgs() scratch: 0 name, 1 args
    struct NameCacheEntry
    {
        std::string_view text; // a view of the table's own string
        uint32_t id = UINT32_MAX;
    };
    static constexpr size_t kNameCache = 64;
    NameCacheEntry m_nameCache[kNameCache];
    SyncSampleSet m_sync;
    std::unordered_map<std::string, uint32_t> m_counterIndex; // name → worker.counters index
    bool m_anyTime = false;
    size_t m_reserveHint = 0; // events to reserve for the first track
};

} // namespace syncline::load
