// LineScanner — see linescanner.h.
#include "timeline/load/parse/log/linescanner.h"

#include <charconv>
#include <cstring>

namespace syncline::load {

namespace {

// JsonCursor scratch slots: one per string field that can be alive in one LogRecord.
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
static_assert(SlotMsg < JsonCursor::kScratchSlots);

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
        case 'C':
            return RecordType::Counter;
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

// n bytes at p equal to those at q (4 <= n <= 2 * sizeof(W)), as two overlapping words W.
template <typename W> inline bool sameWords(const char *p, const char *q, size_t n)
{
    W a, b, x, y;
    std::memcpy(&a, p, sizeof(W));
    std::memcpy(&b, p + n - sizeof(W), sizeof(W));
    std::memcpy(&x, q, sizeof(W));
    std::memcpy(&y, q + n - sizeof(W), sizeof(W));
    return ((a ^ x) | (b ^ y)) == 0;
}

// The bytes of the string literal `lit` at p (compared as two overlapping words, not a call).
template <size_t N> inline bool literal(const char *&p, const char *end, const char (&lit)[N])
{
    constexpr size_t n = N - 1;
    static_assert(n >= 4 && n <= 16);
    if (size_t(end - p) < n)
        return false;
    if (!(n <= 8 ? sameWords<uint32_t>(p, lit, n) : sameWords<uint64_t>(p, lit, n)))
        return false;
    p += n;
    return true;
}

// The bytes of a plain string (no backslash, no control character) from p to its closing
// quote; p is left at that quote. False at an escape, a control character or the end.
// `bits` collects the OR of the bytes (below 0x80: the string is ASCII, so valid UTF-8). The
// OR is kept in a local: through the reference, every byte would be a store the next byte's
// load waits for (a char may alias it).
inline bool plainString(const char *&p, const char *end, unsigned &bits)
{
    unsigned acc = 0;
    const char *q = p;
    while (q < end) {
        const unsigned char c = static_cast<unsigned char>(*q);
        if (c == '"') {
            bits |= acc;
            p = q;
            return true;
        }
        if (c == '\\' || c < 0x20)
            return false;
        acc |= c;
        ++q;
    }
    return false;
}

inline bool digit(const char *p, const char *end)
{
    return p < end && unsigned(*p - '0') < 10u;
}

// A JSON number at p (the full grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?).
inline bool jsonNumber(const char *&p, const char *end)
{
    if (p < end && *p == '-')
        ++p;
    if (!digit(p, end))
        return false;
    if (*p == '0')
        ++p;
    else
        while (digit(p, end))
            ++p;
    if (p < end && *p == '.') {
        ++p;
        if (!digit(p, end))
            return false;
        while (digit(p, end))
            ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-'))
            ++p;
        if (!digit(p, end))
            return false;
        while (digit(p, end))
            ++p;
    }
    return true;
}

// The one-letter event types of the canonical layout; false for any other.
inline bool eventType(char t, RecordType &type)
{
    switch (t) {
    case 'B':
        type = RecordType::Begin;
        return true;
    case 'E':
        type = RecordType::End;
        return true;
    case 'X':
        type = RecordType::Complete;
        return true;
    case 'I':
        type = RecordType::Instant;
        return true;
    default:
        return false;
    }
}

} // namespace

const char *LineScanner::flatObject(const char *p, const char *end, unsigned &bits)
{
    ++p; // '{'
    if (p < end && *p == '}')
        return p + 1;
    while (true) {
        if (p >= end || *p != '"')
            return nullptr;
        ++p;
        if (!plainString(p, end, bits))
            return nullptr;
        ++p;
        if (p >= end || *p != ':')
            return nullptr;
        ++p;
        if (p >= end)
            return nullptr;
        if (*p == '"') {
            ++p;
            if (!plainString(p, end, bits))
                return nullptr;
            ++p;
        } else if (*p == '-' || digit(p, end)) {
            if (!jsonNumber(p, end))
                return nullptr;
        } else if (!literal(p, end, "true") && !literal(p, end, "false") &&
                   !literal(p, end, "null")) {
            return nullptr;
        }
        if (p >= end)
            return nullptr;
        if (*p == '}')
            return p + 1;
        if (*p != ',')
            return nullptr;
        ++p;
    }
}

LineScanner::IntField LineScanner::intField(std::string_view key, LogRecord &out)
{
    switch (key.size()) {
    case 2:
        if (key[0] == 't' && key[1] == 's')
            return {&out.ts, &out.hasTs, "ts"};
        if (key[0] == 't' && key[1] == '1')
            return {&out.t1, &out.hasT1, "t1"};
        if (key[0] == 't' && key[1] == '2')
            return {&out.t2, &out.hasT2, "t2"};
        if (key[0] == 't' && key[1] == '3')
            return {&out.t3, &out.hasT3, "t3"};
        if (key[0] == 't' && key[1] == '4')
            return {&out.t4, &out.hasT4, "t4"};
        break;
    case 3:
        if (std::memcmp(key.data(), "tid", 3) == 0)
            return {&out.tid, &out.hasTid, "tid"};
        if (std::memcmp(key.data(), "dur", 3) == 0)
            return {&out.dur, &out.hasDur, "dur"};
        if (std::memcmp(key.data(), "seq", 3) == 0)
            return {&out.seq, nullptr, "seq"};
        break;
    case 4:
        if (std::memcmp(key.data(), "peer", 4) == 0)
            return {&out.peer, nullptr, "peer"};
        if (std::memcmp(key.data(), "open", 4) == 0)
            return {&out.open, nullptr, "open"};
        break;
    default:
        if (key == "burst")
            return {&out.burst, nullptr, "burst"};
        if (key == "events")
            return {&out.events, nullptr, "events"};
        if (key == "dropped")
            return {&out.dropped, nullptr, "dropped"};
        if (key == "wall_ns")
            return {&out.wallNs, &out.hasWall, "wall_ns"};
        if (key == "wall_spread_ns")
            return {&out.wallSpreadNs, &out.hasWallSpread, "wall_spread_ns"};
        break;
    }
    return {};
}

LineScanner::StringField LineScanner::stringField(std::string_view key, LogRecord &out)
{
    switch (key.size()) {
    case 2:
        if (key[0] == 'i' && key[1] == 'd')
            return {&out.id, nullptr, "id", SlotId};
        break;
    case 3:
        if (std::memcmp(key.data(), "ref", 3) == 0)
            return {&out.ref, nullptr, "ref", SlotRef};
        if (std::memcmp(key.data(), "dir", 3) == 0)
            return {&out.dir, nullptr, "dir", SlotDir};
        if (std::memcmp(key.data(), "msg", 3) == 0)
            return {&out.msg, nullptr, "msg", SlotMsg};
        break;
    case 4:
        if (std::memcmp(key.data(), "name", 4) == 0)
            return {&out.name, &out.hasName, "name", SlotName};
        break;
    case 5:
        if (key == "level")
            return {&out.level, nullptr, "level", SlotLevel};
        break;
    default:
        break;
    }
    return {};
}

bool LineScanner::readString(std::string_view &value, bool *has, int slot, const char *name)
{
    if (!m_json.peek('"'))
        return m_json.fail(m_json.pos(), std::string(name) + ": expected a string");
    if (has)
        *has = true;
    return m_json.parseString(value, slot);
}

bool LineScanner::parseValue(LogRecord &out)
{
    const char *start = m_json.pos();
    if (m_json.end() - start >= 4 && std::memcmp(start, "null", 4) == 0) {
        out.hasValue = out.valueNull = true;
        return m_json.skipValue(0);
    }
    if (!m_json.skipNumber())
        return m_json.fail(start, "value: expected a number or null");
    const auto [end, ec] = std::from_chars(start, m_json.pos(), out.value);
    if (ec == std::errc::result_out_of_range)
        out.valueNull = true; // 1e999: not a finite double
    else if (ec != std::errc() || end != m_json.pos())
        return m_json.fail(start, "value: expected a number or null");
    out.hasValue = true;
    return true;
}

bool LineScanner::parseField(std::string_view key, LogRecord &out)
{
    if (key.size() == 1 && key[0] == 't') {
        std::string_view t;
        if (!readString(t, &out.hasType, SlotType, "t"))
            return false;
        out.type = typeOf(t);
        return true;
    }
    if (const IntField f = intField(key, out); f.value) {
        if (f.has)
            *f.has = true;
        return m_json.parseInt(*f.value, f.name);
    }
    if (const StringField f = stringField(key, out); f.value)
        return readString(*f.value, f.has, f.slot, f.name);
    if (key == "value") // a C record's value (format 1.1): any JSON number, or null
        return parseValue(out);
    if (key == "args") {
        if (!m_json.peek('{'))
            return m_json.fail(m_json.pos(), "args: expected an object");
        const char *start = m_json.pos();
        if (!m_json.skipValue(0))
            return false;
        out.hasArgs = true;
        out.args = std::string_view(start, size_t(m_json.pos() - start));
        return true;
    }
    return m_json.skipValue(0);
}

// The layout {"t":"B","ts":N[,"dur":N],"tid":N,"name":"..."[,"args":{...}]} from p (its
// '{'), up to and including the closing '}'; returns the byte after it, nullptr when the bytes
// are not that layout. Args that are not a flat object are read by JsonCursor over `line` when
// one is given (scan), and decline the layout otherwise (scanAt). *bits: the OR of the name's
// and the flat args' bytes.
const char *LineScanner::eventLayout(const char *p, const char *const end, LogRecord &out,
                                     std::string_view line, unsigned *bits)
{
    out.hasDur = out.hasArgs = false;
    out.dur = 0;
    out.args = {};
    out.hasT1 = out.hasT2 = out.hasT3 = out.hasT4 = false;
    out.textAscii = false;
    if (!eventType(p[6], out.type))
        return nullptr;
    p += 8;
    if (!literal(p, end, ",\"ts\":") || !fastInt(p, end, out.ts))
        return nullptr;
    if (out.type == RecordType::Complete) {
        if (!literal(p, end, ",\"dur\":") || !fastInt(p, end, out.dur))
            return nullptr;
        out.hasDur = true;
    }
    if (!literal(p, end, ",\"tid\":") || !fastInt(p, end, out.tid) ||
        !literal(p, end, ",\"name\":\""))
        return nullptr;
    const char *name = p;
    if (!plainString(p, end, *bits))
        return nullptr;
    out.name = std::string_view(name, size_t(p - name));
    ++p;
    if (p < end && *p == ',') {
        if (!literal(p, end, ",\"args\":") || p == end || *p != '{')
            return nullptr;
        const char *argsEnd = flatObject(p, end, *bits);
        if (!argsEnd) {
            if (line.empty())
                return nullptr;
            m_json.reset(line, p);
            if (!m_json.skipValue(0))
                return nullptr;
            argsEnd = m_json.pos();
        }
        out.args = std::string_view(p, size_t(argsEnd - p));
        out.hasArgs = true;
        p = argsEnd;
    }
    if (p == end || *p != '}')
        return nullptr;
    out.hasType = out.hasTs = out.hasTid = out.hasName = true;
    return p + 1;
}

bool LineScanner::scanCanonical(std::string_view line, LogRecord &out)
{
    const char *p = line.data();
    if (line.size() < 36 || std::memcmp(p, "{\"t\":\"", 6) != 0 || p[7] != '"')
        return false;
    unsigned bits = 0;
    // textAscii stays false: scan()'s callers check the texts themselves.
    return eventLayout(p, p + line.size(), out, line, &bits) == p + line.size();
}

// The same layout as scanCanonical, read from a buffer: every step stops at a byte that is not
// the layout's (a '\n' is never one: it is a control character inside a string and no literal
// or number holds it), so the line's end is the '\n' after the closing '}'.
bool LineScanner::scanAt(const char *p, const char *const end, LogRecord &out, const char **lineEnd)
{
    if (end - p < 37 || std::memcmp(p, "{\"t\":\"", 6) != 0)
        return false;
    if (p[7] != '"')
        return std::memcmp(p + 6, "msg\"", 4) == 0 && scanMsgAt(p, end, out, lineEnd);
    unsigned bits = 0;
    const char *q = eventLayout(p, end, out, {}, &bits);
    // scanCanonical's shortest line is 36 bytes (shorter ones take the generic path).
    if (!q || q == end || *q != '\n' || q - p < 36)
        return false;
    out.textAscii = bits < 0x80;
    *lineEnd = q;
    return true;
}

// What scanGeneric gives a msg record in this layout: type, ts, tid, dir, peer, id (the only
// fields a msg record is read by; the others are reset as clear() would).
bool LineScanner::scanMsgAt(const char *p, const char *const end, LogRecord &out,
                            const char **lineEnd)
{
    p += 10; // {"t":"msg"
    if (!literal(p, end, ",\"ts\":") || !fastInt(p, end, out.ts) || !literal(p, end, ",\"tid\":") ||
        !fastInt(p, end, out.tid) || !literal(p, end, ",\"dir\":\""))
        return false;
    unsigned bits = 0;
    const char *dir = p;
    if (!plainString(p, end, bits))
        return false;
    out.dir = std::string_view(dir, size_t(p - dir));
    ++p;
    if (!literal(p, end, ",\"peer\":") || !fastInt(p, end, out.peer) ||
        !literal(p, end, ",\"id\":\""))
        return false;
    const char *id = p;
    if (!plainString(p, end, bits))
        return false;
    out.id = std::string_view(id, size_t(p - id));
    ++p;
    if (end - p < 2 || p[0] != '}' || p[1] != '\n')
        return false;
    out.type = RecordType::Msg;
    out.hasType = out.hasTs = out.hasTid = true;
    out.hasDur = out.hasName = out.hasArgs = false;
    out.hasT1 = out.hasT2 = out.hasT3 = out.hasT4 = false;
    out.hasValue = out.valueNull = false;
    out.textAscii = false;
    *lineEnd = p + 1;
    return true;
}

bool LineScanner::scan(std::string_view line, LogRecord &out)
{
    // The fast path sets every field a B/E/X/I record is read by; the generic path starts clean.
    if (scanCanonical(line, out))
        return true;
    out.clear();
    return scanGeneric(line, out);
}

// Any JSON object, keys in any order; known keys are decoded, the others skipped.
bool LineScanner::scanGeneric(std::string_view line, LogRecord &out)
{
    JsonCursor &j = m_json;
    j.reset(line);
    j.skipWs();
    if (!j.peek('{'))
        return j.fail(j.pos(), "not a JSON object");
    j.advance();
    j.skipWs();
    if (j.peek('}')) {
        j.advance();
    } else {
        while (true) {
            j.skipWs();
            if (!j.peek('"'))
                return j.fail(j.pos(), "object key expected");
            std::string_view key;
            if (!j.parseString(key, SlotKey))
                return false;
            j.skipWs();
            if (!j.peek(':'))
                return j.fail(j.pos(), "':' expected");
            j.advance();
            j.skipWs();
            if (!parseField(key, out))
                return false;
            j.skipWs();
            if (j.peek(',')) {
                j.advance();
                continue;
            }
            if (j.peek('}')) {
                j.advance();
                break;
            }
            return j.fail(j.pos(), "',' or '}' expected");
        }
    }
    j.skipWs();
    if (j.pos() != j.end())
        return j.fail(j.pos(), "trailing characters after the object");
    if (!out.hasType)
        return j.fail(j.begin(), "record has no \"t\" key");
    return true;
}

} // namespace syncline::load
