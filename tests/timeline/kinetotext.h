// kinetotext — rewrites a real Kineto trace's text the way current PyTorch writes it, for tests
// that need a variant of a real trace: `rebase` makes every `"ts": N` relative to a base
// (PyTorch 2.4+: µs after `baseTimeNanoseconds`) and adds that top-level field after
// traceEvents, as Kineto does. Exact: ts are converted to integer ns from their digits (at most
// 3 fractional digits, as Kineto writes) and written back as µs with 3 decimals. `mapEvents`
// rewrites or drops single events (a profiler window that starts later, added metadata).
#pragma once

#include <QtGlobal>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kinetotext {

// "1712195495406752.797" → 1712195495406752797; the text's length in *used.
inline int64_t microsTextToNs(const std::string &text, size_t at, size_t *used)
{
    size_t e = at;
    int64_t whole = 0, frac = 0;
    int digits = 0;
    while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])))
        whole = whole * 10 + (text[e++] - '0');
    if (e < text.size() && text[e] == '.')
        for (++e; e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])); ++e) {
            if (++digits > 3)
                qFatal("kinetotext: more than 3 fractional µs digits");
            frac = frac * 10 + (text[e] - '0');
        }
    for (; digits < 3; ++digits)
        frac *= 10;
    *used = e - at;
    return whole * 1000 + frac;
}

inline std::string nsToMicrosText(int64_t ns)
{
    const bool neg = ns < 0;
    const int64_t a = neg ? -ns : ns;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%lld.%03lld", neg ? "-" : "", (long long)(a / 1000),
                  (long long)(a % 1000));
    return buf;
}

// Every "ts" moved by `shiftNs` (exactly).
inline std::string shiftAll(const std::string &text, int64_t shiftNs)
{
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    const std::string key = "\"ts\":";
    size_t at = 0;
    for (size_t k; (k = text.find(key, at)) != std::string::npos;) {
        k += key.size();
        while (k < text.size() && text[k] == ' ')
            ++k;
        out.append(text, at, k - at);
        size_t used = 0;
        const int64_t ns = microsTextToNs(text, k, &used);
        out += nsToMicrosText(ns + shiftNs);
        at = k + used;
    }
    out.append(text, at, std::string::npos);
    return out;
}

// The trace as PyTorch 2.4+ writes it with base `baseNs`: ts relative, the base after the events.
inline std::string rebase(const std::string &text, int64_t baseNs)
{
    std::string out = shiftAll(text, -baseNs);
    const size_t close = out.find_last_of('}');
    out.insert(close, ", \"baseTimeNanoseconds\": " + std::to_string(baseNs) + "\n");
    return out;
}

// Every event object of traceEvents through `fn`: its replacement text, or nullopt to drop it;
// the rest of the text is kept byte for byte.
inline std::string mapEvents(const std::string &text,
                             const std::function<std::optional<std::string>(const std::string &)> &fn)
{
    const size_t key = text.find("\"traceEvents\"");
    if (key == std::string::npos)
        qFatal("kinetotext: no traceEvents");
    const size_t open = text.find('[', key);
    std::vector<std::string> kept;
    size_t i = open + 1;
    for (;;) {
        while (i < text.size() && text[i] != '{' && text[i] != ']')
            ++i;
        if (i >= text.size())
            qFatal("kinetotext: traceEvents not closed");
        if (text[i] == ']')
            break;
        const size_t from = i;
        int depth = 0;
        bool str = false;
        for (; i < text.size(); ++i) {
            const char c = text[i];
            if (str) {
                if (c == '\\')
                    ++i;
                else if (c == '"')
                    str = false;
            } else if (c == '"') {
                str = true;
            } else if (c == '{') {
                ++depth;
            } else if (c == '}' && --depth == 0) {
                ++i;
                break;
            }
        }
        if (auto e = fn(text.substr(from, i - from)))
            kept.push_back(std::move(*e));
    }
    std::string out = text.substr(0, open + 1) + "\n";
    for (size_t k = 0; k < kept.size(); ++k)
        out += (k ? ",\n  " : "  ") + kept[k];
    out += "\n";
    out.append(text, i, std::string::npos);
    return out;
}

// The event's "ts" in ns (-1 when it has none).
inline int64_t eventTsNs(const std::string &event)
{
    size_t k = event.find("\"ts\":");
    if (k == std::string::npos)
        return -1;
    k += 5;
    while (k < event.size() && event[k] == ' ')
        ++k;
    size_t used = 0;
    return microsTextToNs(event, k, &used);
}

} // namespace kinetotext
