#include "timeline/load/store/correctioncache.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/build/workeradmission.h"

#include "recorder/timerange.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace syncline::load {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'C', 'O', 'R', '1'};

std::vector<std::string> absoluteSorted(const std::vector<std::string> &logs)
{
    std::vector<std::string> out;
    for (const std::string &l : logs)
        out.push_back(fs::absolute(l).lexically_normal().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string fileFor(const std::vector<std::string> &sorted, const std::string &key, bool beside,
                    const char *stem = "correction-", const char *ext = ".scc")
{
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)CacheFile::hash(key));
    return CacheFile::fileIn(fs::path(sorted.front()).parent_path().string(), beside,
                             std::string(stem) + hex + ext);
}

void writeRange(CacheFile::Writer &w, const TimeRange &r)
{
    w.i64(r.origin);
    w.i64(r.begin);
    w.i64(r.end);
}

void writeSegments(CacheFile::Writer &w, const std::vector<sync::ClockSegment> &segs)
{
    w.u32(uint32_t(segs.size()));
    for (const sync::ClockSegment &s : segs) {
        w.i64(s.localStart);
        w.i64(s.globalStart);
        w.f64(s.slope);
        w.i64(s.boundNs);
        w.i64(s.bandNs);
        w.u32(s.flags);
    }
}

std::vector<sync::ClockSegment> readSegments(CacheFile::Reader &r)
{
    std::vector<sync::ClockSegment> segs(r.count(44));
    for (sync::ClockSegment &s : segs) {
        s.localStart = r.i64();
        s.globalStart = r.i64();
        s.slope = r.f64();
        s.boundNs = r.i64();
        s.bandNs = r.i64();
        s.flags = r.u32();
    }
    return segs;
}

TimeRange readRange(CacheFile::Reader &r)
{
    TimeRange t;
    t.origin = r.i64();
    t.begin = r.i64();
    t.end = r.i64();
    return t;
}

} // namespace

std::string CorrectionCache::fileOf(const std::vector<std::string> &logs, const std::string &key,
                                    bool beside, const char *stem, const char *ext)
{
    return logs.empty() ? std::string() : fileFor(absoluteSorted(logs), key, beside, stem, ext);
}

std::string CorrectionCache::keyOf(const std::vector<std::string> &logs,
                                   const ClockCorrector::Options &options, std::string *error)
{
    // "align=0" only when collective alignment is off, so the default key (and the caches it
    // names) stays what it was.
    std::string key = "align-on=" + options.alignOn + "\ncorrect=" +
                      (options.correct ? "1" : "0") + "\n" +
                      (options.alignCollectives ? "" : "align=0\n") +
                      (options.wallClocks ? "clock=wall\n" : "");
    for (const std::string &p : absoluteSorted(logs)) {
        const auto s = LogFileStamp::of(p);
        if (!s) {
            if (error)
                *error = p + ": cannot stat";
            return {};
        }
        key += p + s->text() + "\n";
    }
    return key;
}

CorrectionCache CorrectionCache::of(const Timeline &tl)
{
    CorrectionCache c;
    for (const Worker &w : tl.workers) {
        WorkerClock wc;
        wc.log = fs::absolute(w.info.sourceFile).lexically_normal().string();
        wc.corrected = w.corrected.segments();
        wc.raw = w.raw.segments();
        wc.clock = w.clock;
        wc.clock.map = sync::ClockMap();
        wc.wall = w.wall;
        c.workers.push_back(std::move(wc));
    }
    c.causality = tl.causality;
    c.clockNotes = tl.clockNotes;
    c.referenceShiftNs = tl.referenceShiftNs;
    c.wallClocksAgree = tl.wallClocksAgree;
    c.range[0] = tl.range(ClockMode::Corrected);
    c.range[1] = tl.range(ClockMode::Raw);
    c.events = int64_t(tl.eventCount());
    return c;
}

std::string CorrectionCache::encode(const std::string &key) const
{
    CacheFile::Writer w(kMagic, kVersion);
    w.str(key);
    w.u32(uint32_t(workers.size()));
    for (const WorkerClock &wc : workers) {
        w.str(wc.log);
        writeSegments(w, wc.corrected);
        writeSegments(w, wc.raw);
        const sync::WorkerClockResult &r = wc.clock;
        w.u32(uint32_t(r.workerId));
        w.u32(uint32_t(r.method));
        w.i64(r.offsetNs);
        w.f64(r.driftPpm);
        w.i64(r.boundNs);
        w.i64(r.bandNs);
        w.u32(r.flags);
        w.u32(uint32_t(r.sampleCount));
        w.u32(uint32_t(r.domain));
        w.u32(uint32_t(wc.wall.verdict));
        w.i64(wc.wall.offsetNs);
        w.i64(wc.wall.bandNs);
        w.str(wc.wall.reason);
        w.u32(wc.wall.used ? 1 : 0);
    }
    w.i64(causality.constraints);
    w.i64(causality.violationsBefore);
    w.i64(causality.violationsAfter);
    w.i64(causality.eventsMoved);
    w.i64(causality.maxShiftNs);
    w.u32(uint32_t(clockNotes.size()));
    for (const std::string &n : clockNotes)
        w.str(n);
    w.i64(referenceShiftNs);
    w.u32(wallClocksAgree ? 1 : 0);
    writeRange(w, range[0]);
    writeRange(w, range[1]);
    w.i64(events);
    return w.finished();
}

bool CorrectionCache::store(const std::vector<std::string> &logs,
                            const ClockCorrector::Options &options) const
{
    if (logs.empty())
        return false;
    const std::string key = keyOf(logs, options);
    if (key.empty())
        return false;
    const std::string bytes = encode(key);
    const std::vector<std::string> sorted = absoluteSorted(logs);
    for (bool beside : {true, false}) {
        const std::string path = fileFor(sorted, key, beside);
        if (CacheFile::writeParts(path, {bytes})) {
            CacheFile::removeStale(path, "correction-", ".scc");
            return true;
        }
    }
    return false;
}

namespace {

// The record after its key: what decode() and load() read, with the same checks.
std::optional<CorrectionCache> readBody(CacheFile::Reader &r, std::string *why)
{
    CorrectionCache c;
    bool badVerdict = false;
    c.workers.resize(r.count(16));
    for (CorrectionCache::WorkerClock &wc : c.workers) {
        wc.log = r.str();
        wc.corrected = readSegments(r);
        wc.raw = readSegments(r);
        sync::WorkerClockResult &cr = wc.clock;
        cr.workerId = int(r.u32());
        cr.method = sync::ClockMethod(r.u32());
        cr.offsetNs = r.i64();
        cr.driftPpm = r.f64();
        cr.boundNs = r.i64();
        cr.bandNs = r.i64();
        cr.flags = r.u32();
        cr.sampleCount = int(r.u32());
        cr.domain = int(r.u32());
        const uint32_t verdict = r.u32();
        badVerdict |= verdict > uint32_t(sync::WallVerdict::NoConsensus);
        wc.wall.verdict = sync::WallVerdict(badVerdict ? 0 : verdict);
        wc.wall.offsetNs = r.i64();
        wc.wall.bandNs = r.i64();
        wc.wall.reason = r.str();
        wc.wall.used = r.u32() != 0;
    }
    c.causality.constraints = r.i64();
    c.causality.violationsBefore = r.i64();
    c.causality.violationsAfter = r.i64();
    c.causality.eventsMoved = r.i64();
    c.causality.maxShiftNs = r.i64();
    c.clockNotes.resize(r.count(4));
    for (std::string &n : c.clockNotes)
        n = r.str();
    c.referenceShiftNs = r.i64();
    c.wallClocksAgree = r.u32() != 0;
    c.range[0] = readRange(r);
    c.range[1] = readRange(r);
    c.events = r.i64();
    if (!r.finish()) {
        *why = r.error();
        return std::nullopt;
    }
    if (badVerdict) {
        *why = "a wall-clock verdict out of range";
        return std::nullopt;
    }
    // The job's ranges are what a windowed open adds its window to: a load gives times
    // within ±2^62 ns (rec::logTimeInRange), where every sum it makes fits in int64.
    const bool inRange = std::all_of(std::begin(c.range), std::end(c.range), [](const auto &t) {
        return rec::logTimeInRange(t.origin) && rec::logTimeInRange(t.begin) &&
               rec::logTimeInRange(t.end) && t.begin <= t.end;
    });
    if (!inRange) {
        *why = "a range outside the readable times";
        return std::nullopt;
    }
    return c;
}

} // namespace

std::optional<CorrectionCache> CorrectionCache::decode(std::string_view bytes,
                                                       const std::string &key, std::string *why)
{
    std::string ignored;
    if (!why)
        why = &ignored;
    CacheFile::Reader r(bytes, kMagic, kVersion);
    if (r.ok() && r.str() != key) {
        *why = "stale (a log changed since the correction was cached)";
        return std::nullopt;
    }
    return readBody(r, why);
}

std::optional<CorrectionCache> CorrectionCache::load(const std::vector<std::string> &logs,
                                                     const ClockCorrector::Options &options,
                                                     std::string *why)
{
    auto fail = [&](const std::string &m) {
        if (why)
            *why = m;
        return std::nullopt;
    };
    if (logs.empty())
        return fail("no logs");
    std::string err;
    const std::string key = keyOf(logs, options, &err);
    if (key.empty())
        return fail(err);
    const std::vector<std::string> sorted = absoluteSorted(logs);
    std::string reason = "no correction cache (the job was never fully loaded with these options)";
    for (bool beside : {true, false}) {
        const std::string p = fileFor(sorted, key, beside);
        std::error_code ec;
        if (p.empty() || !fs::exists(fs::symlink_status(p, ec)))
            continue;
        std::optional<CacheFile::Opened> file =
            CacheFile::open(p, kMagic, kVersion, CacheFile::Layout::Whole, &err);
        if (!file) {
            reason = p + ": " + err;
            continue;
        }
        if (!file->keyIs(key)) {
            reason = p + ": stale (a log changed since the correction was cached)";
            continue;
        }
        std::string bad;
        if (std::optional<CorrectionCache> c = readBody(file->reader(), &bad))
            return c;
        reason = p + ": " + bad;
    }
    return fail(reason);
}

bool CorrectionCache::applyTo(Timeline &tl) const
{
    std::map<std::string, const WorkerClock *> byLog;
    for (const WorkerClock &wc : workers)
        byLog[wc.log] = &wc;
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        Worker &w = tl.workers[i];
        const auto it = byLog.find(fs::absolute(w.info.sourceFile).lexically_normal().string());
        if (it == byLog.end())
            return false;
        w.raw = WorkerAdmission::rawClock(w.info);
        w.corrected = it->second->corrected.empty() ? sync::ClockMap()
                                                    : sync::ClockMap(it->second->corrected);
        w.clock = it->second->clock;
        w.clock.workerId = int(i);
        w.wall = it->second->wall;
    }
    tl.causality = causality;
    tl.wallClocksAgree = wallClocksAgree;
    tl.clockNotes = clockNotes;
    tl.referenceShiftNs = referenceShiftNs;
    return true;
}

} // namespace syncline::load
