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

#include "timeline/load/parse/log/jsoncursor.h"
#include "timeline/load/parse/log/logrecord.h"

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
    // The bulk path (LogParser::feed): a line at `p` in a buffer that ends at `bufEnd`, in the
    // recorder's own layout of a B/E/X/I or msg record (no blanks, no escapes; args a flat
    // object) and ending in '\n'. On success *lineEnd is that '\n' and `out` holds exactly what
    // scan() of the line [p, *lineEnd) would give for the fields the record type is read by;
    // false (nothing decided, no error set) for anything else, which the caller then splits
    // into a line and scan()s. No separate search for the line's end: the record's own layout
    // finds it.
    bool scanAt(const char *p, const char *bufEnd, LogRecord &out, const char **lineEnd);
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
    const char *eventLayout(const char *p, const char *end, LogRecord &out, std::string_view line,
                            unsigned *bits);
    // scanAt's msg layout, {"t":"msg","ts":N,"tid":N,"dir":"...","peer":N,"id":"..."}; p at its
    // first byte.
    bool scanMsgAt(const char *p, const char *bufEnd, LogRecord &out, const char **lineEnd);
    // At a '{': the end of a flat object with no blanks and no escapes ({"k":v,...}, v an
    // integer, a number, a string, true, false or null) within [p, end); nullptr for anything
    // else (which JsonCursor::skipValue then reads in full).
    // `bits` collects the OR of its strings' bytes.
    static const char *flatObject(const char *p, const char *end, unsigned &bits);
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
