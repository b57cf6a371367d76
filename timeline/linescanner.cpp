#include "linescanner.h"

#include <cstring>

namespace syncline {

namespace {

enum Slot
{
    SlotKey,
    SlotType,
    SlotName,
    SlotRef,
    SlotDir,
    SlotId,
    SlotLevel,
    SlotMsg
};

RecordType typeOf(std::string_view t)
{
    if (t.size() == 1) {
        switch (t[0]) {
        case 'B':
            return RecordType::Begin;
        case 'E':
            return RecordType::End;
        case 'X':
            return RecordType::Complete;
        case 'I':
            return RecordType::Instant;
        default:
            return RecordType::Unknown;
        }
    }
    if (t == "sync")
        return RecordType::Sync;
    if (t == "hb")
        return RecordType::Heartbeat;
    if (t == "msg")
        return RecordType::Msg;
    if (t == "thread")
        return RecordType::Thread;
    if (t == "note")
        return RecordType::Note;
    if (t == "close")
        return RecordType::Close;
    if (t == "header")
        return RecordType::Header;
    return RecordType::Unknown;
}

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

} // namespace

bool LineScanner::fail(const char *p, const char *why)
{
    m_errorPos = static_cast<size_t>(p - m_begin);
    m_error = why;
    return false;
}

// Fast path: a run of plain bytes ending in '"' is returned as a view of the line. On the first
// backslash the string is decoded into scratch[slot] (slot < 0: validate only).
bool LineScanner::parseString(std::string_view &out, int slot)
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
    if (p < end && static_cast<unsigned char>(*p) < 0x20)
        return fail(p, "control character in string");
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
        switch (e) {
        case '"':
            buf += '"';
            break;
        case '\\':
            buf += '\\';
            break;
        case '/':
            buf += '/';
            break;
        case 'b':
            buf += '\b';
            break;
        case 'f':
            buf += '\f';
            break;
        case 'n':
            buf += '\n';
            break;
        case 'r':
            buf += '\r';
            break;
        case 't':
            buf += '\t';
            break;
        case 'u': {
            auto hex4 = [&](uint32_t &v) {
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
            };
            uint32_t cp = 0;
            if (!hex4(cp))
                return fail(m_p, "bad \\u escape");
            if (cp >= 0xD800 && cp < 0xDC00 && m_end - m_p >= 6 && m_p[0] == '\\' &&
                m_p[1] == 'u') {
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
            break;
        }
        default:
            return fail(m_p - 1, "invalid escape");
        }
    }
    return fail(start - 1, "unterminated string");
}

bool LineScanner::parseInt(int64_t &out, const char *key)
{
    const char *start = m_p;
    bool neg = false;
    if (m_p < m_end && *m_p == '-') {
        neg = true;
        ++m_p;
    }
    if (m_p >= m_end || *m_p < '0' || *m_p > '9') {
        m_error = std::string(key) + ": expected an integer";
        m_errorPos = size_t(start - m_begin);
        return false;
    }
    if (*m_p == '0' && m_p + 1 < m_end && m_p[1] >= '0' && m_p[1] <= '9')
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
        if (overflow) {
            m_error = std::string(key) + ": integer out of range";
            m_errorPos = size_t(start - m_begin);
            return false;
        }
    }
    m_p = p;
    if (m_p < m_end && (*m_p == '.' || *m_p == 'e' || *m_p == 'E')) {
        m_error = std::string(key) + ": expected an integer, got a fraction or exponent";
        m_errorPos = size_t(start - m_begin);
        return false;
    }
    out = neg ? int64_t(0 - v) : int64_t(v);
    return true;
}

bool LineScanner::skipNumber()
{
    const char *start = m_p;
    if (m_p < m_end && *m_p == '-')
        ++m_p;
    if (m_p >= m_end || *m_p < '0' || *m_p > '9')
        return fail(start, "invalid value");
    if (*m_p == '0' && m_p + 1 < m_end && m_p[1] >= '0' && m_p[1] <= '9')
        return fail(m_p, "leading zero in number");
    while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
        ++m_p;
    if (m_p < m_end && *m_p == '.') {
        ++m_p;
        if (m_p >= m_end || *m_p < '0' || *m_p > '9')
            return fail(m_p, "digit expected after '.'");
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
    }
    if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
        ++m_p;
        if (m_p < m_end && (*m_p == '+' || *m_p == '-'))
            ++m_p;
        if (m_p >= m_end || *m_p < '0' || *m_p > '9')
            return fail(m_p, "digit expected in exponent");
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
    }
    return true;
}

bool LineScanner::skipValue(int depth)
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
    case '[': {
        const char close = *m_p == '{' ? '}' : ']';
        const bool object = close == '}';
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

bool LineScanner::parseField(std::string_view key, LogRecord &out)
{
    auto str = [&](std::string_view &v, bool &has, int slot, const char *k) {
        if (m_p >= m_end || *m_p != '"') {
            m_error = std::string(k) + ": expected a string";
            m_errorPos = size_t(m_p - m_begin);
            return false;
        }
        has = true;
        return parseString(v, slot);
    };
    bool dummy = false;
    switch (key.size()) {
    case 1:
        if (key[0] == 't') {
            std::string_view t;
            if (!str(t, out.hasType, SlotType, "t"))
                return false;
            out.type = typeOf(t);
            return true;
        }
        break;
    case 2:
        if (key[0] == 't' && key[1] == 's')
            return out.hasTs = true, parseInt(out.ts, "ts");
        if (key[0] == 't' && key[1] == '1')
            return out.hasT1 = true, parseInt(out.t1, "t1");
        if (key[0] == 't' && key[1] == '2')
            return out.hasT2 = true, parseInt(out.t2, "t2");
        if (key[0] == 't' && key[1] == '3')
            return out.hasT3 = true, parseInt(out.t3, "t3");
        if (key[0] == 't' && key[1] == '4')
            return out.hasT4 = true, parseInt(out.t4, "t4");
        if (key[0] == 'i' && key[1] == 'd')
            return str(out.id, dummy, SlotId, "id");
        break;
    case 3:
        if (std::memcmp(key.data(), "tid", 3) == 0)
            return out.hasTid = true, parseInt(out.tid, "tid");
        if (std::memcmp(key.data(), "dur", 3) == 0)
            return out.hasDur = true, parseInt(out.dur, "dur");
        if (std::memcmp(key.data(), "seq", 3) == 0)
            return parseInt(out.seq, "seq");
        if (std::memcmp(key.data(), "ref", 3) == 0)
            return str(out.ref, dummy, SlotRef, "ref");
        if (std::memcmp(key.data(), "dir", 3) == 0)
            return str(out.dir, dummy, SlotDir, "dir");
        if (std::memcmp(key.data(), "msg", 3) == 0)
            return str(out.msg, dummy, SlotMsg, "msg");
        break;
    case 4:
        if (std::memcmp(key.data(), "name", 4) == 0)
            return str(out.name, out.hasName, SlotName, "name");
        if (std::memcmp(key.data(), "args", 4) == 0) {
            if (m_p >= m_end || *m_p != '{')
                return fail(m_p, "args: expected an object");
            const char *start = m_p;
            if (!skipValue(0))
                return false;
            out.hasArgs = true;
            out.args = std::string_view(start, size_t(m_p - start));
            return true;
        }
        if (std::memcmp(key.data(), "peer", 4) == 0)
            return parseInt(out.peer, "peer");
        if (std::memcmp(key.data(), "open", 4) == 0)
            return parseInt(out.open, "open");
        break;
    case 5:
        if (key == "burst")
            return parseInt(out.burst, "burst");
        if (key == "level")
            return str(out.level, dummy, SlotLevel, "level");
        break;
    case 6:
        if (key == "events")
            return parseInt(out.events, "events");
        break;
    case 7:
        if (key == "dropped")
            return parseInt(out.dropped, "dropped");
        break;
    default:
        break;
    }
    return skipValue(0);
}

namespace {

// Digits of a JSON integer at p (optional '-'); false when absent, a leading zero, more than 18
// digits (left to the exact generic path) or followed by a fraction or exponent.
inline bool fastInt(const char *&p, const char *end, int64_t &v)
{
    const bool neg = p < end && *p == '-';
    const char *q = p + (neg ? 1 : 0);
    const char *start = q;
    uint64_t x = 0;
    while (q < end && unsigned(*q - '0') < 10u) {
        x = x * 10 + uint64_t(*q - '0');
        ++q;
    }
    const auto n = q - start;
    if (n == 0 || n > 18 || (n > 1 && *start == '0'))
        return false;
    if (q < end && (*q == '.' || *q == 'e' || *q == 'E'))
        return false;
    v = neg ? -int64_t(x) : int64_t(x);
    p = q;
    return true;
}

inline bool literal(const char *&p, const char *end, const char *lit, size_t n)
{
    if (size_t(end - p) < n || std::memcmp(p, lit, n) != 0)
        return false;
    p += n;
    return true;
}

} // namespace

bool LineScanner::scanCanonical(std::string_view line, LogRecord &out)
{
    const char *p = line.data();
    const char *const end = p + line.size();
    if (line.size() < 36 || std::memcmp(p, "{\"t\":\"", 6) != 0 || p[7] != '"')
        return false;
    out.hasDur = out.hasArgs = false;
    out.dur = 0;
    out.args = {};
    out.hasT1 = out.hasT2 = out.hasT3 = out.hasT4 = false;
    switch (p[6]) {
    case 'B':
        out.type = RecordType::Begin;
        break;
    case 'E':
        out.type = RecordType::End;
        break;
    case 'X':
        out.type = RecordType::Complete;
        break;
    case 'I':
        out.type = RecordType::Instant;
        break;
    default:
        return false;
    }
    p += 8;
    if (!literal(p, end, ",\"ts\":", 6) || !fastInt(p, end, out.ts))
        return false;
    if (out.type == RecordType::Complete) {
        if (!literal(p, end, ",\"dur\":", 7) || !fastInt(p, end, out.dur))
            return false;
        out.hasDur = true;
    }
    if (!literal(p, end, ",\"tid\":", 7) || !fastInt(p, end, out.tid) ||
        !literal(p, end, ",\"name\":\"", 9))
        return false;
    const char *name = p;
    while (p < end && *p != '"') {
        if (*p == '\\' || static_cast<unsigned char>(*p) < 0x20)
            return false;
        ++p;
    }
    if (p == end)
        return false;
    out.name = std::string_view(name, size_t(p - name));
    ++p;
    if (p < end && *p == ',') {
        if (!literal(p, end, ",\"args\":", 8) || p == end || *p != '{')
            return false;
        m_begin = line.data();
        m_p = p;
        m_end = end;
        if (!skipValue(0))
            return false;
        out.args = std::string_view(p, size_t(m_p - p));
        out.hasArgs = true;
        p = m_p;
    }
    if (p + 1 != end || *p != '}')
        return false;
    out.hasType = out.hasTs = out.hasTid = out.hasName = true;
    return true;
}

bool LineScanner::scan(std::string_view line, LogRecord &out)
{
    // The fast path sets every field a B/E/X/I record is read by; the generic path starts clean.
    if (scanCanonical(line, out))
        return true;
    out.clear();
    m_begin = line.data();
    m_p = m_begin;
    m_end = m_begin + line.size();
    skipWs();
    if (m_p >= m_end || *m_p != '{')
        return fail(m_p, "not a JSON object");
    ++m_p;
    skipWs();
    if (m_p < m_end && *m_p == '}') {
        ++m_p;
    } else {
        while (true) {
            skipWs();
            if (m_p >= m_end || *m_p != '"')
                return fail(m_p, "object key expected");
            std::string_view key;
            if (!parseString(key, SlotKey))
                return false;
            skipWs();
            if (m_p >= m_end || *m_p != ':')
                return fail(m_p, "':' expected");
            ++m_p;
            skipWs();
            if (!parseField(key, out))
                return false;
            skipWs();
            if (m_p < m_end && *m_p == ',') {
                ++m_p;
                continue;
            }
            if (m_p < m_end && *m_p == '}') {
                ++m_p;
                break;
            }
            return fail(m_p, "',' or '}' expected");
        }
    }
    skipWs();
    if (m_p != m_end)
        return fail(m_p, "trailing characters after the object");
    if (!out.hasType)
        return fail(m_begin, "record has no \"t\" key");
    return true;
}

} // namespace syncline
