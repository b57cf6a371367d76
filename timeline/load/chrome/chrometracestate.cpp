// ChromeTraceState — see chrometracestate.h.
#include "timeline/load/chrome/chrometracestate.h"

#include "timeline/load/chrome/chrometraceparser.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace syncline::load {

using Severity = LoadProblem::Severity;
namespace od = simdjson::ondemand;

ChromeTraceState::ChromeTraceState(const std::string &path) : problems(path)
{
    m_out.path = path;
    m_out.worker.info.sourceFile = path;
    m_out.worker.info.kind = SourceKind::ChromeTrace;
}

std::string_view ChromeTraceState::trimmed(std::string_view s)
{
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

void ChromeTraceState::seeTime(int64_t t)
{
    WorkerInfo &i = m_out.worker.info;
    if (!m_anyTime) {
        i.firstLocalNs = i.lastLocalNs = t;
        m_anyTime = true;
    }
    i.firstLocalNs = std::min(i.firstLocalNs, t);
    i.lastLocalNs = std::max(i.lastLocalNs, t);
}

uint32_t ChromeTraceState::trackFor(std::string_view pidTok, std::string_view tidTok)
{
    std::string key;
    key.reserve(pidTok.size() + tidTok.size() + 1);
    key.append(pidTok).append(1, '\x1f').append(tidTok);
    if (m_tracks.size() >= ParsedFile::kMaxTracks) {
        const auto known = m_trackIndex.find(key);
        return known == m_trackIndex.end() ? kNoTrack : known->second;
    }
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
        m_out.worker.tracks.push_back(std::move(t));
        m_tracks.push_back({std::string(pidTok), std::string(tidTok), {}});
    }
    return it->second;
}

ChromeTraceState::Event ChromeTraceState::readEvent(od::value el)
{
    Event ev;
    for (auto field : el.get_object()) {
        const std::string_view k = field.unescaped_key();
        od::value v = field.value();
        if (k == "ph")
            ev.ph = v.get_string();
        else if (k == "name")
            ev.name = v.get_string();
        else if (k == "cat")
            ev.cat = v.get_string();
        else if (k == "pid")
            ev.pidTok = trimmed(v.raw_json_token());
        else if (k == "tid")
            ev.tidTok = trimmed(v.raw_json_token());
        else if (k == "ts")
            ev.tsTok = trimmed(v.raw_json_token());
        else if (k == "dur")
            ev.durTok = trimmed(v.raw_json_token());
        else if (k == "id")
            ev.idTok = trimmed(v.raw_json_token());
        else if (k == "bp")
            ev.bp = v.get_string();
        else if (k == "args" && v.type() == od::json_type::object) {
            od::object args = v.get_object();
            ev.argsRaw = args.raw_json();
        }
    }
    return ev;
}

void ChromeTraceState::handleEvent(od::value el)
{
    const Event ev = readEvent(el);
    ++events;
    if (ev.ph.empty()) {
        ++m_unsupported["(no ph)"];
        return;
    }
    const char p = ev.ph[0];
    if (p == 'M') {
        handleMetadata(ev);
        return;
    }
    if (p != 'X' && p != 'B' && p != 'E' && p != 'i' && p != 'I' && p != 'R' && p != 's' &&
        p != 't' && p != 'f') {
        ++m_unsupported[std::string(ev.ph)];
        return;
    }
    int64_t ts = 0;
    if (!ChromeTraceParser::microsToNs(ev.tsTok, ts)) {
        problems.add("events without a valid ts", 0,
                     "event \"" + std::string(ev.name) + "\" (ph " + std::string(ev.ph) +
                         ") has no numeric ts; skipped");
        return;
    }
    const uint32_t ti = trackFor(ev.pidTok, ev.tidTok);
    if (ti == kNoTrack) {
        problems.add("too many threads", 0,
                     "event \"" + std::string(ev.name) + "\" of tid " + std::string(ev.tidTok) +
                         " dropped: the trace has " + std::to_string(ParsedFile::kMaxTracks) +
                         " threads already (the most one file may have)");
        return;
    }
    if (m_out.worker.tracks[ti].pid >= 0)
        ++m_pidCounts[m_out.worker.tracks[ti].pid];
    seeTime(ts);
    if (p == 'B' || p == 'E')
        m_tracks[ti].beginEnds.push_back(
            {ts, m_seq++, p == 'B', m_out.names.intern(ev.name), std::string(ev.argsRaw)});
    else if (p == 's' || p == 't' || p == 'f')
        addFlow(ti, ts, ev);
    else
        addSlice(ti, ts, ev);
}

// M records: process_name / thread_name give the tracks their labels; others are ignored.
void ChromeTraceState::handleMetadata(const Event &ev)
{
    if (ev.name != "process_name" && ev.name != "thread_name")
        return;
    auto args = nlohmann::json::parse(ev.argsRaw.empty() ? std::string_view("{}") : ev.argsRaw,
                                      nullptr, false);
    std::string label;
    if (args.is_object() && args.contains("name")) {
        if (args["name"].is_string())
            label = args["name"].get<std::string>();
        else // e.g. "args":{"name":5}: the label is dropped, the trace is not
            problems.add("bad metadata", 0,
                         std::string(ev.name) + " whose args.name is not a string (" +
                             args["name"].dump().substr(0, 40) + "); label ignored");
    }
    if (ev.name == "process_name")
        m_processNames[std::string(ev.pidTok)] = label;
    else
        m_threadNames[std::string(ev.pidTok) + '\x1f' + std::string(ev.tidTok)] = label;
}

void ChromeTraceState::addFlow(uint32_t track, int64_t ts, const Event &ev)
{
    FlowPoint fp;
    fp.track = track;
    fp.localNs = ts;
    int64_t id = 0;
    fp.id = ChromeTraceParser::microsToNs(ev.idTok, id) ? uint64_t(id / 1000)
                                                        : std::hash<std::string_view>()(ev.idTok);
    fp.phase = ev.ph[0];
    fp.bindEnclosing = ev.bp == "e";
    fp.nameId = m_out.names.intern(ev.name);
    fp.categoryId = m_out.names.intern(ev.cat);
    m_out.flows.push_back(fp);
}

// X (complete, with dur) and i/I/R (instants).
void ChromeTraceState::addSlice(uint32_t track, int64_t ts, const Event &ev)
{
    int64_t end = ts;
    uint16_t flags = EventInstant;
    if (ev.ph[0] == 'X') {
        int64_t dur = 0;
        if (!ev.durTok.empty() && !ChromeTraceParser::microsToNs(ev.durTok, dur))
            problems.add("bad durations", 0,
                         "event \"" + std::string(ev.name) +
                             "\" has a non-numeric dur; taken as 0");
        if (!logEndInRange(ts, std::max<int64_t>(dur, 0), &end)) {
            problems.add("times out of range", 0,
                         "event \"" + std::string(ev.name) +
                             "\" ends past the readable range (ts + dur > 2^62 ns); skipped");
            return;
        }
        flags = 0;
        seeTime(end);
    }
    EventTrack &t = m_out.worker.tracks[track];
    const uint32_t index = m_out.addEvent(t, ts, end, m_out.names.intern(ev.name), flags);
    m_out.addArgs(t, index, ev.argsRaw);
}

// distributedInfo.rank: an integer in int's range; a string of digits is taken (with a
// warning); anything else is ignored with a warning and the loader numbers the worker.
void ChromeTraceState::readRank(simdjson::ondemand::value v)
{
    int64_t r = 0;
    std::string_view text;
    if (v.get_int64().get(r) == simdjson::SUCCESS) {
    } else if (v.get_string().get(text) == simdjson::SUCCESS && !text.empty() && text.size() <= 9 &&
               std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        r = std::stoll(std::string(text));
        problems.add("bad metadata", 0,
                     "distributedInfo.rank is a string (\"" + std::string(text) +
                         "\"); taken as rank " + std::to_string(r));
    } else {
        problems.add("bad metadata", 0,
                     "distributedInfo.rank is not an integer; ignored (rank from the file name "
                     "or the next free one)");
        return;
    }
    if (r < 0 || r > std::numeric_limits<int>::max()) {
        problems.add("bad metadata", 0,
                     "distributedInfo.rank " + std::to_string(r) + " is out of range; ignored");
        return;
    }
    rank = int(r);
}

void ChromeTraceState::parse(od::document &doc)
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
                    readRank(f.value());
        }
    }
    if (!found)
        throw std::runtime_error("no \"traceEvents\" array: not a Chrome trace");
}

// Chrome's rule: an E ends the most recent open B of its thread (in time order), whatever its
// name; a named E that differs is reported. Unmatched E's are reported; B's left are open.
void ChromeTraceState::matchBeginEnds(uint32_t ti)
{
    auto &be = m_tracks[ti].beginEnds;
    std::stable_sort(be.begin(), be.end(),
                     [](const BeginEnd &a, const BeginEnd &b) { return a.ts < b.ts; });
    EventTrack &t = m_out.worker.tracks[ti];
    std::vector<uint32_t> stack;
    for (BeginEnd &r : be) {
        if (r.begin) {
            const uint32_t index =
                m_out.addEvent(t, r.ts, m_out.worker.info.lastLocalNs, r.nameId, EventOpen);
            stack.push_back(index);
            m_out.addArgs(t, index, r.args);
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
                         "E \"" + std::string(m_out.names.name(r.nameId)) + "\" closes \"" +
                             std::string(m_out.names.name(t.nameId[e])) + "\" on tid " +
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

void ChromeTraceState::nameTracks()
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
        m_out.worker.tracks[i].threadName = process + " / " + thread;
    }
}

ParsedFile ChromeTraceState::finish()
{
    for (uint32_t ti = 0; ti < m_tracks.size(); ++ti)
        matchBeginEnds(ti);
    nameTracks();
    int64_t bestCount = -1;
    for (const auto &[pid, n] : m_pidCounts)
        if (n > bestCount) {
            bestCount = n;
            m_out.worker.info.pid = pid;
        }
    for (const auto &[ph, n] : m_unsupported)
        problems.add("unsupported phases", 0,
                     std::to_string(n) + " event(s) of phase '" + ph +
                         "' ignored (not shown on the timeline)",
                     Severity::Info);
    m_out.records = events;
    m_out.problems = problems.take();
    return std::move(m_out);
}

} // namespace syncline::load
