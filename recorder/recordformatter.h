// RecordFormatter — turns records into log-format v1 JSON Lines text (docs/log-format.md).
//
// Hand-written formatting (std::to_chars, cached escaped names) because the writer must keep up
// with millions of records per second; the header line is HeaderRecord's (nlohmann_json). Every
// function appends exactly one line ending in '\n' (formatArgs appends an object, no newline).
// Threading: stateless except the escaped-name cache of an instance, which belongs to the
// writer thread.
#pragma once

#include "recorder/eventargs.h"
#include "recorder/threadbuffer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace syncline::rec {

class RecordFormatter
{
public:
    // Appends one B/E/I/X/thread line for `r` of thread `tid`.
    void append(std::string &out, const Record &r, int64_t tid);

    static void appendEscaped(std::string &out, std::string_view s); // with quotes
    static void appendInt(std::string &out, int64_t v);
    static void appendDouble(std::string &out, double v); // shortest round-trip; null if !finite
    // `{"k":v,...}`
    static std::string formatArgs(const EventArgs &args);

    // `wallNs`/`wallSpreadNs`: the wall-clock read paired with `ts` (format 1.2; a negative
    // spread writes neither key).
    static void appendHeartbeat(std::string &out, int64_t ts, uint64_t events, uint64_t dropped,
                                uint64_t bufferFull, uint64_t bytes, int64_t wallNs = 0,
                                int64_t wallSpreadNs = -1);
    static void appendClose(std::string &out, int64_t ts, uint64_t events, uint64_t dropped,
                            int64_t open, int64_t wallNs = 0, int64_t wallSpreadNs = -1);
    static void appendNote(std::string &out, int64_t ts, std::string_view level,
                           std::string_view msg);
    static void appendSync(std::string &out, int64_t burst, int64_t seq, std::string_view ref,
                           int64_t t1, int64_t t2, int64_t t3, int64_t t4);

private:
    const std::string &escapedName(uint32_t id);
    std::vector<std::string> m_names; // id → `"escaped"`; empty string = not cached yet
};

} // namespace syncline::rec
