// clockrecords — how a log's clock records (sync samples, wall-clock pairs) are written in a
// CacheFile record, and the rules a decoded one must meet: the log index and the clock inputs a
// Dask task sends both hold them so. Reading checks nothing; `samplesValid` / `wallPairsValid`
// are the parser's rules (LogParser: a time no log can hold, t4 < t1 or t3 < t2, a pair not
// later than the one before, is never kept), for a reader that must not trust what it decoded.
// Threading: values.
#pragma once

#include "sync/clocksample.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/model/worker.h"

#include <vector>

namespace syncline::load::clockrecords {

inline void putSamples(CacheFile::Writer &w, const std::vector<sync::ClockSample> &samples)
{
    w.u32(uint32_t(samples.size()));
    for (const sync::ClockSample &s : samples) {
        w.i64(s.t1);
        w.i64(s.t2);
        w.i64(s.t3);
        w.i64(s.t4);
        w.u32(uint32_t(s.burst));
        w.u32(uint32_t(s.seq));
    }
}

inline std::vector<sync::ClockSample> getSamples(CacheFile::Reader &r)
{
    std::vector<sync::ClockSample> samples(r.count(40));
    for (sync::ClockSample &s : samples) {
        s.t1 = r.i64();
        s.t2 = r.i64();
        s.t3 = r.i64();
        s.t4 = r.i64();
        s.burst = int32_t(r.u32());
        s.seq = int32_t(r.u32());
    }
    return samples;
}

inline void putWallPairs(CacheFile::Writer &w, const std::vector<WallPair> &pairs)
{
    w.u32(uint32_t(pairs.size()));
    for (const WallPair &p : pairs) {
        w.i64(p.monoNs);
        w.i64(p.wallNs);
        w.i64(p.spreadNs);
    }
}

inline std::vector<WallPair> getWallPairs(CacheFile::Reader &r)
{
    std::vector<WallPair> pairs(r.count(24));
    for (WallPair &p : pairs) {
        p.monoNs = r.i64();
        p.wallNs = r.i64();
        p.spreadNs = r.i64();
    }
    return pairs;
}

inline bool samplesValid(const std::vector<sync::ClockSample> &samples)
{
    for (const sync::ClockSample &s : samples)
        if (!logTimeInRange(s.t1) || !logTimeInRange(s.t2) || !logTimeInRange(s.t3) ||
            !logTimeInRange(s.t4) || s.t4 < s.t1 || s.t3 < s.t2)
            return false;
    return true;
}

inline bool wallPairsValid(const std::vector<WallPair> &pairs)
{
    for (size_t i = 0; i < pairs.size(); ++i) {
        const WallPair &p = pairs[i];
        if (!logTimeInRange(p.monoNs) || !logTimeInRange(p.wallNs) || p.spreadNs < 0 ||
            p.spreadNs > kMaxTimeNs || (i > 0 && p.monoNs <= pairs[i - 1].monoNs))
            return false;
    }
    return true;
}

} // namespace syncline::load::clockrecords
