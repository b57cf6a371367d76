#include "wallclockcheck.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace syncline::sync {

namespace {

// A number with `digits` decimals (std::to_chars: no locale, no stdio in the engine).
std::string fixed(double v, int digits)
{
    char b[64];
    const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, digits);
    return std::string(b, r.ptr);
}

// "+3.000 ms", "−12.3 µs", "850 ns" (sign only when asked).
std::string duration(int64_t ns, bool sign)
{
    const double a = std::fabs(double(ns));
    const std::string s = !sign ? "" : ns < 0 ? "-" : "+";
    if (a >= 1e9)
        return s + fixed(a / 1e9, 3) + " s";
    if (a >= 1e6)
        return s + fixed(a / 1e6, 3) + " ms";
    if (a >= 1e3)
        return s + fixed(a / 1e3, 1) + " µs";
    return s + fixed(a, 0) + " ns";
}

struct Interval
{
    bool banded = false; // some reading has a bound
    bool valid = false;  // the readings' intervals meet
    int64_t lo = 0, hi = 0;
    int64_t mid = 0;         // middle of the interval; of the readings' d's when not valid
    int64_t disagreeNs = 0;  // when not valid: how far apart the readings' intervals are
};

Interval intervalOf(const WallHost &h)
{
    Interval iv;
    int64_t dMin = 0, dMax = 0;
    for (const WallReading &r : h.readings) {
        if (r.boundNs <= 0)
            continue;
        const int64_t b = r.boundNs + std::max<int64_t>(r.spreadNs, 0);
        const int64_t lo = r.offsetNs - b, hi = r.offsetNs + b;
        if (!iv.banded) {
            iv.lo = lo;
            iv.hi = hi;
            dMin = dMax = r.offsetNs;
        } else {
            iv.lo = std::max(iv.lo, lo);
            iv.hi = std::min(iv.hi, hi);
            dMin = std::min(dMin, r.offsetNs);
            dMax = std::max(dMax, r.offsetNs);
        }
        iv.banded = true;
    }
    iv.valid = iv.banded && iv.lo <= iv.hi;
    if (iv.valid)
        iv.mid = iv.lo + (iv.hi - iv.lo) / 2;
    else if (iv.banded) {
        iv.mid = dMin + (dMax - dMin) / 2;
        iv.disagreeNs = iv.lo - iv.hi;
    }
    return iv;
}

} // namespace

const char *wallVerdictName(WallVerdict v)
{
    switch (v) {
    case WallVerdict::Consistent:
        return "consistent";
    case WallVerdict::Outside:
        return "outside";
    case WallVerdict::NoBand:
        return "no_band";
    case WallVerdict::NoAnchor:
        return "no_anchor";
    case WallVerdict::NoConsensus:
        return "no_consensus";
    }
    return "no_anchor";
}

WallCheckResult checkWallClocks(const std::vector<WallHost> &hosts)
{
    WallCheckResult out;
    out.hosts.resize(hosts.size());
    std::vector<Interval> iv(hosts.size());
    size_t banded = 0;
    // Marzullo: +1 at every valid interval's start, −1 after its end (closed intervals: at one
    // value the starts come first).
    std::vector<std::pair<int64_t, int>> edges;
    for (size_t i = 0; i < hosts.size(); ++i) {
        iv[i] = intervalOf(hosts[i]);
        banded += iv[i].banded;
        if (iv[i].valid) {
            edges.emplace_back(iv[i].lo, -1); // -1 sorts first: a start
            edges.emplace_back(iv[i].hi, +1);
        }
    }
    std::sort(edges.begin(), edges.end());
    int count = 0, best = 0, regions = 0;
    int64_t bestLo = 0, bestHi = 0;
    for (size_t e = 0; e < edges.size(); ++e) {
        if (edges[e].second < 0) {
            ++count;
            if (count > best) {
                best = count;
                regions = 1;
                bestLo = edges[e].first;
                bestHi = edges[e + 1].first; // the next edge: an end (this start has one)
            } else if (count == best) {
                ++regions;
            }
        } else {
            --count;
        }
    }
    // A region shared by more than half of the hosts with a band, and the only one.
    out.hasConsensus = best > 0 && size_t(best) * 2 > banded && regions == 1;
    if (out.hasConsensus)
        out.consensusNs = bestLo + (bestHi - bestLo) / 2;
    // Without consensus, offsets are shown from the median of the hosts' middles.
    int64_t centre = out.consensusNs;
    if (!out.hasConsensus) {
        std::vector<int64_t> mids;
        for (const Interval &v : iv)
            if (v.banded)
                mids.push_back(v.mid);
        if (!mids.empty()) {
            std::nth_element(mids.begin(), mids.begin() + long(mids.size() / 2), mids.end());
            centre = mids[mids.size() / 2];
        }
    }

    size_t consistent = 0;
    for (size_t i = 0; i < hosts.size(); ++i) {
        WallHostVerdict &v = out.hosts[i];
        const Interval &h = iv[i];
        if (hosts[i].readings.empty()) {
            v.verdict = WallVerdict::NoAnchor;
            v.reason = "no wall-clock anchor (a trace without a log header)";
            continue;
        }
        if (!h.banded) {
            v.verdict = WallVerdict::NoBand;
            v.reason = "no sync band to check its wall clock against" +
                       (hosts[i].noBandWhy.empty() ? std::string()
                                                   : " (" + hosts[i].noBandWhy + ")");
            continue;
        }
        v.wallNs = h.mid;
        v.offsetNs = h.mid - centre;
        v.bandNs = h.valid ? (h.hi - h.lo) / 2 : 0;
        if (!h.valid) {
            v.verdict = WallVerdict::Outside;
            v.reason = "its processes' wall-clock anchors disagree by " +
                       duration(h.disagreeNs, false) +
                       " beyond their sync bands (the wall clock stepped between their starts?)";
            continue;
        }
        if (!out.hasConsensus) {
            v.verdict = WallVerdict::NoConsensus;
            v.reason = "the hosts' wall clocks disagree beyond their sync bands and no majority "
                       "of hosts agrees, so none can be trusted (" +
                       duration(v.offsetNs, true) + " from their median, band ±" +
                       duration(v.bandNs, false) + ")";
            continue;
        }
        const bool inside = h.lo <= out.consensusNs && out.consensusNs <= h.hi;
        v.verdict = inside ? WallVerdict::Consistent : WallVerdict::Outside;
        consistent += inside;
        if (banded == 1)
            v.reason = "the only host with a sync band: nothing to compare its wall clock with";
        else if (inside)
            v.reason = "wall clock " + duration(v.offsetNs, true) + " from the other hosts', " +
                       "within its sync band ±" + duration(v.bandNs, false);
        else
            v.reason = "wall clock " + duration(v.offsetNs, true) + " from the other hosts', " +
                       "outside its sync band ±" + duration(v.bandNs, false);
    }
    out.agree = banded >= 2 && consistent == hosts.size();
    return out;
}

} // namespace syncline::sync
