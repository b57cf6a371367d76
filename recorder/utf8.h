// Utf8 — strict UTF-8 checks (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF) — the one rule the recorder's record formatter (invalid bytes written as \ufffd) and
// the timeline use — and the two repairs the timeline makes of text it did not write itself:
//  - replaceInvalid(): every invalid byte becomes U+FFFD (EF BF BD), so a name or an args object
//    read from a log is valid UTF-8 in every export (JSON, CSV) and in Python;
//  - terminalSafe(): what a CLI verb prints of such text (names, hosts, paths, problems):
//    control characters (C0, DEL, C1) and invalid bytes written as \xNN, so a log cannot send
//    escape sequences to the user's terminal (set its title, clear it, fake coloured errors).
// Example: "ok\xff\x1b[2J" → replaceInvalid: "ok\uFFFD\x1b[2J"; terminalSafe: "ok\xff\x1b[2J"
// printed as the 14 visible characters `ok\xff\x1b[2J`.
// Pure functions; no threading rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace syncline::utf8 {

// Length of the valid UTF-8 sequence starting at s[i] (1..4), 0 when s[i] starts none.
inline size_t sequenceLength(std::string_view s, size_t i)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80)
        return 1;
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; // overlong
        if (c == 0xED)
            hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; // overlong
        if (c == 0xF4)
            hi = 0x8F; // past U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size() || b(1) < lo || b(1) > hi)
        return 0;
    for (size_t k = 2; k < n; ++k)
        if ((b(k) & 0xC0) != 0x80)
            return 0;
    return n;
}

inline bool isValid(std::string_view s)
{
    // ASCII (what nearly every name and args text is) eight bytes at a time.
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ull)
            break;
    }
    while (i < s.size()) {
        const size_t n = sequenceLength(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

// s with each byte that starts no valid sequence replaced by U+FFFD; *replaced counts them.
inline std::string replaceInvalid(std::string_view s, size_t *replaced = nullptr)
{
    std::string out;
    out.reserve(s.size() + 8);
    size_t count = 0;
    for (size_t i = 0; i < s.size();) {
        const size_t n = sequenceLength(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++count;
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    if (replaced)
        *replaced = count;
    return out;
}

// s for a terminal: C0 controls (also tab and newline), DEL, C1 controls (U+0080..U+009F),
// and invalid bytes are written as \xNN; everything else (valid UTF-8) is kept.
inline std::string terminalSafe(std::string_view s)
{
    static const char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    const auto escape = [&](unsigned char c) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    };
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const size_t n = sequenceLength(s, i);
        if (n == 0 || c < 0x20 || c == 0x7F) {
            escape(c);
            ++i;
        } else if (n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
            escape(c); // C1 control (U+0080..U+009F, e.g. CSI)
            escape(static_cast<unsigned char>(s[i + 1]));
            i += 2;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

} // namespace syncline::utf8
