// LineScanner — see linescanner.h.
#include "timeline/load/log/linescanner.h"

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

inline bool literal(const char *&p, const char *end, const char *lit, size_t n)
{
    if (size_t(end - p) < n || std::memcmp(p, lit, n) != 0)
        return false;
    p += n;
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
    if (!eventType(p[6], out.type))
        return false;
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
        m_json.reset(line, p);
        if (!m_json.skipValue(0))
            return false;
        out.args = std::string_view(p, size_t(m_json.pos() - p));
        out.hasArgs = true;
        p = m_json.pos();
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
