// TraceSniff — what a .json / .json.gz input is, from its first 64 KiB (inflated when the file
// is gzip'd, GzipInput), before anything parses it: a Chrome trace (a JSON array of objects, or
// an object naming "traceEvents" near its start), a JSON object that is something else (a
// timer_config.json, an unrelated config), another JSON value (a number, a string, an array of
// numbers …), or not JSON at all. `what` says it in words for the user ("a JSON number (42)",
// "gzip'd JSON object without \"traceEvents\" (keys: model, lr)").
// Threading: stateless; any thread.
#pragma once

#include <string>
#include <string_view>

namespace syncline::load {

struct TraceSniff
{
    enum class Kind
    {
        Trace,      // read it with ChromeTraceParser
        JsonObject, // an object without traceEvents (maybe a config)
        OtherJson,  // a JSON value that cannot be a trace
        NotJson,    // empty, or text that does not start like JSON
        Unreadable  // cannot be opened / inflated
    };
    Kind kind = Kind::NotJson;
    bool gzip = false;
    std::string what; // for messages; empty for a trace

    static TraceSniff of(const std::string &path);
    static TraceSniff ofText(std::string_view head, bool gzip);
    // "*.json", "*.json.gz" (so "*.pt.trace.json.gz"): the names a directory contributes as traces.
    static bool hasTraceName(std::string_view path);
};

} // namespace syncline::load
