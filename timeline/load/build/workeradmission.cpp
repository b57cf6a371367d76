#include "timeline/load/build/workeradmission.h"

#include "timeline/load/parse/log/logheader.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace syncline::load {

sync::ClockMap WorkerAdmission::rawClock(const WorkerInfo &info)
{
    if (!hasClockAnchor(info))
        return sync::ClockMap();
    return sync::ClockMap::offset(wallMinusLocalNs(info));
}

size_t WorkerAdmission::admit(Timeline &tl, Worker w, bool rankKnown,
                              std::vector<LoadProblem> &problems)
{
    using Severity = LoadProblem::Severity;
    const std::string &path = w.info.sourceFile;
    if (!rankKnown) {
        const std::optional<int> fromName = LogHeader::rankFromFileName(path);
        int next = 0;
        for (const Worker &o : tl.workers)
            next = std::max(next, o.info.rank + 1);
        w.info.rank = fromName ? *fromName : next;
        problems.push_back({LoadProblem::Kind::RankAssigned, Severity::Info, path, 0,
                            "no rank in the file; rank " + std::to_string(w.info.rank) +
                                (fromName ? " taken from the file name" : " assigned")});
    }
    w.raw = rawClock(w.info);
    if (w.corrected.segments().empty())
        w.corrected = w.raw; // until the clock correction gives it its own
    // Every worker of the same rank and restart count: both get labels that tell them apart.
    // One problem: a duplicate (same world size) outranks a membership change (another one).
    const WorkerInfo *duplicate = nullptr, *membership = nullptr;
    for (Worker &other : tl.workers) {
        WorkerInfo &o = other.info;
        if (o.rank != w.info.rank || o.restart != w.info.restart)
            continue;
        o.sharesRankRestart = w.info.sharesRankRestart = true;
        if (o.worldSize == w.info.worldSize) {
            o.labelPid = w.info.labelPid = true;
            duplicate = duplicate ? duplicate : &o;
        } else if (o.kind == SourceKind::SynclineLog && w.info.kind == SourceKind::SynclineLog) {
            membership = membership ? membership : &o;
        } else {
            duplicate = duplicate ? duplicate : &o; // a trace's world size is not known
        }
    }
    const std::string which =
        "rank " + std::to_string(w.info.rank) + " restart " + std::to_string(w.info.restart);
    if (duplicate)
        problems.push_back(
            {LoadProblem::Kind::DuplicateRank, Severity::Warning, path, 0,
             "duplicate " + which + " (also in " + duplicate->sourceFile + "); both kept"});
    else if (membership)
        problems.push_back({LoadProblem::Kind::MembershipChange, Severity::Info, path, 0,
                            which + " with world size " + std::to_string(w.info.worldSize) +
                                " (also in " + membership->sourceFile + ", world size " +
                                std::to_string(membership->worldSize) +
                                "): a membership change; both kept"});
    const auto key = std::tie(w.info.rank, w.info.restart, path);
    size_t at = 0;
    while (at < tl.workers.size() &&
           !(key < std::tie(tl.workers[at].info.rank, tl.workers[at].info.restart,
                            tl.workers[at].info.sourceFile)))
        ++at;
    tl.workers.insert(tl.workers.begin() + ptrdiff_t(at), std::move(w));
    return at;
}

} // namespace syncline::load
