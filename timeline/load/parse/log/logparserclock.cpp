// LogParser's records for the clock correction: sync samples (`sync`: one exchange with a time
// server, kept per reference clock, SyncSampleSet) and wall-clock pairs (`wall_ns` on `hb` and
// `close`, log format 1.2), each checked by the parser's time rule (|t| <= 2^62 ns) and reported
// with its line when it is not kept.
#include "timeline/load/parse/log/logparser.h"

#include <string>
#include <vector>

namespace syncline::load {

using Kind = LoadProblem::Kind;

void LogParser::addWallPair(const LogRecord &r)
{
    if (!r.hasWall && !r.hasWallSpread)
        return; // a 1.0/1.1 writer, or another writer's heartbeat
    if (!need(r.hasWall, "wall_ns") || !need(r.hasWallSpread, "wall_spread_ns"))
        return;
    if (!logTimeInRange(r.wallNs) || r.wallSpreadNs < 0 || r.wallSpreadNs > kMaxTimeNs) {
        m_problems.add(Kind::TimeOutOfRange, m_line,
                       "wall-clock pair with wall_ns outside the readable range (|t| <= 2^62 ns) "
                       "or a negative wall_spread_ns ignored");
        return;
    }
    std::vector<WallPair> &pairs = m_out.worker.wallPairs;
    // Pairs are read in the order written, each later than the one before; one that is not (a
    // file from another writer) is left out, so the pairs stay a function of local time.
    if (!pairs.empty() && r.ts <= pairs.back().monoNs)
        return;
    pairs.push_back({r.ts, r.wallNs, r.wallSpreadNs});
}

void LogParser::handleSync(const LogRecord &r)
{
    if (!need(r.hasT1, "t1") || !need(r.hasT2, "t2") || !need(r.hasT3, "t3") ||
        !need(r.hasT4, "t4"))
        return;
    if (!logTimeInRange(r.t1) || !logTimeInRange(r.t2) || !logTimeInRange(r.t3) ||
        !logTimeInRange(r.t4)) {
        m_problems.add(Kind::TimeOutOfRange, m_line,
                       "sync sample with a time outside the readable range (|t| <= 2^62 ns) "
                       "ignored");
        return;
    }
    if (r.t4 < r.t1 || r.t3 < r.t2) {
        m_problems.add(Kind::InconsistentSyncSample, m_line,
                       "sync sample with t4 < t1 or t3 < t2 ignored");
        return;
    }
    if (!m_sync.add(r.ref, {r.t1, r.t2, r.t3, r.t4, int32_t(r.burst), int32_t(r.seq)})) {
        m_problems.add(Kind::TooManySyncReferences, m_line,
                       "sync sample against \"" + std::string(r.ref) + "\" ignored: the file has " +
                           std::to_string(SyncSampleSet::kMaxRefs) +
                           " references already (the most one file may have)");
        return;
    }
    seeTime(r.t1);
    seeTime(r.t4);
}

void LogParser::finishSamples()
{
    if (m_sync.empty())
        return;
    size_t count = 0;
    const uint32_t best = m_sync.bestRef(&count);
    Worker &w = m_out.worker;
    w.refId = m_sync.refs()[best];
    const std::vector<sync::ClockSample> samples = m_sync.samplesOf(best);
    w.samples.insert(w.samples.end(), samples.begin(), samples.end());
    if (m_sync.refs().size() > 1)
        m_problems.add(Kind::SyncReferences, 0,
                       "sync samples against " + std::to_string(m_sync.refs().size()) +
                           " references; using \"" + w.refId + "\" (" + std::to_string(count) +
                           " samples), others ignored");
}

} // namespace syncline::load
