#include "timeline/load/parse/log/logparser.h"

#include "recorder/utf8.h"
#include "timeline/load/parse/log/jsoncursor.h"
#include "timeline/load/parse/log/logheader.h"
#include "timeline/load/parse/textequal.h"

#include <algorithm>
#include <cstring>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;

LogParser::LogParser(std::string path) : m_problems(path)
{
    m_out.path = std::move(path);
    m_out.worker.info.sourceFile = m_out.path;
    m_out.worker.info.kind = SourceKind::SynclineLog;
}

bool LogParser::sniff(std::string_view head)
{
    const size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    LineScanner scanner;
    LogRecord r;
    if (scanner.scan(line, r))
        return true;
    // A log whose first line was cut by the sniff buffer: look for the record key.
    return nl == std::string_view::npos && line.substr(0, 8).find("{\"t\":") == 0;
}

size_t LogParser::feed(std::string_view text)
{
    size_t pos = 0;
    const char *const bufEnd = text.data() + text.size();
    while (pos < text.size()) {
        // The recorder's own layout of the bulk records is read straight from the buffer (its
        // end found by the layout); any other line is cut at its '\n' and read in full.
        const char *lineEnd = nullptr;
        if (!m_refused && m_scanner.scanAt(text.data() + pos, bufEnd, m_record, &lineEnd)) {
            const size_t end = size_t(lineEnd - text.data());
            ++m_line;
            ++m_out.records;
            handleRecord(m_record, text.substr(pos, end - pos));
            pos = end + 1;
            continue;
        }
        const void *nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
        if (!nl)
            break;
        const size_t end = static_cast<const char *>(nl) - text.data();
        ++m_line;
        handleLine(text.substr(pos, end - pos), false);
        pos = end + 1;
    }
    m_out.bytes += int64_t(pos);
    return pos;
}

void LogParser::handleLine(std::string_view line, bool last)
{
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (m_refused || first == std::string_view::npos)
        return; // blank lines are skipped; so is everything after an unsupported version
    m_sawObjectLine = m_sawObjectLine || line[first] == '{';
    if (!m_scanner.scan(line, m_record)) {
        if (last)
            return; // torn last line (possibly still being written): skipped silently
        m_problems.add(Kind::MalformedLine, m_line,
                       "malformed line: " + m_scanner.error() + " at column " +
                           std::to_string(m_scanner.errorColumn()));
        return;
    }
    ++m_out.records;
    handleRecord(m_record, line);
}

void LogParser::seeTime(int64_t ts)
{
    WorkerInfo &info = m_out.worker.info;
    if (!m_anyTime) {
        info.firstLocalNs = info.lastLocalNs = ts;
        m_anyTime = true;
        return;
    }
    info.firstLocalNs = std::min(info.firstLocalNs, ts);
    info.lastLocalNs = std::max(info.lastLocalNs, ts);
}

uint32_t LogParser::trackFor(int64_t tid)
{
    if (m_hasLastTrack && tid == m_lastTid)
        return m_lastTrack;
    // A process has a few threads: a scan of their tids beats the hash map.
    if (m_trackIndex.size() <= kFewTracks) {
        for (uint32_t k = 0; k < m_fewTids.size(); ++k)
            if (m_fewTids[k] == tid) {
                m_hasLastTrack = true;
                m_lastTid = tid;
                m_lastTrack = k;
                return k;
            }
    }
    if (m_out.worker.tracks.size() >= ParsedFile::kMaxTracks) {
        const auto known = m_trackIndex.find(tid);
        if (known == m_trackIndex.end()) {
            m_problems.add(Kind::TooManyThreads, m_line,
                           "record of tid " + std::to_string(tid) + " dropped: the file has " +
                               std::to_string(ParsedFile::kMaxTracks) +
                               " threads already (the most one file may have)");
            return kNoTrack;
        }
        m_hasLastTrack = true;
        m_lastTid = tid;
        m_lastTrack = known->second;
        return known->second;
    }
    auto [it, inserted] = m_trackIndex.emplace(tid, uint32_t(m_out.worker.tracks.size()));
    if (inserted) {
        if (m_fewTids.size() < kFewTracks)
            m_fewTids.push_back(tid);
        EventTrack t;
        if (m_out.worker.tracks.empty() && m_reserveHint > 0) {
            t.localStart.reserve(m_reserveHint);
            t.localEnd.reserve(m_reserveHint);
            t.nameId.reserve(m_reserveHint);
            t.flags.reserve(m_reserveHint);
        }
        t.tid = tid;
        t.pid = m_out.worker.info.pid;
        m_out.worker.tracks.push_back(std::move(t));
        m_open.emplace_back();
        m_lastTs.push_back(INT64_MIN);
    }
    m_hasLastTrack = true;
    m_lastTid = tid;
    m_lastTrack = it->second;
    return it->second;
}

void LogParser::checkOrder(uint32_t track, int64_t ts)
{
    if (ts < m_lastTs[track]) {
        m_problems.add(Kind::RecordOutOfOrder, m_line,
                       "record out of order: ts " + std::to_string(ts) +
                           " is before the previous record of tid " +
                           std::to_string(m_out.worker.tracks[track].tid) + " (" +
                           std::to_string(m_lastTs[track]) + "); kept and sorted");
    }
    m_lastTs[track] = ts; // report each backward jump once
}

void LogParser::handleRecord(const LogRecord &r, std::string_view line)
{
    const bool first = !m_sawRecord;
    m_sawRecord = true;
    if (r.type == RecordType::Header) {
        if (!first) {
            m_problems.add(Kind::MisplacedHeader, m_line,
                           "header record after the first line ignored");
            return;
        }
        handleHeader(line);
        return;
    }
    if (first)
        rankFromFileName("first line is not a header");
    if (r.hasTs && !logTimeInRange(r.ts)) {
        m_problems.add(Kind::TimeOutOfRange, m_line,
                       "ts " + std::to_string(r.ts) +
                           " is outside the readable range (|ts| <= 2^62 ns); record dropped");
        return;
    }
    switch (r.type) {
    case RecordType::Begin:
    case RecordType::Complete:
    case RecordType::Instant:
        handleEvent(r);
        return;
    case RecordType::End:
        if (need(r.hasTs, "ts") && need(r.hasTid, "tid"))
            handleEnd(r);
        return;
    case RecordType::Thread:
        if (need(r.hasTid, "tid")) {
            const uint32_t ti = trackFor(r.tid);
            if (ti != kNoTrack)
                m_out.worker.tracks[ti].threadName = std::string(validText(r.name, 0, "name"));
        }
        return;
    case RecordType::Sync:
        handleSync(r);
        return;
    case RecordType::Counter:
        handleCounter(r);
        return;
    case RecordType::Msg:
        if (!need(r.hasTs, "ts"))
            return;
        seeTime(r.ts);
        // The thread the link is drawn on (a record without tid: the first thread).
        m_out.messages.add(r.ts, r.dir == "send", r.peer, r.id, r.hasTid ? trackFor(r.tid) : 0);
        return;
    case RecordType::Heartbeat:
        if (r.hasTs) {
            seeTime(r.ts);
            m_out.worker.info.lastHeartbeatLocalNs = r.ts;
            addWallPair(r);
        }
        m_out.worker.info.droppedEvents = r.dropped;
        return;
    case RecordType::Note:
        m_problems.add(Kind::RecorderNote, m_line,
                       "recorder " + std::string(r.level) + ": " + std::string(r.msg),
                       Severity::Info);
        return;
    case RecordType::Close:
        if (r.hasTs) {
            seeTime(r.ts);
            addWallPair(r);
        }
        m_out.worker.info.closedCleanly = true;
        m_out.worker.info.droppedEvents = r.dropped;
        return;
    default:
        return; // unknown record types are ignored (forward compatibility)
    }
}

void LogParser::handleEvent(const LogRecord &r)
{
    if (!need(r.hasTs, "ts") || !need(r.hasTid, "tid") || !need(r.hasName, "name"))
        return;
    if (r.type == RecordType::Complete && !need(r.hasDur, "dur"))
        return;
    int64_t end = r.ts;
    uint16_t flags = EventOpen;
    if (r.type == RecordType::Complete) {
        flags = EventInterval;
        if (!logEndInRange(r.ts, std::max<int64_t>(r.dur, 0), &end)) {
            m_problems.add(Kind::TimeOutOfRange, m_line,
                           "X record whose end (ts + dur = " + std::to_string(r.ts) + " + " +
                               std::to_string(r.dur) +
                               ") is past the readable range (2^62 ns); record dropped");
            return;
        }
        if (r.dur < 0)
            m_problems.add(Kind::NegativeDuration, m_line,
                           "X record with negative dur; clamped to 0");
    } else if (r.type == RecordType::Instant) {
        flags = EventInstant;
    }
    const uint32_t ti = trackFor(r.tid);
    if (ti == kNoTrack)
        return;
    EventTrack &t = m_out.worker.tracks[ti];
    if (r.type == RecordType::Begin)
        checkOrder(ti, r.ts);
    seeTime(r.ts);
    seeTime(end);
    const uint32_t e = m_out.addEvent(
        t, r.ts, end, nameId(r.textAscii ? r.name : validText(r.name, 0, "name")), flags);
    if (r.type == RecordType::Begin) {
        m_open[ti].push_back(e);
        if (!m_openNames.empty()) [[unlikely]] {
            const auto counts = m_openNames.find(ti);
            if (counts != m_openNames.end())
                ++counts->second[t.nameId[e]];
        }
    }
    if (r.hasArgs)
        m_out.addArgs(t, e, validArgs(r.args, r.textAscii));
}

// C (format 1.1): one sample of the worker's counter `name`; a null value (the recorder was
// given NaN or an infinity) is a sample that is not shown.
void LogParser::handleCounter(const LogRecord &r)
{
    if (!need(r.hasTs, "ts") || !need(r.hasName, "name") || !need(r.hasValue, "value"))
        return;
    seeTime(r.ts);
    if (r.valueNull)
        return;
    const std::string_view name = validText(r.name, 0, "name");
    auto it = m_counterIndex.find(std::string(name));
    if (it == m_counterIndex.end() && m_out.worker.counters.size() >= ParsedFile::kMaxTracks) {
        m_problems.add(Kind::TooManyCounters, m_line,
                       "counter \"" + std::string(name) + "\" dropped: the file has " +
                           std::to_string(ParsedFile::kMaxTracks) +
                           " counter names already (the limit per file)");
        return;
    }
    if (it == m_counterIndex.end()) {
        it =
            m_counterIndex.emplace(std::string(name), uint32_t(m_out.worker.counters.size())).first;
        CounterTrack c;
        c.pid = m_out.worker.info.pid;
        c.name = std::string(name);
        m_out.worker.counters.push_back(std::move(c));
    }
    m_out.worker.counters[it->second].add(r.ts, r.value);
}

uint32_t LogParser::nameId(std::string_view name)
{
    // A few names make up almost every event: a small direct-mapped cache of (text, id) in
    // front of the table's hash map, checked byte for byte.
    const size_t slot =
        (name.size() * 7 + (name.empty() ? 0
                                         : static_cast<unsigned char>(name.front()) * 3 +
                                               static_cast<unsigned char>(name.back()))) &
        (kNameCache - 1);
    NameCacheEntry &c = m_nameCache[slot];
    if (c.id != UINT32_MAX && equalText(c.text, name))
        return c.id;
    const uint32_t id = m_out.names.intern(name);
    c.text = m_out.names.name(id); // stable: the table never moves its strings
    c.id = id;
    return id;
}

std::string_view LogParser::validText(std::string_view text, int slot, const char *what)
{
    if (utf8::isValid(text)) [[likely]]
        return text;
    size_t replaced = 0;
    m_fixed[slot] = utf8::replaceInvalid(text, &replaced);
    m_problems.add(Kind::InvalidUtf8, m_line,
                   std::string("invalid UTF-8 in ") + what + ": " + std::to_string(replaced) +
                       " byte(s) replaced by U+FFFD");
    return m_fixed[slot];
}

std::string_view LogParser::validArgs(std::string_view text, bool ascii)
{
    const std::string_view t = ascii ? text : validText(text, 1, "args");
    if (t.find("\\u") == std::string_view::npos) [[likely]]
        return t;
    std::string fixed;
    const size_t replaced = replaceLoneSurrogateEscapes(t, fixed);
    if (replaced == 0)
        return t;
    m_fixed[1] = std::move(fixed); // t may point into the old m_fixed[1]: replaced only now
    m_problems.add(Kind::InvalidUtf8, m_line,
                   "lone surrogate escape in args: " + std::to_string(replaced) +
                       " \\uD800-\\uDFFF without its pair replaced by \\ufffd");
    return m_fixed[1];
}

void LogParser::missingKey(const char *what)
{
    m_problems.add(Kind::MalformedLine, m_line,
                   std::string("malformed line: record without \"") + what + "\"");
}

void LogParser::handleEnd(const LogRecord &r)
{
    const uint32_t ti = trackFor(r.tid);
    if (ti == kNoTrack)
        return;
    EventTrack &t = m_out.worker.tracks[ti];
    auto &stack = m_open[ti];
    seeTime(r.ts);
    if (stack.empty()) {
        m_problems.addAt(Kind::EndWithoutBegin, m_line, r.tid, r.ts,
                         "end without a begin: E \"" + std::string(r.name) + "\" on tid " +
                             std::to_string(r.tid) + " has no open event; dropped");
        return;
    }
    uint32_t e = stack.back();
    const std::string_view openName = m_out.names.name(t.nameId[e]);
    const std::string_view name = !r.hasName    ? std::string_view()
                                  : r.textAscii ? r.name
                                                : validText(r.name, 0, "name");
    // Per open event closed here: its count in the track's name index (when it has one).
    std::unordered_map<uint32_t, uint32_t> *counts = nullptr;
    if (!m_openNames.empty()) [[unlikely]] {
        const auto it = m_openNames.find(ti);
        counts = it != m_openNames.end() ? &it->second : nullptr;
    }
    if (r.hasName && !equalText(name, openName)) {
        // A lost E (Chrome and Perfetto do the same): when an enclosing open event has this
        // name, the end closes it and every event still open inside it, at this time — so the
        // rest of the thread keeps its depth. Otherwise the E is dropped. Whether one has it
        // comes from the track's count of open events per name (built at its first such E), so
        // a run of E records that close nothing costs O(1) each, not a scan of the stack.
        if (!counts) {
            counts = &m_openNames[ti];
            for (const uint32_t open : stack)
                ++(*counts)[t.nameId[open]];
        }
        const uint32_t id = m_out.names.find(name); // names are interned: same text, same id
        const auto open = id == UINT32_MAX ? counts->end() : counts->find(id);
        if (open == counts->end() || open->second == 0) {
            m_problems.addAt(Kind::MisnestedEnd, m_line, r.tid, r.ts,
                             "misnesting: E \"" + std::string(name) + "\" on tid " +
                                 std::to_string(r.tid) + " but the innermost open event is \"" +
                                 std::string(openName) +
                                 "\" and no open event has that name; "
                                 "E dropped");
            return;
        }
        // The innermost open event of that name; what lies above it is closed here, so the
        // scan is paid for by the B records that opened those events.
        size_t k = stack.size() - 1;
        while (t.nameId[stack[k]] != id)
            --k;
        checkOrder(ti, r.ts);
        std::string closed;
        for (size_t j = stack.size() - 1; j > k; --j) {
            const uint32_t inner = stack[j];
            t.localEnd[inner] = std::max(r.ts, t.localStart[inner]);
            t.flags[inner] &= uint16_t(~EventOpen);
            --(*counts)[t.nameId[inner]];
            closed += (closed.empty() ? "\"" : ", \"") +
                      std::string(m_out.names.name(t.nameId[inner])) + "\"";
        }
        m_problems.addAt(Kind::LostEnd, m_line, r.tid, r.ts,
                         "misnesting: E \"" + std::string(name) + "\" on tid " +
                             std::to_string(r.tid) + " while " + closed +
                             " still open inside it (its E lost?); closed at this end");
        stack.resize(k + 1);
        e = stack.back();
    } else {
        checkOrder(ti, r.ts);
    }
    stack.pop_back();
    if (counts)
        --(*counts)[t.nameId[e]];
    t.localEnd[e] = std::max(r.ts, t.localStart[e]);
    t.flags[e] &= uint16_t(~EventOpen);
    if (r.hasArgs) {
        if (t.flags[e] & EventHasArgs) {
            // Merge {"a":1} and {"b":2} into {"a":1,"b":2}: both are validated objects.
            // argRefs is sorted by event (the parser adds them in event order): a binary
            // search, not a scan back over the args of every event opened since.
            auto it = std::lower_bound(t.argRefs.begin(), t.argRefs.end(), e,
                                       [](const auto &p, uint32_t ev) { return p.first < ev; });
            // Texts are interned (shared by other events): the merged text gets its own id.
            std::string_view more = validArgs(r.args, false).substr(1);
            more.remove_prefix(std::min(more.find_first_not_of(" \t"), more.size()));
            if (more.front() != '}') {
                const std::string_view old = m_out.args.text(it->second);
                std::string text(old.substr(0, old.find_last_of('}')));
                text += ',';
                text += more;
                it->second = m_out.args.intern(text);
            }
        } else {
            m_out.addArgs(t, e, validArgs(r.args, false));
        }
    }
}

void LogParser::handleHeader(std::string_view line)
{
    m_sawHeader = true;
    std::optional<int64_t> startNs;
    if (!LogHeader::read(line, m_line, m_out.worker.info, m_problems, &m_refused, &startNs)) {
        // A header that could not be read (reported above) gives no rank: the file name's, as
        // for a log without a header. A refused version loads no records at all.
        if (!m_refused) {
            m_sawHeader = false;
            rankFromFileName("the header could not be read");
        }
        return;
    }
    if (startNs)
        seeTime(*startNs);
}

void LogParser::rankFromFileName(std::string_view why)
{
    if (m_sawHeader)
        return;
    m_sawHeader = true; // report once
    const std::optional<int> rank = LogHeader::rankFromFileName(m_out.path);
    if (!rank) {
        // Still a worker: WorkerAdmission gives it the next free rank (with an Info problem),
        // as it does for a Chrome trace without one.
        m_out.rankKnown = false;
        m_problems.add(Kind::BadHeader, 1,
                       std::string(why) +
                           " and the file name has no rank; the worker gets the next free rank",
                       Severity::Warning);
        return;
    }
    m_out.worker.info.rank = *rank;
    m_problems.add(Kind::BadHeader, 1,
                   std::string(why) + "; rank " + std::to_string(*rank) +
                       " taken from the file name",
                   Severity::Warning);
}

ParsedFile LogParser::finish(std::string_view tail)
{
    if (!tail.empty()) {
        ++m_line;
        handleLine(tail, true);
    }
    if (!m_sawRecord && !m_sawObjectLine) {
        // Not a syncline log (a launcher's stdout, torchrun's --log_dir files): what its lines
        // were called is noise; one Info names the file.
        (void)m_problems.take();
        m_problems.add(Kind::NotALog, 0,
                       m_line == 0 ? std::string("empty file (no syncline records); skipped")
                                   : "no syncline records in its " + std::to_string(m_line) +
                                         " lines (launcher or torchrun output?); skipped",
                       Severity::Info);
    } else if (!m_sawRecord) {
        m_problems.add(Kind::EmptyLog, 0, "no records in file", Severity::Error);
    }
    finishSamples();
    int64_t open = 0;
    for (EventTrack &t : m_out.worker.tracks) {
        for (size_t i = 0; i < t.count(); ++i)
            if (t.flags[i] & EventOpen) {
                t.localEnd[i] = std::max(m_out.worker.info.lastLocalNs, t.localStart[i]);
                ++open;
            }
    }
    if (open > 0)
        m_problems.add(Kind::OpenEvents, 0,
                       std::to_string(open) + " event(s) without an end, kept as open" +
                           (m_out.worker.info.closedCleanly
                                ? ""
                                : " (no close record: crashed, hung or still running)"),
                       Severity::Info);
    for (CounterTrack &c : m_out.worker.counters)
        c.finish();
    CounterTrack::sortByKey(m_out.worker.counters);
    m_out.usable = m_sawRecord && !m_refused; // no rank: numbered by WorkerAdmission
    m_out.problems = m_problems.take();
    return std::move(m_out);
}

} // namespace syncline::load
