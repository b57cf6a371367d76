#include "timeline/load/build/wallclocks.h"

#include "timeline/load/build/workeradmission.h"
#include "timeline/model/ranklist.h"

#include <algorithm>
#include <map>

namespace syncline::load {

sync::ClockMap WallClocks::shifted(const sync::ClockMap &map, int64_t shift)
{
    if (map.segments().empty())
        return sync::ClockMap::offset(shift);
    std::vector<sync::ClockSegment> segs = map.segments();
    for (auto &s : segs)
        s.globalStart += shift;
    return sync::ClockMap(std::move(segs));
}

std::string WallClocks::hostLabel(const Timeline &tl, const std::vector<size_t> &workers)
{
    std::vector<int> ranks;
    for (size_t w : workers)
        ranks.push_back(tl.workers[w].info.rank);
    const std::string &host = workers.empty() ? std::string() : tl.workers[workers[0]].info.host;
    return "host " + (host.empty() ? std::string("?") : host) + " (rank" +
           (ranks.size() > 1 ? "s " : " ") + rankList(ranks) + ")";
}

WallClocks::Check WallClocks::check(Timeline &tl, bool correct)
{
    Check out;
    std::vector<sync::WallHost> hosts;
    std::map<std::string, size_t> hostOf;
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        Worker &w = tl.workers[i];
        const bool anchored = WorkerAdmission::hasClockAnchor(w.info);
        // The engine's clock domain; without a correction, the host's boot (its clock).
        const std::string key = !anchored ? "trace " + std::to_string(i)
                                : correct ? "domain " + std::to_string(w.clock.domain)
                                          : "boot " + w.info.bootId + " " + w.info.host;
        auto [it, fresh] = hostOf.emplace(key, hosts.size());
        if (fresh) {
            hosts.emplace_back();
            out.hostWorkers.emplace_back();
        }
        sync::WallHost &h = hosts[it->second];
        out.hostWorkers[it->second].push_back(i);
        if (!anchored)
            continue;
        const int64_t a = w.info.anchorMonoNs;
        sync::WallReading r;
        r.offsetNs = w.info.anchorWallNs - w.corrected.toGlobal(a);
        const bool banded = correct && w.clock.method != sync::ClockMethod::None &&
                            !w.corrected.segments().empty();
        r.boundNs = banded ? w.corrected.segmentAt(a).boundNs : 0;
        r.spreadNs = w.info.anchorSpreadNs;
        h.readings.push_back(r);
        if (!banded && h.noBandWhy.empty())
            h.noBandWhy = !correct            ? "clock correction disabled"
                          : w.samples.empty() ? "not corrected: no sync samples"
                                              : "not corrected";
    }
    out.result = sync::checkWallClocks(hosts);
    for (size_t h = 0; h < hosts.size(); ++h)
        for (size_t i : out.hostWorkers[h]) {
            const sync::WallHostVerdict &v = out.result.hosts[h];
            WallClockStatus &s = tl.workers[i].wall;
            s.verdict = v.verdict;
            s.offsetNs = v.offsetNs;
            s.bandNs = v.bandNs;
            s.reason = v.reason;
            s.used = false;
        }
    tl.wallClocksAgree = out.result.agree;
    return out;
}

void WallClocks::useWall(Timeline &tl, const Check &check)
{
    const sync::WallCheckResult &r = check.result;
    if (!r.hasConsensus) {
        tl.clockNotes.push_back("--clock wall refused for every host: the hosts' wall clocks "
                                "disagree beyond their sync bands and no majority agrees; the "
                                "corrected clocks are shown");
        return;
    }
    size_t used = 0, banded = 0;
    for (size_t h = 0; h < r.hosts.size(); ++h) {
        const sync::WallHostVerdict &v = r.hosts[h];
        const bool accept = v.verdict == sync::WallVerdict::Consistent;
        const bool hasBand =
            v.verdict == sync::WallVerdict::Consistent || v.verdict == sync::WallVerdict::Outside;
        if (!hasBand)
            continue; // no band: its corrected map is its raw wall-clock map already
        ++banded;
        used += accept;
        const int64_t shift = accept ? v.wallNs : r.consensusNs;
        for (size_t i : check.hostWorkers[h]) {
            Worker &w = tl.workers[i];
            w.corrected = WallClocks::shifted(w.corrected, shift);
            w.clock.offsetNs = w.corrected.toGlobal(w.info.firstLocalNs) - w.info.firstLocalNs;
            w.wall.used = accept;
        }
        if (!accept)
            tl.clockNotes.push_back("--clock wall refused for " +
                                    hostLabel(tl, check.hostWorkers[h]) + ": " + v.reason +
                                    "; it stays on its corrected clock");
    }
    tl.referenceShiftNs += r.consensusNs;
    tl.clockNotes.push_back("--clock wall: " + std::to_string(used) + " of " +
                            std::to_string(banded) +
                            " host(s) with a sync band placed by their wall clocks");
}

} // namespace syncline::load
