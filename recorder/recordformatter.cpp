// RecordFormatter — see recordformatter.h.
#include "recorder/recordformatter.h"

#include "recorder/nametable.h"
#include "recorder/utf8.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace syncline::rec {

namespace {
const char kHex[] = "0123456789abcdef";
} // namespace

void RecordFormatter::appendEscaped(std::string &out, std::string_view s)
{
    out += '"';
    size_t run = 0; // start of the pending run of characters that need no escaping
    for (size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            // Keep valid UTF-8 as is; replace each invalid byte by U+FFFD so that every line
            // stays valid JSON text.
            const size_t len = utf8::sequenceLength(s, i);
            if (len > 0) {
                i += len - 1;
                continue;
            }
            out.append(s.data() + run, i - run);
            run = i + 1;
            out += "\\ufffd";
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default: {
            const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
            out.append(esc, sizeof(esc));
        }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

void RecordFormatter::appendInt(std::string &out, int64_t v)
{
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    out.append(buf, res.ptr);
}

void RecordFormatter::appendDouble(std::string &out, double v)
{
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    std::string_view text(buf, res.ptr - buf);
    out += text;
    // Keep it a JSON number that readers see as floating point ("2" → "2.0").
    if (text.find_first_of(".eEn") == std::string_view::npos)
        out += ".0";
}

std::string RecordFormatter::formatArgs(const EventArgs &args)
{
    std::string out = "{";
    for (size_t i = 0; i < args.size(); ++i) {
        if (i)
            out += ',';
        appendEscaped(out, args[i].first);
        out += ':';
        const ArgValue &v = args[i].second;
        if (const auto *s = std::get_if<std::string>(&v))
            appendEscaped(out, *s);
        else if (const auto *n = std::get_if<int64_t>(&v))
            appendInt(out, *n);
        else if (const auto *d = std::get_if<double>(&v))
            appendDouble(out, *d);
        else
            out += std::get<bool>(v) ? "true" : "false";
    }
    out += '}';
    return out;
}

const std::string &RecordFormatter::escapedName(uint32_t id)
{
    if (id >= m_names.size())
        m_names.resize(size_t(id) + 1);
    std::string &e = m_names[id];
    if (e.empty())
        appendEscaped(e, NameTable::instance().name(id));
    return e;
}

void RecordFormatter::append(std::string &out, const Record &r, int64_t tid)
{
    switch (r.type) {
    case RecordType::Begin:
        out += "{\"t\":\"B\",\"ts\":";
        break;
    case RecordType::End:
        out += "{\"t\":\"E\",\"ts\":";
        break;
    case RecordType::Instant:
        out += "{\"t\":\"I\",\"ts\":";
        break;
    case RecordType::Complete:
        out += "{\"t\":\"X\",\"ts\":";
        break;
    case RecordType::ThreadName:
        out += "{\"t\":\"thread\",\"tid\":";
        appendInt(out, tid);
        out += ",\"name\":";
        out += escapedName(r.nameId);
        out += "}\n";
        return;
    case RecordType::Counter: {
        out += "{\"t\":\"C\",\"ts\":";
        appendInt(out, r.ts);
        out += ",\"tid\":";
        appendInt(out, tid);
        out += ",\"name\":";
        out += escapedName(r.nameId);
        out += ",\"value\":";
        double v = 0;
        std::memcpy(&v, &r.dur, sizeof v);
        appendDouble(out, v); // null when not finite
        out += "}\n";
        return;
    }
    case RecordType::Message:
        out += "{\"t\":\"msg\",\"ts\":";
        appendInt(out, r.ts);
        out += ",\"tid\":";
        appendInt(out, tid);
        out += r.nameId == 0 ? ",\"dir\":\"send\",\"peer\":" : ",\"dir\":\"recv\",\"peer\":";
        appendInt(out, r.dur);
        out += ",\"id\":";
        out += r.args ? *r.args : std::string("\"\"");
        out += "}\n";
        return;
    }
    appendInt(out, r.ts);
    if (r.type == RecordType::Complete) {
        out += ",\"dur\":";
        appendInt(out, r.dur);
    }
    out += ",\"tid\":";
    appendInt(out, tid);
    out += ",\"name\":";
    out += escapedName(r.nameId);
    if (r.args) {
        out += ",\"args\":";
        out += *r.args;
    }
    out += "}\n";
}

namespace {

void appendWall(std::string &out, int64_t wallNs, int64_t wallSpreadNs)
{
    if (wallSpreadNs < 0)
        return;
    out += ",\"wall_ns\":";
    RecordFormatter::appendInt(out, wallNs);
    out += ",\"wall_spread_ns\":";
    RecordFormatter::appendInt(out, wallSpreadNs);
}

} // namespace

void RecordFormatter::appendHeartbeat(std::string &out, int64_t ts, uint64_t events,
                                      uint64_t dropped, uint64_t bufferFull, uint64_t bytes,
                                      int64_t wallNs, int64_t wallSpreadNs)
{
    out += "{\"t\":\"hb\",\"ts\":";
    appendInt(out, ts);
    out += ",\"events\":";
    appendInt(out, int64_t(events));
    out += ",\"dropped\":";
    appendInt(out, int64_t(dropped));
    out += ",\"buffer_full\":";
    appendInt(out, int64_t(bufferFull));
    out += ",\"bytes\":";
    appendInt(out, int64_t(bytes));
    appendWall(out, wallNs, wallSpreadNs);
    out += "}\n";
}

void RecordFormatter::appendClose(std::string &out, int64_t ts, uint64_t events, uint64_t dropped,
                                  int64_t open, int64_t wallNs, int64_t wallSpreadNs)
{
    out += "{\"t\":\"close\",\"ts\":";
    appendInt(out, ts);
    out += ",\"events\":";
    appendInt(out, int64_t(events));
    out += ",\"dropped\":";
    appendInt(out, int64_t(dropped));
    out += ",\"open\":";
    appendInt(out, open);
    appendWall(out, wallNs, wallSpreadNs);
    out += "}\n";
}

void RecordFormatter::appendNote(std::string &out, int64_t ts, std::string_view level,
                                 std::string_view msg)
{
    out += "{\"t\":\"note\",\"ts\":";
    appendInt(out, ts);
    out += ",\"level\":";
    appendEscaped(out, level);
    out += ",\"msg\":";
    appendEscaped(out, msg);
    out += "}\n";
}

void RecordFormatter::appendSync(std::string &out, int64_t burst, int64_t seq, std::string_view ref,
                                 int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    out += "{\"t\":\"sync\",\"burst\":";
    appendInt(out, burst);
    out += ",\"seq\":";
    appendInt(out, seq);
    out += ",\"ref\":";
    appendEscaped(out, ref);
    const char *keys[] = {",\"t1\":", ",\"t2\":", ",\"t3\":", ",\"t4\":"};
    const int64_t vals[] = {t1, t2, t3, t4};
    for (int i = 0; i < 4; ++i) {
        out += keys[i];
        appendInt(out, vals[i]);
    }
    out += "}\n";
}

} // namespace syncline::rec
