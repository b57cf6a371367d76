// JsonCursor — see jsoncursor.h.
#include "timeline/load/parse/log/jsoncursor.h"

#include <cstring>

namespace syncline::load {

namespace {

void appendUtf8(std::string &s, uint32_t cp)
{
    if (cp < 0x80) {
        s += char(cp);
    } else if (cp < 0x800) {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += char(0xE0 | (cp >> 12));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    } else {
        s += char(0xF0 | (cp >> 18));
        s += char(0x80 | ((cp >> 12) & 0x3F));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    }
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The character a one-letter escape (\" \\ \/ \b \f \n \r \t) stands for; 0 for any other.
char simpleEscape(char e)
{
    switch (e) {
    case '"':
        return '"';
    case '\\':
        return '\\';
    case '/':
        return '/';
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return 0;
    }
}

bool isDigit(const char *p, const char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

// The value of the four hex digits at s[i], -1 when there are not four there.
int hex4At(std::string_view s, size_t i)
{
    if (i + 4 > s.size())
        return -1;
    int v = 0;
    for (size_t k = i; k < i + 4; ++k) {
        const int d = hexValue(s[k]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

} // namespace

bool JsonCursor::fail(const char *p, const char *why)
{
    m_errorPos = static_cast<size_t>(p - m_begin);
    m_error = why;
    return false;
}

bool JsonCursor::fail(const char *p, std::string why)
{
    m_errorPos = static_cast<size_t>(p - m_begin);
    m_error = std::move(why);
    return false;
}

// The slow path of parseString: m_p stops at the first backslash, control character or the end
// of the text; `start` is the first byte after the opening quote.
bool JsonCursor::decodeEscaped(const char *start, std::string_view &out, int slot)
{
    if (m_p < m_end && static_cast<unsigned char>(*m_p) < 0x20)
        return fail(m_p, "control character in string");
    if (m_p >= m_end)
        return fail(start - 1, "unterminated string");
    std::string dummy;
    std::string &buf = slot >= 0 ? m_scratch[slot] : dummy;
    buf.assign(start, size_t(m_p - start));
    while (m_p < m_end) {
        const unsigned char c = static_cast<unsigned char>(*m_p);
        if (c == '"') {
            ++m_p;
            out = slot >= 0 ? std::string_view(buf) : std::string_view();
            return true;
        }
        if (c < 0x20)
            return fail(m_p, "control character in string");
        if (c != '\\') {
            buf += char(c);
            ++m_p;
            continue;
        }
        if (m_p + 1 >= m_end)
            return fail(m_p, "unterminated escape");
        const char e = m_p[1];
        m_p += 2;
        if (e == 'u') {
            if (!decodeUnicode(buf))
                return false;
        } else if (const char decoded = simpleEscape(e)) {
            buf += decoded;
        } else {
            return fail(m_p - 1, "invalid escape");
        }
    }
    return fail(start - 1, "unterminated string");
}

bool JsonCursor::hex4(uint32_t &v)
{
    if (m_end - m_p < 4)
        return false;
    v = 0;
    for (int i = 0; i < 4; ++i) {
        const int h = hexValue(m_p[i]);
        if (h < 0)
            return false;
        v = v * 16 + uint32_t(h);
    }
    m_p += 4;
    return true;
}

// After "\u": four hex digits, and a second \uXXXX when they are a high surrogate; appends the
// code point as UTF-8 (U+FFFD for a lone or broken surrogate).
bool JsonCursor::decodeUnicode(std::string &buf)
{
    uint32_t cp = 0;
    if (!hex4(cp))
        return fail(m_p, "bad \\u escape");
    if (cp >= 0xD800 && cp < 0xDC00 && m_end - m_p >= 6 && m_p[0] == '\\' && m_p[1] == 'u') {
        m_p += 2;
        uint32_t lo = 0;
        if (!hex4(lo))
            return fail(m_p, "bad \\u escape");
        cp = (lo >= 0xDC00 && lo < 0xE000) ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                                           : 0xFFFD;
    } else if (cp >= 0xD800 && cp < 0xE000) {
        cp = 0xFFFD; // lone surrogate
    }
    appendUtf8(buf, cp);
    return true;
}

bool JsonCursor::parseInt(int64_t &out, const char *key)
{
    const char *start = m_p;
    bool neg = false;
    if (m_p < m_end && *m_p == '-') {
        neg = true;
        ++m_p;
    }
    if (!isDigit(m_p, m_end))
        return fail(start, std::string(key) + ": expected an integer");
    if (*m_p == '0' && isDigit(m_p + 1, m_end))
        return fail(m_p, "leading zero in number");
    uint64_t v = 0;
    const char *p = m_p;
    const char *const end = m_end;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        v = v * 10 + uint64_t(*p - '0');
        ++p;
        ++digits;
    }
    if (digits > 18) {
        // Re-check the long ones exactly (19 digits can overflow int64, 20 always do).
        uint64_t w = 0;
        bool overflow = digits > 19;
        for (const char *q = m_p; q < p && !overflow; ++q) {
            const uint64_t d = uint64_t(*q - '0');
            overflow = w > (uint64_t(INT64_MAX) + (neg ? 1 : 0) - d) / 10;
            w = w * 10 + d;
        }
        if (overflow)
            return fail(start, std::string(key) + ": integer out of range");
    }
    m_p = p;
    if (m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E'))
        return fail(start, std::string(key) + ": expected an integer, got a fraction or exponent");
    out = neg ? int64_t(0 - v) : int64_t(v);
    return true;
}

bool JsonCursor::skipNumber()
{
    const char *start = m_p;
    if (m_p < m_end && *m_p == '-')
        ++m_p;
    if (!isDigit(m_p, m_end))
        return fail(start, "invalid value");
    if (*m_p == '0' && isDigit(m_p + 1, m_end))
        return fail(m_p, "leading zero in number");
    while (isDigit(m_p, m_end))
        ++m_p;
    if (m_p < m_end && *m_p == '.') {
        ++m_p;
        if (!isDigit(m_p, m_end))
            return fail(m_p, "digit expected after '.'");
        while (isDigit(m_p, m_end))
            ++m_p;
    }
    if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
        ++m_p;
        if (m_p < m_end && (*m_p == '+' || *m_p == '-'))
            ++m_p;
        if (!isDigit(m_p, m_end))
            return fail(m_p, "digit expected in exponent");
        while (isDigit(m_p, m_end))
            ++m_p;
    }
    return true;
}

bool JsonCursor::skipValue(int depth)
{
    if (depth > 64)
        return fail(m_p, "nested too deeply");
    skipWs();
    if (m_p >= m_end)
        return fail(m_p, "value expected");
    std::string_view ignored;
    switch (*m_p) {
    case '"':
        return parseString(ignored, -1);
    case '{':
    case '[':
        return skipContainer(depth);
    case 't':
    case 'f':
    case 'n': {
        for (const char *lit : {"true", "false", "null"}) {
            const size_t n = std::strlen(lit);
            if (size_t(m_end - m_p) >= n && std::memcmp(m_p, lit, n) == 0) {
                m_p += n;
                return true;
            }
        }
        return fail(m_p, "invalid literal");
    }
    default:
        return skipNumber();
    }
}

// At '{' or '[': the members or elements up to the matching bracket.
bool JsonCursor::skipContainer(int depth)
{
    const char close = *m_p == '{' ? '}' : ']';
    const bool object = close == '}';
    std::string_view ignored;
    ++m_p;
    skipWs();
    if (m_p < m_end && *m_p == close) {
        ++m_p;
        return true;
    }
    while (true) {
        skipWs();
        if (object) {
            if (m_p >= m_end || *m_p != '"')
                return fail(m_p, "object key expected");
            if (!parseString(ignored, -1))
                return false;
            skipWs();
            if (m_p >= m_end || *m_p != ':')
                return fail(m_p, "':' expected");
            ++m_p;
        }
        if (!skipValue(depth + 1))
            return false;
        skipWs();
        if (m_p < m_end && *m_p == ',') {
            ++m_p;
            continue;
        }
        if (m_p < m_end && *m_p == close) {
            ++m_p;
            return true;
        }
        return fail(m_p, object ? "',' or '}' expected" : "',' or ']' expected");
    }
}

// JSON text `s` with each `\u` escape of a lone surrogate written as \ufffd (a high-low pair is
// kept; other escapes, `\\` among them, are copied as they are); returns how many were replaced.
size_t replaceLoneSurrogateEscapes(std::string_view s, std::string &out)
{
    size_t replaced = 0;
    out.clear();
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i++];
            continue;
        }
        const int cp = s[i + 1] == 'u' ? hex4At(s, i + 2) : -1;
        if (cp < 0) { // another escape (or a broken one): its two characters
            out.append(s.substr(i, 2));
            i += 2;
            continue;
        }
        if (cp >= 0xD800 && cp < 0xDC00 && i + 12 <= s.size() && s[i + 6] == '\\' &&
            s[i + 7] == 'u') {
            const int lo = hex4At(s, i + 8);
            if (lo >= 0xDC00 && lo < 0xE000) {
                out.append(s.substr(i, 12));
                i += 12;
                continue;
            }
        }
        if (cp >= 0xD800 && cp < 0xE000) {
            out += "\\ufffd";
            ++replaced;
        } else {
            out.append(s.substr(i, 6));
        }
        i += 6;
    }
    return replaced;
}

} // namespace syncline::load
