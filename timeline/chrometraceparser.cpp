#include "chrometraceparser.h"

#include "problemlog.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

namespace syncline {

using Severity = LoadProblem::Severity;
namespace od = simdjson::ondemand;

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

struct BeginEnd
{
    int64_t ts = 0;
    uint32_t seq = 0;
    bool begin = true;
    uint32_t nameId = 0;
    std::string args;
};

struct TrackState
{
    std::string pidToken, tidToken;
    std::vector<BeginEnd> beginEnds;
};

// Everything one parse attempt accumulates; a retry after repairing the text starts afresh.
class ChromeState
{
public:
    explicit ChromeState(const std::string &path) : problems(path)
    {
        out.path = path;
        out.worker.info.sourceFile = path;
        out.worker.info.kind = SourceKind::ChromeTrace;
    }
    void parse(od::document &doc);
    ParsedFile finish();

    ParsedFile out;
    ProblemLog problems;
    std::optional<int> rank;
    int64_t events = 0;

private:
    void handleEvent(od::value el);
    uint32_t trackFor(std::string_view pidTok, std::string_view tidTok);
    void seeTime(int64_t t);
    void matchBeginEnds(uint32_t ti);
    void nameTracks();

    std::unordered_map<std::string, uint32_t> m_trackIndex;
    std::vector<TrackState> m_tracks;
    std::map<std::string, std::string> m_processNames;
    std::map<std::string, std::string> m_threadNames;
    std::map<int64_t, int64_t> m_pidCounts;
    std::map<std::string, int64_t> m_unsupported;
    uint32_t m_seq = 0;
    bool m_anyTime = false;
    int64_t m_synthetic = 0;
};

void ChromeState::seeTime(int64_t t)
{
    WorkerInfo &i = out.worker.info;
    if (!m_anyTime) {
        i.firstLocalNs = i.lastLocalNs = t;
        m_anyTime = true;
    }
    i.firstLocalNs = std::min(i.firstLocalNs, t);
    i.lastLocalNs = std::max(i.lastLocalNs, t);
}

uint32_t ChromeState::trackFor(std::string_view pidTok, std::string_view tidTok)
{
    std::string key;
    key.reserve(pidTok.size() + tidTok.size() + 1);
    key.append(pidTok).append(1, '\x1f').append(tidTok);
    auto [it, inserted] = m_trackIndex.emplace(std::move(key), uint32_t(m_tracks.size()));
    if (inserted) {
        auto idOf = [this](std::string_view tok) {
            int64_t v = 0;
            if (!tok.empty() && tok[0] != '"' && ChromeTraceParser::microsToNs(tok, v) &&
                v % 1000 == 0)
                return v / 1000;
            return --m_synthetic; // string ids get synthetic negative ids
        };
        EventTrack t;
        t.pid = idOf(pidTok);
        t.tid = idOf(tidTok);
        out.worker.tracks.push_back(std::move(t));
        m_tracks.push_back({std::string(pidTok), std::string(tidTok), {}});
    }
    return it->second;
}

void ChromeState::handleEvent(od::value el)
{
    std::string_view ph, name, cat, pidTok = "0", tidTok = "0", tsTok, durTok, idTok, bp, argsRaw;
    for (auto field : el.get_object()) {
        const std::string_view k = field.unescaped_key();
        od::value v = field.value();
        if (k == "ph")
            ph = v.get_string();
        else if (k == "name")
            name = v.get_string();
        else if (k == "cat")
            cat = v.get_string();
        else if (k == "pid")
            pidTok = trimmed(v.raw_json_token());
        else if (k == "tid")
            tidTok = trimmed(v.raw_json_token());
        else if (k == "ts")
            tsTok = trimmed(v.raw_json_token());
        else if (k == "dur")
            durTok = trimmed(v.raw_json_token());
        else if (k == "id")
            idTok = trimmed(v.raw_json_token());
        else if (k == "bp")
            bp = v.get_string();
        else if (k == "args" && v.type() == od::json_type::object) {
            od::object args = v.get_object();
            argsRaw = args.raw_json();
        }
    }
    ++events;
    if (ph.empty()) {
        ++m_unsupported["(no ph)"];
        return;
    }
    const char p = ph[0];
    if (p == 'M') {
        if (name != "process_name" && name != "thread_name")
            return;
        auto args = nlohmann::json::parse(argsRaw.empty() ? std::string_view("{}") : argsRaw,
                                          nullptr, false);
        std::string label = args.is_object() ? args.value("name", std::string()) : std::string();
        if (name == "process_name")
            m_processNames[std::string(pidTok)] = label;
        else
            m_threadNames[std::string(pidTok) + '\x1f' + std::string(tidTok)] = label;
        return;
    }
    if (p != 'X' && p != 'B' && p != 'E' && p != 'i' && p != 'I' && p != 'R' && p != 's' &&
        p != 't' && p != 'f') {
        ++m_unsupported[std::string(ph)];
        return;
    }
    int64_t ts = 0;
    if (!ChromeTraceParser::microsToNs(tsTok, ts)) {
        problems.add("events without a valid ts", 0,
                     "event \"" + std::string(name) + "\" (ph " + std::string(ph) +
                         ") has no numeric ts; skipped");
        return;
    }
    const uint32_t ti = trackFor(pidTok, tidTok);
    EventTrack &t = out.worker.tracks[ti];
    if (t.pid >= 0)
        ++m_pidCounts[t.pid];
    seeTime(ts);
    if (p == 'B' || p == 'E') {
        m_tracks[ti].beginEnds.push_back(
            {ts, m_seq++, p == 'B', out.names.intern(name), std::string(argsRaw)});
        return;
    }
    if (p == 's' || p == 't' || p == 'f') {
        FlowPoint fp;
        fp.track = ti;
        fp.localNs = ts;
        int64_t id = 0;
        fp.id = ChromeTraceParser::microsToNs(idTok, id) ? uint64_t(id / 1000)
                                                         : std::hash<std::string_view>()(idTok);
        fp.phase = p;
        fp.bindEnclosing = bp == "e";
        fp.nameId = out.names.intern(name);
        fp.categoryId = out.names.intern(cat);
        out.flows.push_back(fp);
        return;
    }
    int64_t end = ts;
    uint16_t flags = EventInstant;
    if (p == 'X') {
        int64_t dur = 0;
        if (!durTok.empty() && !ChromeTraceParser::microsToNs(durTok, dur))
            problems.add("bad durations", 0,
                         "event \"" + std::string(name) + "\" has a non-numeric dur; taken as 0");
        end = ts + std::max<int64_t>(dur, 0);
        flags = 0;
        seeTime(end);
    }
    const auto index = uint32_t(t.localStart.size());
    t.localStart.push_back(ts);
    t.localEnd.push_back(end);
    t.nameId.push_back(out.names.intern(name));
    t.flags.push_back(flags);
    if (!argsRaw.empty() && argsRaw.find_first_not_of("{} \t\n") != std::string_view::npos) {
        t.argRefs.emplace_back(index, uint32_t(out.args.size()));
        out.args.emplace_back(argsRaw);
        t.flags.back() |= EventHasArgs;
    }
}

void ChromeState::parse(od::document &doc)
{
    auto events = [this](od::array arr) {
        for (auto el : arr)
            handleEvent(el.value());
    };
    if (doc.type() == od::json_type::array) {
        events(doc.get_array());
        return;
    }
    bool found = false;
    for (auto field : doc.get_object()) {
        const std::string_view k = field.unescaped_key();
        if (k == "traceEvents") {
            events(field.value().get_array());
            found = true;
        } else if (k == "distributedInfo") {
            for (auto f : field.value().get_object())
                if (f.unescaped_key().value() == "rank")
                    rank = int(f.value().get_int64().value());
        }
    }
    if (!found)
        throw std::runtime_error("no \"traceEvents\" array: not a Chrome trace");
}

// Chrome's rule: an E ends the most recent open B of its thread (in time order), whatever its
// name; a named E that differs is reported. Unmatched E's are reported; B's left are open.
void ChromeState::matchBeginEnds(uint32_t ti)
{
    auto &be = m_tracks[ti].beginEnds;
    std::stable_sort(be.begin(), be.end(),
                     [](const BeginEnd &a, const BeginEnd &b) { return a.ts < b.ts; });
    EventTrack &t = out.worker.tracks[ti];
    std::vector<uint32_t> stack;
    for (BeginEnd &r : be) {
        if (r.begin) {
            stack.push_back(uint32_t(t.localStart.size()));
            t.localStart.push_back(r.ts);
            t.localEnd.push_back(out.worker.info.lastLocalNs);
            t.nameId.push_back(r.nameId);
            t.flags.push_back(EventOpen);
            if (!r.args.empty() && r.args.find_first_not_of("{} \t\n") != std::string::npos) {
                t.argRefs.emplace_back(uint32_t(t.localStart.size() - 1),
                                       uint32_t(out.args.size()));
                out.args.push_back(std::move(r.args));
                t.flags.back() |= EventHasArgs;
            }
            continue;
        }
        if (stack.empty()) {
            problems.add("ends without a begin", 0,
                         "end without a begin on pid " + m_tracks[ti].pidToken + " tid " +
                             m_tracks[ti].tidToken + " at ts " + std::to_string(r.ts) +
                             " ns; dropped");
            continue;
        }
        const uint32_t e = stack.back();
        stack.pop_back();
        if (r.nameId != 0 && r.nameId != t.nameId[e])
            problems.add("misnested ends", 0,
                         "E \"" + std::string(out.names.name(r.nameId)) + "\" closes \"" +
                             std::string(out.names.name(t.nameId[e])) + "\" on tid " +
                             m_tracks[ti].tidToken);
        t.localEnd[e] = r.ts;
        t.flags[e] &= uint16_t(~EventOpen);
    }
    if (!stack.empty())
        problems.add("open events", 0,
                     std::to_string(stack.size()) + " B event(s) without E kept as open",
                     Severity::Info);
    be.clear();
    be.shrink_to_fit();
}

void ChromeState::nameTracks()
{
    for (size_t i = 0; i < m_tracks.size(); ++i) {
        const TrackState &s = m_tracks[i];
        std::string thread;
        auto tn = m_threadNames.find(s.pidToken + '\x1f' + s.tidToken);
        if (tn != m_threadNames.end())
            thread = tn->second;
        else if (!s.tidToken.empty() && s.tidToken[0] == '"')
            thread = s.tidToken.substr(1, s.tidToken.size() - 2);
        else
            thread = "tid " + s.tidToken;
        auto pn = m_processNames.find(s.pidToken);
        std::string process = pn != m_processNames.end() ? pn->second
                              : (!s.pidToken.empty() && s.pidToken[0] == '"')
                                  ? s.pidToken.substr(1, s.pidToken.size() - 2)
                                  : "pid " + s.pidToken;
        out.worker.tracks[i].threadName = process + " / " + thread;
    }
}

ParsedFile ChromeState::finish()
{
    for (uint32_t ti = 0; ti < m_tracks.size(); ++ti)
        matchBeginEnds(ti);
    nameTracks();
    int64_t bestCount = -1;
    for (const auto &[pid, n] : m_pidCounts)
        if (n > bestCount) {
            bestCount = n;
            out.worker.info.pid = pid;
        }
    for (const auto &[ph, n] : m_unsupported)
        problems.add("unsupported phases", 0,
                     std::to_string(n) + " event(s) of phase '" + ph +
                         "' ignored (not shown on the timeline)",
                     Severity::Info);
    out.records = events;
    out.problems = problems.take();
    return std::move(out);
}

} // namespace

bool ChromeTraceParser::microsToNs(std::string_view text, int64_t &ns)
{
    text = trimmed(text);
    if (text.empty())
        return false;
    size_t i = 0;
    const bool neg = text[0] == '-';
    if (neg)
        ++i;
    int64_t whole = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (whole > (INT64_MAX / 1000 - 9) / 10)
            return false;
        whole = whole * 10 + (text[i] - '0');
    }
    if (digits == 0)
        return false;
    int64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fracDigits) {
            if (fracDigits < 3)
                frac = frac * 10 + (text[i] - '0');
            else if (fracDigits == 3)
                roundUp = text[i] >= '5'; // the first dropped digit rounds to the nearest ns
        }
    }
    for (int d = fracDigits; d < 3; ++d)
        frac *= 10;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        const double d = std::strtod(std::string(text).c_str(), nullptr) * 1000.0;
        if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
            return false;
        ns = int64_t(std::llround(d));
        return true;
    }
    if (i != text.size())
        return false;
    const int64_t v = whole * 1000 + frac + (roundUp ? 1 : 0);
    ns = neg ? -v : v;
    return true;
}

std::string ChromeTraceParser::closeTruncated(std::string_view text)
{
    std::vector<char> stack;
    size_t good = 0, goodDepth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            stack.push_back(c == '[' ? ']' : '}');
        } else if (c == ']' || c == '}') {
            if (stack.empty() || stack.back() != c)
                return {};
            stack.pop_back();
            good = i + 1;
            goodDepth = stack.size();
        }
    }
    if (good == 0)
        return {};
    std::string out(text.substr(0, good));
    for (size_t d = goodDepth; d-- > 0;)
        out += stack[d];
    return out;
}

ParsedFile ChromeTraceParser::parseFile(const std::string &path, const std::atomic<bool> *cancel)
{
    simdjson::padded_string text;
    if (auto err = simdjson::padded_string::load(path).get(text)) {
        ParsedFile out;
        out.path = path;
        out.problems.push_back({Severity::Error, path, 0,
                                std::string("cannot read: ") + simdjson::error_message(err)});
        return out;
    }
    od::parser parser;
    std::string firstError;
    for (int attempt = 0; attempt < 2; ++attempt) {
        ChromeState state(path);
        try {
            od::document doc = parser.iterate(text);
            state.parse(doc);
            if (attempt == 1)
                state.problems.add("truncated JSON", 0,
                                   "JSON not closed (" + firstError +
                                       "); read up to the last complete event",
                                   Severity::Info);
        } catch (const std::exception &e) {
            if (attempt == 0) {
                firstError = e.what();
                std::string closed = closeTruncated(std::string_view(text.data(), text.size()));
                if (!closed.empty() && closed.size() != text.size()) {
                    text = simdjson::padded_string(closed);
                    continue;
                }
            }
            ParsedFile out;
            out.path = path;
            out.problems.push_back({Severity::Error, path, 0,
                                    "not a readable Chrome trace: " + std::string(e.what())});
            return out;
        }
        ParsedFile out = state.finish();
        out.bytes = int64_t(text.size());
        if (state.rank) {
            out.worker.info.rank = *state.rank;
        } else {
            out.rankKnown = false; // the loader takes it from the file name or numbers the worker
        }
        out.usable = true;
        (void)cancel;
        return out;
    }
    return {};
}

} // namespace syncline
