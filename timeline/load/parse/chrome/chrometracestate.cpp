// ChromeTraceState — see chrometracestate.h.
#include "timeline/load/parse/chrome/chrometracestate.h"

#include "timeline/load/parse/chrome/chrometraceparser.h"
#include "timeline/load/parse/chrome/kinetoview.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;
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

// A key as the document spells it when it holds no escape (every key a trace writer emits), else
// unescaped. Reading the document's own bytes copies nothing: unescaping every key of every event
// into the parser's string buffer was a tenth of a trace's page faults.
std::string_view ChromeTraceState::keyOf(od::field &field)
{
    const char *raw = field.key().raw(); // just past the opening quote; the document is valid
    for (const char *p = raw;; ++p) {
        if (*p == '"')
            return {raw, size_t(p - raw)};
        if (*p == '\\')
            return field.unescaped_key();
    }
}

// A string value likewise: its bytes in the document when they hold no escape, else unescaped
// (and anything that is not a string fails as get_string() does).
std::string_view ChromeTraceState::stringOf(od::value &v)
{
    const std::string_view tok = v.raw_json_token(); // "…" and what follows up to the next token
    if (tok.size() >= 2 && tok.front() == '"') {
        for (size_t i = 1; i < tok.size(); ++i) {
            if (tok[i] == '"')
                return tok.substr(1, i - 1);
            if (tok[i] == '\\')
                break;
        }
    }
    return v.get_string();
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
        auto idOf = [this](std::string_view tok, const char *what) {
            int64_t v = 0;
            const auto parsed = ChromeTraceParser::parseId(tok, v);
            if (parsed == ChromeTraceParser::IdToken::Integer)
                return v;
            if (parsed != ChromeTraceParser::IdToken::Text)
                problems.add(Kind::BadId, 0,
                             std::string(what) + " " + std::string(tok).substr(0, 64) + " " +
                                 ChromeTraceParser::idProblem(parsed) +
                                 "; its events are kept on a track of their own, named by it");
            return --m_synthetic; // string ids get synthetic negative ids
        };
        EventTrack t;
        t.pid = idOf(pidTok, "pid");
        t.tid = idOf(tidTok, "tid");
        m_out.worker.tracks.push_back(std::move(t));
        m_tracks.push_back({std::string(pidTok), std::string(tidTok), {}});
    }
    return it->second;
}

ChromeTraceState::Event ChromeTraceState::readEvent(od::value el)
{
    Event ev;
    for (auto result : el.get_object()) {
        if (result.error())
            throw simdjson::simdjson_error(result.error());
        od::field &field = result.value_unsafe();
        const std::string_view k = keyOf(field);
        od::value &v = field.value();
        if (k == "ph")
            ev.ph = stringOf(v);
        else if (k == "name")
            ev.name = stringOf(v);
        else if (k == "cat")
            ev.cat = stringOf(v);
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
            ev.bp = stringOf(v);
        else if (k == "scope" && v.type() == od::json_type::string)
            ev.scope = stringOf(v);
        else if (k == "id2" && ev.idTok.empty() && v.type() == od::json_type::object) {
            od::object id2 = v.get_object(); // {"local": "0x1"} or {"global": ...}: one token
            ev.idTok = trimmed(id2.raw_json());
        } else if (k == "args" && v.type() == od::json_type::object) {
            od::object args = v.get_object();
            ev.argsRaw = args.raw_json();
        }
    }
    return ev;
}

void ChromeTraceState::handleEvent(od::value el)
{
    Event ev = readEvent(el);
    std::string stepArgs; // ProfilerStep#N → ProfilerStep with {"step": N, …} (kinetoview.h)
    if (KinetoView::foldProfilerStep(ev.name, ev.argsRaw, stepArgs))
        ev.argsRaw = stepArgs;
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
        p != 't' && p != 'f' && p != 'C' && p != 'b' && p != 'e' && p != 'n') {
        ++m_unsupported[std::string(ev.ph)];
        return;
    }
    int64_t ts = 0;
    if (!ChromeTraceParser::microsToNs(ev.tsTok, ts)) {
        problems.add(Kind::EventWithoutTs, 0,
                     "event \"" + std::string(ev.name) + "\" (ph " + std::string(ev.ph) +
                         ") has no numeric ts; skipped");
        return;
    }
    if (p == 'C' || p == 'b' || p == 'e' || p == 'n') {
        // Not on a thread's track: counters and async spans have tracks of their own.
        const int64_t pid = pidOf(ev.pidTok);
        if (pid >= 0)
            ++m_pidCounts[pid];
        seeTime(ts);
        if (p == 'C')
            addCounter(ts, ev);
        else
            addAsync(ts, ev);
        return;
    }
    const uint32_t ti = trackFor(ev.pidTok, ev.tidTok);
    if (ti == kNoTrack) {
        problems.add(Kind::TooManyThreads, 0,
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

void ChromeTraceState::addFlow(uint32_t track, int64_t ts, const Event &ev)
{
    FlowPoint fp;
    fp.track = track;
    fp.localNs = ts;
    int64_t id = 0;
    const auto parsed = ChromeTraceParser::parseId(ev.idTok, id, true);
    if (parsed == ChromeTraceParser::IdToken::Integer) {
        fp.id = uint64_t(id);
    } else {
        // A string id (or a malformed number): flow points pair by the same text.
        fp.id = std::hash<std::string_view>()(ev.idTok);
        if (parsed != ChromeTraceParser::IdToken::Text)
            problems.add(Kind::BadId, 0,
                         "flow id " + std::string(ev.idTok).substr(0, 64) + " of \"" +
                             std::string(ev.name) + "\" " + ChromeTraceParser::idProblem(parsed) +
                             "; paired with flow points of the same text");
    }
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
            problems.add(Kind::BadDuration, 0,
                         "event \"" + std::string(ev.name) +
                             "\" has a non-numeric dur; taken as 0");
        if (!logEndInRange(ts, std::max<int64_t>(dur, 0), &end)) {
            problems.add(Kind::TimeOutOfRange, 0,
                         "event \"" + std::string(ev.name) +
                             "\" ends past the readable range (ts + dur > 2^62 ns); skipped");
            return;
        }
        flags = 0;
        seeTime(end);
    }
    if (KinetoView::isProfilerSpan(ev.name))
        flags |= EventProfilerSpan;
    EventTrack &t = m_out.worker.tracks[track];
    const uint32_t index = m_out.addEvent(t, ts, end, m_out.names.intern(ev.name), flags);
    m_out.addArgs(t, index, ev.argsRaw);
}

int64_t ChromeTraceState::pidOf(std::string_view pidTok)
{
    int64_t v = 0;
    if (ChromeTraceParser::parseId(pidTok, v) == ChromeTraceParser::IdToken::Integer)
        return v;
    return -1; // a string pid: no number (the track keeps its label)
}

// C: each numeric args member is one series of the counter (pid, name [+ " " + id]); Chrome
// draws a multi-key counter stacked, here each key gets a track of its own.
void ChromeTraceState::addCounter(int64_t ts, const Event &ev)
{
    auto args = nlohmann::json::parse(ev.argsRaw.empty() ? std::string_view("{}") : ev.argsRaw,
                                      nullptr, false);
    std::string name(ev.name);
    if (!ev.idTok.empty()) // Chrome: "the id is combined with the name to form the counter name"
        name += ' ' + (ev.idTok[0] == '"' ? std::string(ev.idTok.substr(1, ev.idTok.size() - 2))
                                          : std::string(ev.idTok));
    int added = 0;
    if (args.is_object())
        for (auto it = args.begin(); it != args.end(); ++it) {
            if (!it->is_number() || !std::isfinite(it->get<double>())) {
                problems.add(Kind::BadCounterValue, 0,
                             "counter \"" + name + "\" series \"" + it.key() +
                                 "\" has a value that is not a finite number (" +
                                 it->dump().substr(0, 40) + "); sample skipped");
                continue;
            }
            std::string key;
            key.append(ev.pidTok).append(1, '\x1f').append(name).append(1, '\x1f').append(it.key());
            if (m_out.worker.counters.size() >= ParsedFile::kMaxTracks &&
                !m_counterIndex.count(key)) {
                problems.add(Kind::TooManyCounters, 0,
                             "counter \"" + name + "\" series \"" + it.key() +
                                 "\" dropped: the trace has " +
                                 std::to_string(ParsedFile::kMaxTracks) +
                                 " counter series already (the limit per file)");
                continue;
            }
            auto [pos, inserted] =
                m_counterIndex.emplace(std::move(key), uint32_t(m_out.worker.counters.size()));
            if (inserted) {
                CounterTrack c;
                c.pid = pidOf(ev.pidTok);
                c.name = name;
                c.series = it.key();
                c.category = std::string(ev.cat);
                m_out.worker.counters.push_back(std::move(c));
            }
            m_out.worker.counters[pos->second].add(ts, it->get<double>());
            ++added;
        }
    if (added == 0 && (!args.is_object() || args.empty()))
        problems.add(Kind::BadCounterValue, 0,
                     "counter \"" + name +
                         "\" without numeric args (a C event's values are its "
                         "args members); skipped");
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
        problems.add(Kind::BadMetadata, 0,
                     "distributedInfo.rank is a string (\"" + std::string(text) +
                         "\"); taken as rank " + std::to_string(r));
    } else {
        problems.add(Kind::BadMetadata, 0,
                     "distributedInfo.rank is not an integer; ignored (rank from the file name "
                     "or the next free one)");
        return;
    }
    if (r < 0 || r > std::numeric_limits<int>::max()) {
        problems.add(Kind::BadMetadata, 0,
                     "distributedInfo.rank " + std::to_string(r) + " is out of range; ignored");
        return;
    }
    rank = int(r);
}

// baseTimeNanoseconds: an integer of ns in [0, kMaxTimeNs]; anything else is reported and
// ignored (the times then stay relative, as written).
void ChromeTraceState::readBaseTime(od::value v)
{
    int64_t base = 0;
    uint64_t big = 0;
    if (v.get_int64().get(base) != simdjson::SUCCESS) {
        const bool tooBig = v.get_uint64().get(big) == simdjson::SUCCESS;
        problems.add(Kind::BadMetadata, 0,
                     std::string("baseTimeNanoseconds is ") +
                         (tooBig ? "past the readable range" : "not an integer of ns") +
                         "; ignored (times stay relative to the profiler's base)");
        return;
    }
    if (base < 0 || base > kMaxTimeNs) {
        problems.add(Kind::BadMetadata, 0,
                     "baseTimeNanoseconds " + std::to_string(base) +
                         " is out of range; ignored (times stay relative to the profiler's base)");
        return;
    }
    baseTimeNs = base;
}

// Every time read (thread and async tracks, flows, counters, the worker's span) moves by the
// base; a trace whose last time would leave the readable range keeps its relative times.
void ChromeTraceState::applyBaseTime()
{
    if (baseTimeNs == 0 || !m_anyTime)
        return;
    WorkerInfo &info = m_out.worker.info;
    if (info.lastLocalNs > kMaxTimeNs - baseTimeNs || info.firstLocalNs < -kMaxTimeNs - baseTimeNs) {
        problems.add(Kind::TimeOutOfRange, 0,
                     "baseTimeNanoseconds " + std::to_string(baseTimeNs) +
                         " moves the trace's times past the readable range; not applied");
        return;
    }
    const int64_t b = baseTimeNs;
    for (EventTrack &t : m_out.worker.tracks) {
        for (int64_t &v : t.localStart)
            v += b;
        for (int64_t &v : t.localEnd)
            v += b;
    }
    for (CounterTrack &c : m_out.worker.counters)
        for (int64_t &v : c.localTs)
            v += b;
    for (FlowPoint &fp : m_out.flows)
        fp.localNs += b;
    info.firstLocalNs += b;
    info.lastLocalNs += b;
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
        } else if (k == "baseTimeNanoseconds") {
            readBaseTime(field.value());
        } else if (k == "displayTimeUnit") {
            std::string_view unit;
            if (field.value().get_string().get(unit) != simdjson::SUCCESS ||
                (unit != "ms" && unit != "ns"))
                problems.add(Kind::BadMetadata, 0,
                             "displayTimeUnit is not \"ms\" or \"ns\"; ignored (ts and dur "
                             "are µs whatever it says)",
                             Severity::Info);
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
            problems.add(Kind::EndWithoutBegin, 0,
                         "end without a begin on pid " + m_tracks[ti].pidToken + " tid " +
                             m_tracks[ti].tidToken + " at ts " + std::to_string(r.ts) +
                             " ns; dropped");
            continue;
        }
        const uint32_t e = stack.back();
        stack.pop_back();
        if (r.nameId != 0 && r.nameId != t.nameId[e])
            problems.add(Kind::MisnestedEnd, 0,
                         "E \"" + std::string(m_out.names.name(r.nameId)) + "\" closes \"" +
                             std::string(m_out.names.name(t.nameId[e])) + "\" on tid " +
                             m_tracks[ti].tidToken);
        t.localEnd[e] = r.ts;
        t.flags[e] &= uint16_t(~EventOpen);
    }
    if (!stack.empty())
        problems.add(Kind::OpenEvents, 0,
                     std::to_string(stack.size()) + " B event(s) without E kept as open",
                     Severity::Info);
    be.clear();
    be.shrink_to_fit();
}

ParsedFile ChromeTraceState::finish()
{
    for (uint32_t ti = 0; ti < m_tracks.size(); ++ti)
        matchBeginEnds(ti);
    nameTracks();
    finishAsync();
    for (CounterTrack &c : m_out.worker.counters)
        c.finish();
    CounterTrack::sortByKey(m_out.worker.counters);
    applyBaseTime();
    int64_t bestCount = -1;
    for (const auto &[pid, n] : m_pidCounts)
        if (n > bestCount) {
            bestCount = n;
            m_out.worker.info.pid = pid;
        }
    for (const auto &[ph, n] : m_unsupported)
        problems.add(Kind::UnsupportedPhase, 0,
                     std::to_string(n) + " event(s) of phase '" + ph +
                         "' ignored (not shown on the timeline)",
                     Severity::Info);
    m_out.records = events;
    m_out.problems = problems.take();
    return std::move(m_out);
}

} // namespace syncline::load
