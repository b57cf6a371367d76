// LineScanner — a hand-written, validating JSON scanner for one line of a syncline v1 log
// (one JSON object). It is the bulk fast path: no DOM, no allocation in the common case (strings
// without escapes are views into the line; escaped ones are decoded into per-field scratch).
// The full JSON grammar is accepted (any key order, nested objects/arrays under unknown keys,
// \uXXXX escapes); anything invalid is rejected with a reason and a 1-based column.
// Known integer fields must be JSON integers (docs/log-format.md: "no exponent, no fraction").
// Fast path: lines in the recorder's exact layout are matched without the generic walk.
// The JSON reading itself (strings, numbers, skipping values) is JsonCursor's.
// Threading: one scanner per thread.
#pragma once

#include "timeline/load/log/jsoncursor.h"
#include "timeline/load/log/logrecord.h"

#include <string>
#include <string_view>

namespace syncline::load {

class LineScanner
{
public:
    // Returns false and sets error()/errorColumn() when the line is not a valid record object.
    // Fields a record type does not carry may keep values from an earlier line for B/E/X/I
    // records (read only the fields of the record's type, and has* flags).
    bool scan(std::string_view line, LogRecord &out);
    const std::string &error() const { return m_json.error(); }
    size_t errorColumn() const { return m_json.errorOffset() + 1; }

private:
    // A known field's destination in LogRecord: value (null when the key is not one of this
    // kind), its has* flag (null when the field has none), its name for error messages and, for
    // strings, the JsonCursor scratch slot its decoded text goes to.
    struct IntField
    {
        int64_t *value = nullptr;
        bool *has = nullptr;
        const char *name = nullptr;
    };
    struct StringField
    {
        std::string_view *value = nullptr;
        bool *has = nullptr;
        const char *name = nullptr;
        int slot = 0;
    };

    // The recorder's own layout, {"t":"B","ts":N[,"dur":N],"tid":N,"name":"..."[,"args":{...}]},
    // checked byte by byte; false (nothing decided) for anything else, which then takes the
    // generic path. Accepts only lines that are valid JSON.
    bool scanCanonical(std::string_view line, LogRecord &out);
    bool scanGeneric(std::string_view line, LogRecord &out);
    bool parseValue(LogRecord &out);
    bool parseField(std::string_view key, LogRecord &out);
    static IntField intField(std::string_view key, LogRecord &out);
    static StringField stringField(std::string_view key, LogRecord &out);
    // At a string value of field `name` (an error naming it otherwise); sets *has when given.
    bool readString(std::string_view &value, bool *has, int slot, const char *name);

    JsonCursor m_json;
};

} // namespace syncline::load
