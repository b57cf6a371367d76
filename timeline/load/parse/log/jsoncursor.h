// JsonCursor — a validating reader over one piece of JSON text (a log line), used by
// LineScanner: strings, integers, numbers and whole values are read or skipped at the cursor
// position, and anything invalid sets a reason and the byte offset where it was found.
//
// Strings without escapes come back as views into the text (no allocation); escaped ones are
// decoded into one of kScratchSlots per-cursor buffers chosen by the caller (so several decoded
// fields of one record can be alive at once), or only validated (slot < 0). \uXXXX escapes,
// surrogate pairs (a lone surrogate becomes U+FFFD) and the JSON number grammar are handled in
// full; values nest at most 64 deep.
// Invariants: begin() <= pos() <= end(); views stay valid until the next reset() or the next
// decode into the same slot.
// Threading: one cursor per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace syncline::load {

class JsonCursor
{
public:
    static constexpr int kScratchSlots = 8;

    // Reads `text`, starting at `at` (default: its first byte).
    void reset(std::string_view text, const char *at = nullptr)
    {
        m_begin = text.data();
        m_end = m_begin + text.size();
        m_p = at ? at : m_begin;
    }
    const char *begin() const { return m_begin; }
    const char *pos() const { return m_p; }
    const char *end() const { return m_end; }
    bool atEnd() const { return m_p >= m_end; }
    // True when the next byte is c (false at the end).
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    void advance() { ++m_p; }
    void skipWs()
    {
        const char *p = m_p;
        while (p < m_end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            ++p;
        m_p = p;
    }

    // At a '"': the string's contents (decoded into scratch slot `slot` when it has escapes;
    // slot < 0 validates only and returns an empty view for escaped strings).
    // Fast path inline: a run of plain bytes ending in '"' is a view of the text; the first
    // backslash or control character hands over to decodeEscaped().
    bool parseString(std::string_view &out, int slot)
    {
        const char *start = ++m_p;
        const char *p = start;
        const char *const end = m_end;
        while (p < end) {
            const unsigned char c = static_cast<unsigned char>(*p);
            if (c == '"') {
                out = std::string_view(start, size_t(p - start));
                m_p = p + 1;
                return true;
            }
            if (c == '\\' || c < 0x20)
                break;
            ++p;
        }
        m_p = p;
        return decodeEscaped(start, out, slot);
    }
    // A JSON integer (no fraction, no exponent, fits int64); errors name `key`.
    bool parseInt(int64_t &out, const char *key);
    bool skipNumber();
    // Any JSON value, nested at most 64 - depth deep.
    bool skipValue(int depth);

    // Records an error at p; always returns false.
    bool fail(const char *p, const char *why);
    bool fail(const char *p, std::string why);
    const std::string &error() const { return m_error; }
    size_t errorOffset() const { return m_errorPos; }

private:
    bool decodeEscaped(const char *start, std::string_view &out, int slot);
    bool decodeUnicode(std::string &buf);
    bool hex4(uint32_t &v);
    bool skipContainer(int depth);

    const char *m_begin = nullptr;
    const char *m_p = nullptr;
    const char *m_end = nullptr;
    std::string m_scratch[kScratchSlots];
    std::string m_error;
    size_t m_errorPos = 0;
};

// JSON text `s` with each `\u` escape of a lone surrogate (U+D800..U+DFFF outside a high-low
// pair) written as \ufffd — the rule decodeUnicode applies when it decodes, for text kept as
// written (args); a pair and other escapes (`\\` among them) are copied. Returns the count.
size_t replaceLoneSurrogateEscapes(std::string_view s, std::string &out);

} // namespace syncline::load
