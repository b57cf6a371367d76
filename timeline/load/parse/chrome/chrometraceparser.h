// ChromeTraceParser — reads a Chrome Trace Event JSON file (PyTorch profiler / Kineto,
// Horovod-style timelines, chrome://tracing output) into one ParsedFile = one worker.
//
// Accepted: a bare array or {"traceEvents": [...]} with other keys in any order, plain or gzip'd
// (GzipInput, recognised by content; a damaged stream loads as far as it inflates); an array never
// closed (Horovod writes no closing bracket: the text is cut after the last complete event and
// closed); `ts`/`dur` in µs with a fractional part (converted exactly to ns from the text);
// X (complete), B/E (matched per pid/tid in time order; an E may carry no name), i/I/R
// (instants), M metadata (process_name / thread_name name the tracks), s/t/f flow points (kept);
// numeric or string pid/tid (a string gets a synthetic negative id and names the track; a
// number is read as an integer, exactly: parseId).
// The rank is `distributedInfo.rank` when present, else digits of the file name.
// One track per (pid, tid). Times are local = the trace's own µs clock in ns.
// Parsing uses simdjson on-demand (no DOM). Threading: one parser per file.
#pragma once

#include "timeline/load/parse/parsedfile.h"

#include <atomic>
#include <string>
#include <string_view>

namespace syncline::load {

class ChromeTraceParser
{
public:
    static ParsedFile parseFile(const std::string &path, const std::atomic<bool> *cancel = nullptr);
    // "1682725898236567.25" (µs) → 1682725898236567250 ns; false when not a plain number or
    // past ±kMaxTimeNs (parsedfile.h).
    static bool microsToNs(std::string_view text, int64_t &ns);
    // An id (pid, tid, flow id) as the integer its JSON token spells, exactly (2^53 + 1 stays
    // 9007199254740993; ids never go through the µs → ns conversion). `asUnsigned` also takes
    // 2^63 .. 2^64 − 1 (flow ids are 64-bit patterns), stored as their two's-complement bits.
    // A fraction of zeros ("7.0", what a float-writing exporter gives) is the integer.
    enum class IdToken
    {
        Integer,     // `id` set
        Text,        // a JSON string, an id2 object (or nothing): a name, not a number
        NotInteger,  // a number with a fraction or an exponent, or not a number at all
        OutOfRange   // an integer past int64 (past uint64 with asUnsigned)
    };
    static IdToken parseId(std::string_view token, int64_t &id, bool asUnsigned = false);
    static const char *idProblem(IdToken t); // why a token is not an id ("" for Integer, Text)
    // The shortest prefix of `text` ending after a complete value plus the brackets that close
    // it, e.g. `[{"a":1},{"b":` → `[{"a":1}]`. Empty when nothing can be salvaged, or when a
    // bracket closes what it does not open (unless `cutAtMismatch`: the text is known damaged
    // from some point, e.g. a corrupt gzip stream, and what precedes the mismatch is closed).
    static std::string closeTruncated(std::string_view text, bool cutAtMismatch = false);
};

} // namespace syncline::load
