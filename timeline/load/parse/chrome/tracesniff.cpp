// TraceSniff — see tracesniff.h.
#include "timeline/load/parse/chrome/tracesniff.h"

#include "timeline/load/parse/chrome/gzipinput.h"
#include "timeline/load/parse/filereader.h"

#include <nlohmann/json.hpp>

namespace syncline::load {

namespace {

constexpr size_t kHead = 1 << 16;

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

size_t skipBlanks(std::string_view s, size_t i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        ++i;
    return i;
}

std::string excerpt(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' ||
                          s.back() == '\t'))
        s.remove_suffix(1);
    std::string out(s.substr(0, 40));
    for (char &c : out)
        if (static_cast<unsigned char>(c) < 0x20)
            c = ' ';
    return s.size() > 40 ? out + "…" : out;
}

const char *valueKind(char c)
{
    if (c == '{')
        return "objects";
    if (c == '[')
        return "arrays";
    if (c == '"')
        return "strings";
    if (c == 't' || c == 'f')
        return "booleans";
    if (c == 'n')
        return "nulls";
    return "numbers";
}

} // namespace

bool TraceSniff::hasTraceName(std::string_view path)
{
    return endsWith(path, ".json") || endsWith(path, ".json.gz");
}

TraceSniff TraceSniff::of(const std::string &path)
{
    const bool gzip = GzipInput::isGzip(path);
    const std::string head = gzip ? GzipInput::head(path, kHead) : FileReader::head(path, kHead);
    if (gzip && head.empty()) {
        TraceSniff s;
        s.kind = Kind::Unreadable;
        s.gzip = true;
        s.what = "gzip data that does not inflate";
        return s;
    }
    return ofText(head, gzip);
}

TraceSniff TraceSniff::ofText(std::string_view head, bool gzip)
{
    TraceSniff s;
    s.gzip = gzip;
    const std::string prefix = gzip ? "gzip'd " : "";
    const size_t first = skipBlanks(head, 0);
    if (first == head.size()) {
        s.what = prefix + "empty file";
        return s;
    }
    const char c = head[first];
    if (c == '[') {
        const size_t next = skipBlanks(head, first + 1);
        if (next == head.size() || head[next] == '{' || head[next] == ']') {
            s.kind = Kind::Trace; // an array of events (Chrome's bare-array form), or none yet
            return s;
        }
        s.kind = Kind::OtherJson;
        s.what = prefix + "JSON array of " + valueKind(head[next]) + " (" +
                 excerpt(head.substr(first)) + ")";
        return s;
    }
    if (c == '{') {
        if (head.find("\"traceEvents\"") != std::string_view::npos) {
            s.kind = Kind::Trace;
            return s;
        }
        s.kind = Kind::JsonObject;
        s.what = prefix + "JSON object without \"traceEvents\"";
        const auto j = nlohmann::json::parse(head.substr(first), nullptr, false);
        if (j.is_object()) {
            std::string keys;
            int n = 0;
            for (auto it = j.begin(); it != j.end() && n < 6; ++it, ++n)
                keys += (keys.empty() ? "" : ", ") + it.key();
            if (j.size() > 6)
                keys += ", …";
            s.what += keys.empty() ? " (empty)" : " (keys: " + keys + ")";
        }
        return s;
    }
    if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
        const auto j = nlohmann::json::parse(head.substr(first), nullptr, false);
        if (!j.is_discarded()) {
            s.kind = Kind::OtherJson;
            s.what = prefix + "JSON " +
                     (j.is_number() ? "number" : j.is_string() ? "string"
                                                 : j.is_boolean() ? "boolean"
                                                                  : "null") +
                     " (" + excerpt(head.substr(first)) + ")";
            return s;
        }
    }
    s.kind = Kind::NotJson;
    s.what = prefix + "text that is not JSON (starts \"" + excerpt(head.substr(first)) + "\")";
    return s;
}

} // namespace syncline::load
