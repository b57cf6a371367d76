#include "timeline/load/build/wallclocks.h"

#include "timeline/load/build/workeradmission.h"
#include "timeline/model/ranklist.h"

#include "sync/saturating.h"

#include <algorithm>
#include <map>
#include <optional>

namespace syncline::load {

namespace {

// Pairs closer than this after the one kept before are left out of the placement: over a few ms
// the reads' own spread would set the rate between them.
constexpr int64_t kMinPairGapNs = 100'000'000;

// The worker's wall-clock pairs: its header's anchor, then the `hb`/`close` pairs after it
// (format 1.2), increasing in local time.
std::vector<WallPair> pairsOf(const Worker &w)
{
    std::vector<WallPair> out;
    if (WorkerAdmission::hasClockAnchor(w.info))
        out.push_back({w.info.anchorMonoNs, w.info.anchorWallNs, w.info.anchorSpreadNs});
    for (const WallPair &p : w.wallPairs)
        if (out.empty() || p.monoNs > out.back().monoNs)
            out.push_back(p);
    return out;
}

// The corrected map with each stretch between two wall-clock pairs replaced by the wall clock
// itself (straight between the pairs); before the first pair and after the last, the corrected
// map continued from the pair (its rates, shifted to meet the wall clock there). Bounds, bands
// and flags are the corrected map's at each pair. nullopt when fewer than two pairs are far
// enough apart, or the wall clock's rate between two pairs is not within 2× of real time (it was
// stepped): the caller then shifts the corrected map as a whole.
std::optional<sync::ClockMap> followWall(const sync::ClockMap &corrected,
                                         const std::vector<WallPair> &all)
{
    std::vector<WallPair> p;
    for (const WallPair &x : all)
        if (p.empty() || sync::saturatingSub(x.monoNs, p.back().monoNs) >= kMinPairGapNs ||
            &x == &all.back())
            p.push_back(x);
    if (p.size() >= 2 &&
        sync::saturatingSub(p.back().monoNs, p[p.size() - 2].monoNs) < kMinPairGapNs)
        p.erase(p.end() - 2); // the last pair kept, at the gap from the one before
    if (p.size() < 2 || corrected.segments().empty())
        return std::nullopt;
    std::vector<sync::ClockSegment> segs;
    // Before the first pair: the corrected map, shifted to the wall clock there.
    const int64_t first = p.front().monoNs, last = p.back().monoNs;
    const sync::ClockMap before =
        corrected.shifted(sync::saturatingSub(p.front().wallNs, corrected.toGlobal(first)));
    for (const sync::ClockSegment &s : before.segments())
        if (s.localStart < first)
            segs.push_back(s);
    for (size_t i = 0; i + 1 < p.size(); ++i) {
        // The differences exactly (times within ±2^62 may lie 2^63 apart; doubles of wall
        // times around 2^60 are 256 ns apart), then their ratio.
        const double slope = double(__int128(p[i + 1].wallNs) - p[i].wallNs) /
                             double(__int128(p[i + 1].monoNs) - p[i].monoNs);
        if (!(slope > 0.5 && slope < 2.0))
            return std::nullopt;
        sync::ClockSegment s = corrected.segmentAt(p[i].monoNs);
        s.localStart = p[i].monoNs;
        s.globalStart = p[i].wallNs;
        s.slope = slope;
        segs.push_back(s);
    }
    // After the last pair: the corrected map, shifted to the wall clock there.
    const sync::ClockMap after =
        corrected.shifted(sync::saturatingSub(p.back().wallNs, corrected.toGlobal(last)));
    sync::ClockSegment tail = after.segmentAt(last);
    tail.localStart = last;
    tail.globalStart = p.back().wallNs;
    segs.push_back(tail);
    for (const sync::ClockSegment &s : after.segments())
        if (s.localStart > last)
            segs.push_back(s);
    return sync::ClockMap(std::move(segs));
}

} // namespace

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
        const bool banded = correct && w.clock.method != sync::ClockMethod::None &&
                            !w.corrected.segments().empty();
        // Every pair is a reading: the header's anchor and the heartbeats' (format 1.2).
        for (const WallPair &p : pairsOf(w)) {
            sync::WallReading r;
            r.offsetNs = sync::saturatingSub(p.wallNs, w.corrected.toGlobal(p.monoNs));
            r.boundNs = banded ? w.corrected.segmentAt(p.monoNs).boundNs : 0;
            r.spreadNs = p.spreadNs;
            h.readings.push_back(r);
        }
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
            // An accepted host's workers follow their wall clocks from pair to pair; a worker
            // with one pair (a log of format < 1.2) keeps its corrected rates, shifted.
            std::optional<sync::ClockMap> wall;
            if (accept)
                wall = followWall(w.corrected, pairsOf(w));
            w.corrected = wall ? std::move(*wall) : w.corrected.shifted(shift);
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
