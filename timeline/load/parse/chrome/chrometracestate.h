// ChromeTraceState — what one attempt at reading a Chrome Trace Event file accumulates
// (ChromeTraceParser drives it; a retry after repairing truncated text starts a fresh one).
//
// parse() walks the simdjson on-demand document (a bare array or {"traceEvents": [...]}):
// X → a complete event, i/I/R → an instant, B/E → kept per track and matched in time order by
// finish() (Chrome's rule: an E ends the most recent open B of its thread, whatever its name),
// s/t/f → flow points, M process_name/process_labels/thread_name/process_sort_index → track
// names and order (kinetoview.h), C → counter series (one per
// (pid, name [+ id], args key); numeric values only), b/e/n → async spans matched per
// (pid, cat, id, scope) by finish() and laid out in lanes per (pid, cat) (ChromeAsyncLanes); other
// phases are counted and reported once. One track per (pid, tid) token pair; a string pid/tid gets a synthetic negative
// id. Times are the trace's µs converted exactly to ns (ChromeTraceParser::microsToNs).
// finish() matches B/E, names the tracks ("process / thread"), picks the worker's pid (the one
// with most events), adds `baseTimeNanoseconds` (PyTorch 2.4+ writes `ts` as µs relative to this
// top-level field, which comes after traceEvents: the base is added to every time once all is
// read, in integer ns, so nothing is rounded) and returns the ParsedFile with its problems.
// `displayTimeUnit` ("ms"/"ns") only says how a viewer displays times (Chrome's spec: ts and dur
// are µs whatever it says); it is read and checked, never used to scale.
// Threading: one state per parse, used by one thread.
#pragma once

#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/parse/problemlog.h"

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncline::load {

class ChromeTraceState
{
public:
    explicit ChromeTraceState(const std::string &path);
    // Throws (simdjson_error, std::runtime_error) when the document is not a readable trace.
    void parse(simdjson::ondemand::document &doc);
    ParsedFile finish();
    // `s` without trailing blanks (simdjson's raw tokens keep the whitespace that follows them).
    static std::string_view trimmed(std::string_view s);
    // A field's key and a string value, unescaped only when they hold an escape (else the
    // document's own bytes: valid while the document is).
    static std::string_view keyOf(simdjson::ondemand::field &field);
    static std::string_view stringOf(simdjson::ondemand::value &v);

    ProblemLog problems;
    std::optional<int> rank; // distributedInfo.rank
    int64_t baseTimeNs = 0;  // baseTimeNanoseconds (0: ts are absolute)
    int64_t events = 0;

private:
    // The fields of one trace event; pid/tid/ts/dur/id as raw JSON tokens (trimmed).
    struct Event
    {
        std::string_view ph, name, cat, pidTok = "0", tidTok = "0", tsTok, durTok, idTok, bp,
                                        argsRaw, scope;
    };
    struct BeginEnd
    {
        int64_t ts = 0;
        uint32_t seq = 0;
        bool begin = true;
        uint32_t nameId = 0;
        std::string args;
    };
    struct TrackState
    {
        std::string pidToken, tidToken;
        std::vector<BeginEnd> beginEnds;
    };

    static Event readEvent(simdjson::ondemand::value el);
    void handleEvent(simdjson::ondemand::value el);
    void handleMetadata(const Event &ev);
    void readRank(simdjson::ondemand::value v);
    void readBaseTime(simdjson::ondemand::value v);
    void applyBaseTime();
    void addFlow(uint32_t track, int64_t ts, const Event &ev);
    void addSlice(uint32_t track, int64_t ts, const Event &ev);
    void addCounter(int64_t ts, const Event &ev);
    void addAsync(int64_t ts, const Event &ev);
    void finishAsync();
    int64_t pidOf(std::string_view pidTok);
    // kNoTrack for a new (pid, tid) once the trace has ParsedFile::kMaxTracks tracks.
    static constexpr uint32_t kNoTrack = UINT32_MAX;
    uint32_t trackFor(std::string_view pidTok, std::string_view tidTok);
    void seeTime(int64_t t);
    void matchBeginEnds(uint32_t ti);
    // kinetoview.cpp: M records, track names and order (Kineto's conventions).
    void nameTracks();
    std::string processLabel(const std::string &pidToken) const;
    int64_t processOrder(const std::string &pidToken) const;

    ParsedFile m_out;
    std::unordered_map<std::string, uint32_t> m_trackIndex;
    std::vector<TrackState> m_tracks;
    std::unordered_map<std::string, uint32_t> m_counterIndex; // pid, name, series → counter
    struct AsyncPoint
    {
        int64_t ts = 0;
        uint32_t seq = 0;
        char ph = 'b';
        uint32_t nameId = 0;
        std::string args;
    };
    struct AsyncKey
    {
        std::string pidToken, cat;
        std::vector<AsyncPoint> points;
    };
    std::unordered_map<std::string, uint32_t> m_asyncIndex; // pid, cat, id, scope → m_async
    std::vector<AsyncKey> m_async;
    std::map<std::string, std::string> m_processNames;
    std::map<std::string, std::string> m_processLabels; // process_labels ("CPU", "GPU 0")
    std::map<std::string, int64_t> m_processOrder;      // process_sort_index
    std::map<std::string, std::string> m_threadNames;
    std::map<int64_t, int64_t> m_pidCounts;
    std::map<std::string, int64_t> m_unsupported;
    uint32_t m_seq = 0;
    bool m_anyTime = false;
    int64_t m_synthetic = 0;
};

} // namespace syncline::load
