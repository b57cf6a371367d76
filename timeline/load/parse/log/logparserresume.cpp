// LogParser's resumable state (snapshot, restore) and its one-line record check: the state a
// parse leaves at a line boundary, put into a fresh parser as values (no records to parse again).
#include "timeline/load/parse/log/logparser.h"

namespace syncline::load {

std::optional<RecordType> LogParser::recordTypeOf(std::string_view line)
{
    LineScanner scanner;
    LogRecord r;
    if (!scanner.scan(line, r))
        return std::nullopt;
    return r.type;
}

LogParser::Resume LogParser::snapshot() const
{
    Resume s;
    const auto &tracks = m_out.worker.tracks;
    s.threads.reserve(tracks.size());
    for (size_t ti = 0; ti < tracks.size(); ++ti) {
        const EventTrack &t = tracks[ti];
        Resume::Thread th;
        th.tid = t.tid;
        for (uint32_t e : m_open[ti]) {
            Resume::Open o;
            o.localStart = t.localStart[e];
            o.name = std::string(m_out.names.name(t.nameId[e]));
            if (const int64_t a = t.argsId(e); a >= 0)
                o.args = std::string(m_out.args.text(uint32_t(a)));
            th.open.push_back(std::move(o));
        }
        if (m_lastTs[ti] != INT64_MIN)
            th.lastOrderTs = m_lastTs[ti];
        s.threads.push_back(std::move(th));
    }
    s.refs = m_sync.refs();
    s.samples = m_sync.all();
    s.wallPairs = m_out.worker.wallPairs;
    const WorkerInfo &info = m_out.worker.info;
    if (m_anyTime)
        s.localRange = std::make_pair(info.firstLocalNs, info.lastLocalNs);
    s.lastHeartbeatLocalNs = info.lastHeartbeatLocalNs;
    s.droppedEvents = info.droppedEvents;
    s.closedCleanly = info.closedCleanly;
    s.line = m_line;
    s.bytes = m_out.bytes;
    return s;
}

bool LogParser::restore(const Resume &s)
{
    if (m_refused)
        return false;
    if (s.localRange) {
        if (!logTimeInRange(s.localRange->first) || !logTimeInRange(s.localRange->second))
            return false;
        seeTime(s.localRange->first);
        seeTime(s.localRange->second);
    }
    for (const auto &[ref, x] : s.samples) {
        if (ref >= s.refs.size() || !logTimeInRange(x.t1) || !logTimeInRange(x.t2) ||
            !logTimeInRange(x.t3) || !logTimeInRange(x.t4) || x.t4 < x.t1 || x.t3 < x.t2)
            return false;
        m_sync.add(s.refs[ref], x);
        seeTime(x.t1);
        seeTime(x.t4);
    }
    for (size_t i = 0; i < s.wallPairs.size(); ++i) {
        const WallPair &w = s.wallPairs[i];
        if (!logTimeInRange(w.monoNs) || !logTimeInRange(w.wallNs) || w.spreadNs < 0 ||
            w.spreadNs > kMaxTimeNs || (i > 0 && w.monoNs <= s.wallPairs[i - 1].monoNs))
            return false;
    }
    m_out.worker.wallPairs = s.wallPairs;
    for (const Resume::Thread &th : s.threads) {
        if (th.open.empty() && trackFor(th.tid) == kNoTrack)
            return false;
        for (const Resume::Open &o : th.open) {
            // As its B record was read, as one more line: the same checks, order state,
            // problems and line numbers as the parse that left it open.
            LogRecord r;
            r.type = RecordType::Begin;
            r.hasType = r.hasTs = r.hasTid = r.hasName = true;
            r.ts = o.localStart;
            r.tid = th.tid;
            r.name = o.name;
            r.hasArgs = !o.args.empty();
            r.args = o.args;
            ++m_line;
            ++m_out.records;
            handleRecord(r, {});
        }
        if (th.lastOrderTs) {
            if (!logTimeInRange(*th.lastOrderTs))
                return false;
            const uint32_t ti = trackFor(th.tid);
            if (ti == kNoTrack)
                return false;
            checkOrder(ti, *th.lastOrderTs);
            seeTime(*th.lastOrderTs);
        }
    }
    WorkerInfo &info = m_out.worker.info;
    if (s.lastHeartbeatLocalNs != 0) {
        if (!logTimeInRange(s.lastHeartbeatLocalNs))
            return false;
        seeTime(s.lastHeartbeatLocalNs);
        info.lastHeartbeatLocalNs = s.lastHeartbeatLocalNs;
    }
    if (s.lastHeartbeatLocalNs != 0 || s.droppedEvents != 0 || s.closedCleanly)
        info.droppedEvents = s.droppedEvents;
    if (s.closedCleanly)
        info.closedCleanly = true;
    seek(s.line, s.bytes);
    return true;
}

void LogParser::restoreNotes(const std::vector<std::pair<int64_t, std::string>> &notes)
{
    for (const auto &[line, message] : notes)
        m_problems.add(LoadProblem::Kind::RecorderNote, line, message,
                       LoadProblem::Severity::Info);
}

} // namespace syncline::load
