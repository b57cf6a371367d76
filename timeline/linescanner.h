// LineScanner — a hand-written, validating JSON scanner for one line of a syncline v1 log
// (one JSON object). It is the bulk fast path: no DOM, no allocation in the common case (strings
// without escapes are views into the line; escaped ones are decoded into per-field scratch).
// The full JSON grammar is accepted (any key order, nested objects/arrays under unknown keys,
// \uXXXX escapes); anything invalid is rejected with a reason and a 1-based column.
// Known integer fields must be JSON integers (docs/log-format.md: "no exponent, no fraction").
// Fast path: lines in the recorder's exact layout are matched without the generic walk.
// Threading: one scanner per thread.
#pragma once

#include "logrecord.h"

#include <string>
#include <string_view>

namespace syncline {

class LineScanner
{
public:
    // Returns false and sets error()/errorColumn() when the line is not a valid record object.
    // Fields a record type does not carry may keep values from an earlier line for B/E/X/I
    // records (read only the fields of the record's type, and has* flags).
    bool scan(std::string_view line, LogRecord &out);
    const std::string &error() const { return m_error; }
    size_t errorColumn() const { return m_errorPos + 1; }

private:
    // The recorder's own layout, {"t":"B","ts":N[,"dur":N],"tid":N,"name":"..."[,"args":{...}]},
    // checked byte by byte; false (nothing decided) for anything else, which then takes the
    // generic path. Accepts only lines that are valid JSON.
    bool scanCanonical(std::string_view line, LogRecord &out);
    bool fail(const char *p, const char *why);
    void skipWs()
    {
        const char *p = m_p;
        while (p < m_end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            ++p;
        m_p = p;
    }
    bool parseString(std::string_view &out, int scratch);
    bool parseInt(int64_t &out, const char *key);
    bool skipValue(int depth);
    bool skipNumber();
    bool parseField(std::string_view key, LogRecord &out);

    const char *m_begin = nullptr;
    const char *m_p = nullptr;
    const char *m_end = nullptr;
    std::string m_scratch[8];
    std::string m_error;
    size_t m_errorPos = 0;
};

} // namespace syncline
