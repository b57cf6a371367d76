#include "timeline/report/wallclocksummary.h"

#include "timeline/model/ranklist.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace syncline {

namespace {

std::string duration(int64_t ns)
{
    const double a = double(ns < 0 ? -ns : ns);
    char b[48];
    if (a >= 1e9)
        std::snprintf(b, sizeof b, "%.3f s", a / 1e9);
    else if (a >= 1e6)
        std::snprintf(b, sizeof b, "%.3f ms", a / 1e6);
    else if (a >= 1e3)
        std::snprintf(b, sizeof b, "%.1f µs", a / 1e3);
    else
        std::snprintf(b, sizeof b, "%.0f ns", a);
    return b;
}

std::string ranksText(const std::vector<int> &ranks)
{
    return (ranks.size() > 1 ? "ranks " : "rank ") + rankList(ranks);
}

bool banded(const WallClockStatus &s)
{
    return s.verdict == sync::WallVerdict::Consistent || s.verdict == sync::WallVerdict::Outside ||
           s.verdict == sync::WallVerdict::NoConsensus;
}

} // namespace

std::string WallClockSummary::signedDuration(int64_t ns)
{
    return (ns < 0 ? "-" : "+") + duration(ns);
}

WallClockSummary WallClockSummary::of(const Timeline &tl)
{
    WallClockSummary out;
    std::map<std::string, size_t> index;
    for (const Worker &w : tl.workers) {
        const std::string key = w.info.host + '\n' + w.info.bootId + '\n' +
                                (w.info.kind == SourceKind::ChromeTrace ? w.info.sourceFile : "");
        auto [it, fresh] = index.emplace(key, out.hosts.size());
        if (fresh)
            out.hosts.push_back({w.info.host, {}, w.wall});
        out.hosts[it->second].ranks.push_back(w.info.rank);
    }
    size_t withBand = 0, used = 0;
    const WallClockHost *unbanded = nullptr;
    int64_t largest = 0, largestBand = 0;
    std::vector<const WallClockHost *> refused;
    for (WallClockHost &h : out.hosts) {
        std::sort(h.ranks.begin(), h.ranks.end());
        h.ranks.erase(std::unique(h.ranks.begin(), h.ranks.end()), h.ranks.end());
        if (!banded(h.status)) {
            if (!unbanded)
                unbanded = &h;
            continue;
        }
        ++withBand;
        used += h.status.used;
        if (h.status.verdict != sync::WallVerdict::Consistent)
            refused.push_back(&h);
        else if (std::abs(h.status.offsetNs) >= std::abs(largest)) {
            largest = h.status.offsetNs;
            largestBand = h.status.bandNs;
        }
    }
    if (withBand < 2)
        return out;
    const bool onWall = tl.clockChoice == ClockChoice::Wall;
    if (tl.wallClocksAgree) {
        out.headline = "wall clocks: every host's wall clock agrees with its corrected clock "
                       "within its sync band (largest offset " + signedDuration(largest) +
                       " of ±" + duration(largestBand) + ")" +
                       (onWall ? "; the hosts are placed by their wall clocks (--clock wall)"
                               : "; if they are PTP-disciplined, --clock wall places the hosts "
                                 "by them, without the sync path's asymmetry");
        return out;
    }
    // No consensus (then every host with a band has that verdict): one sentence, not N.
    if (!refused.empty() && refused.front()->status.verdict == sync::WallVerdict::NoConsensus) {
        int64_t lo = 0, hi = 0;
        for (const WallClockHost *h : refused) {
            lo = std::min(lo, h->status.offsetNs);
            hi = std::max(hi, h->status.offsetNs);
        }
        out.headline = "wall clocks: the " + std::to_string(withBand) +
                       " hosts' wall clocks disagree beyond their sync bands (from " +
                       signedDuration(lo) + " to " + signedDuration(hi) +
                       " of their median) and no majority agrees; --clock wall " +
                       (onWall ? "was" : "would be") + " refused for every host";
        return out;
    }
    if (refused.empty()) {
        out.headline = "wall clocks: the " + std::to_string(withBand) +
                       " hosts with a sync band agree within it (largest offset " +
                       signedDuration(largest) + " of ±" + duration(largestBand) +
                       "); the others cannot be checked, e.g. " +
                       (unbanded->host.empty() ? "?" : unbanded->host) + " (" +
                       ranksText(unbanded->ranks) + "): " + unbanded->status.reason;
        return out;
    }
    std::string list;
    for (size_t i = 0; i < refused.size() && i < 5; ++i) {
        const WallClockHost &h = *refused[i];
        list += std::string(i ? "; " : "") + (h.host.empty() ? "?" : h.host) + " (" +
                ranksText(h.ranks) + "): " + h.status.reason;
    }
    if (refused.size() > 5)
        list += "; " + std::to_string(refused.size() - 5) + " more";
    out.headline = "wall clocks: " + std::to_string(withBand - refused.size()) + " of " +
                   std::to_string(withBand) + " hosts within their sync bands" +
                   (onWall ? "; " + std::to_string(used) + " placed by their wall clocks" : "") +
                   "; --clock wall " + (onWall ? "was" : "would be") + " refused for " + list;
    return out;
}

} // namespace syncline
