// TraceAttachment — see traceattachment.h.
#include "timeline/load/build/traceattachment.h"

#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/build/workeradmission.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

namespace syncline::load {

using Severity = LoadProblem::Severity;

namespace {

// Times below this are not wall-clock ns (2001-09-09): a trace relative to its profiler's start
// (Debian's torch without Kineto) cannot be placed through a wall-clock anchor.
constexpr int64_t kWallClockFloorNs = 1'000'000'000'000'000'000;

struct Span
{
    int64_t first = std::numeric_limits<int64_t>::max();
    int64_t last = std::numeric_limits<int64_t>::min();
    bool empty() const { return first > last; }
};

Span eventSpan(const Worker &w)
{
    Span s;
    for (const EventTrack &t : w.tracks)
        for (size_t i = 0; i < t.count(); ++i) {
            s.first = std::min(s.first, t.localStart[i]);
            s.last = std::max(s.last, t.localEnd[i]);
        }
    return s;
}

int64_t anchorShift(const WorkerInfo &log)
{
    return -WorkerAdmission::wallMinusLocalNs(log); // local = wall + shift
}

bool hasAnchor(const WorkerInfo &info)
{
    return WorkerAdmission::hasClockAnchor(info);
}

// The log (index into files) that `trace` belongs to, or -1; *why says why not when there are
// candidates of its rank.
int pickLog(const std::vector<ParsedFile> &files, const ParsedFile &trace, std::string *why)
{
    const Span ts = eventSpan(trace.worker);
    if (ts.empty())
        return -1;
    std::vector<int> candidates;
    for (size_t i = 0; i < files.size(); ++i) {
        const ParsedFile &f = files[i];
        if (f.usable && f.rankKnown && f.worker.info.kind == SourceKind::SynclineLog &&
            f.worker.info.rank == trace.worker.info.rank && hasAnchor(f.worker.info))
            candidates.push_back(int(i));
    }
    if (candidates.empty())
        return -1;
    if (ts.first < kWallClockFloorNs) {
        *why = "its times are not wall-clock (first at " + std::to_string(ts.first) + " ns)";
        return -1;
    }
    for (int i : candidates)
        if (trace.worker.info.pid != 0 && files[size_t(i)].worker.info.pid == trace.worker.info.pid)
            return i;
    int best = -1;
    int64_t bestOverlap = 0;
    for (int i : candidates) {
        const ParsedFile &f = files[size_t(i)];
        Span ls = eventSpan(f.worker);
        ls.first = std::min(ls.first, f.worker.info.firstLocalNs);
        ls.last = std::max(ls.last, f.worker.info.lastLocalNs);
        const int64_t toWall = -anchorShift(f.worker.info);
        const int64_t overlap =
            std::min(ts.last, ls.last + toWall) - std::max(ts.first, ls.first + toWall);
        if (overlap > bestOverlap)
            best = i, bestOverlap = overlap;
    }
    if (best < 0)
        *why = "no syncline log of rank " + std::to_string(trace.worker.info.rank) +
               " overlaps it in wall-clock time, and none has its pid " +
               std::to_string(trace.worker.info.pid);
    return best;
}

// Tracks in display order (EventTrack::displayBefore), stable (a log's track before the
// profiler's of the same thread); flows follow their tracks.
void sortTracks(ParsedFile &f)
{
    auto &tracks = f.worker.tracks;
    std::vector<uint32_t> order(tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return EventTrack::displayBefore(tracks[a], tracks[b]);
    });
    std::vector<uint32_t> where(tracks.size());
    std::vector<EventTrack> sorted;
    sorted.reserve(tracks.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        where[order[i]] = i;
        sorted.push_back(std::move(tracks[order[i]]));
    }
    tracks.swap(sorted);
    for (FlowPoint &fp : f.flows)
        fp.track = where[fp.track];
    f.messages.remapTracks(where);
}

} // namespace

void TraceAttachment::attach(ParsedFile &log, ParsedFile &trace, int64_t shift, ArgStore &store)
{
    // Both files' args in the timeline's store: argRefs stay as they are.
    TimelineBuilder::moveArgsTo(log, store);
    TimelineBuilder::moveArgsTo(trace, store);
    const std::vector<uint32_t> remap = log.names.merge(trace.names);
    const auto trackBase = uint32_t(log.worker.tracks.size());
    for (EventTrack &t : trace.worker.tracks) {
        for (int64_t &v : t.localStart)
            v += shift;
        for (int64_t &v : t.localEnd)
            v += shift;
        for (uint32_t &id : t.nameId)
            id = remap[id];
        t.threadName =
            (t.threadName.empty() ? "tid " + std::to_string(t.tid) : t.threadName) + " (profiler)";
        log.worker.tracks.push_back(std::move(t));
    }
    for (CounterTrack &c : trace.worker.counters) {
        for (int64_t &v : c.localTs)
            v += shift;
        log.worker.counters.push_back(std::move(c));
    }
    CounterTrack::sortByKey(log.worker.counters);
    for (FlowPoint fp : trace.flows) {
        fp.track += trackBase;
        fp.localNs += shift;
        fp.nameId = remap[fp.nameId];
        fp.categoryId = remap[fp.categoryId];
        log.flows.push_back(fp);
    }
    for (LoadProblem &p : trace.problems)
        log.problems.push_back(std::move(p));
    log.worker.info.attachedTraces.push_back(trace.path);
    log.bytes += trace.bytes;
    log.records += trace.records;
    sortTracks(log);
    trace = ParsedFile();
}

void TraceAttachment::attachAll(std::vector<ParsedFile> &files, ArgStore &store)
{
    for (ParsedFile &trace : files) {
        if (!trace.usable || !trace.rankKnown || trace.worker.info.kind != SourceKind::ChromeTrace)
            continue;
        std::string why;
        const int at = pickLog(files, trace, &why);
        if (at < 0) {
            if (!why.empty())
                trace.problems.push_back({LoadProblem::Kind::TraceNotAttached, Severity::Info, trace.path, 0,
                                          "profiler trace not attached to a syncline worker: " +
                                              why + "; loaded as a worker of its own"});
            continue;
        }
        ParsedFile &log = files[size_t(at)];
        const WorkerInfo &info = log.worker.info;
        size_t events = 0;
        for (const EventTrack &t : trace.worker.tracks)
            events += t.count();
        const std::string path = trace.path;
        log.problems.push_back(
            {LoadProblem::Kind::TraceAttached, Severity::Info, path, 0,
             "profiler trace of rank " + std::to_string(info.rank) + " (" + std::to_string(events) +
                 " events) attached to " + log.path +
                 ": its wall-clock µs mapped through that log's anchor (spread " +
                 std::to_string(info.anchorSpreadNs) + " ns)"});
        attach(log, trace, anchorShift(info), store);
    }
}

} // namespace syncline::load
