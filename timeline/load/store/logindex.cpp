#include "timeline/load/store/logindex.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/clockrecords.h"
#include "timeline/load/store/varint.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/parse/problemlog.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'I', 'D', 'X', '1'};

} // namespace

std::optional<LogFileStamp> LogFileStamp::of(const std::string &path)
{
    std::string error;
    const int fd = FileReader::openRegular(path, &error);
    if (fd < 0)
        return std::nullopt;
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return std::nullopt;
    }
    LogFileStamp s;
    s.size = int64_t(st.st_size);
    s.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctimeNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    s.inode = uint64_t(st.st_ino);
    constexpr int64_t kEdge = 4096;
    std::string edge(size_t(std::min(kEdge, s.size)), '\0');
    const bool head = varint::preadExact(fd, edge.data(), edge.size(), 0);
    s.headHash = CacheFile::hash(head ? edge : std::string());
    const bool tail = varint::preadExact(fd, edge.data(), edge.size(), s.size - int64_t(edge.size()));
    s.tailHash = CacheFile::hash(tail ? edge : std::string());
    ::close(fd);
    if (!head || !tail)
        return std::nullopt;
    return s;
}

void LogFileStamp::write(CacheFile::Writer &w) const
{
    w.i64(size);
    w.i64(mtimeNs);
    w.i64(ctimeNs);
    w.u64(inode);
    w.u64(headHash);
    w.u64(tailHash);
}

LogFileStamp LogFileStamp::read(CacheFile::Reader &r)
{
    LogFileStamp s;
    s.size = r.i64();
    s.mtimeNs = r.i64();
    s.ctimeNs = r.i64();
    s.inode = r.u64();
    s.headHash = r.u64();
    s.tailHash = r.u64();
    return s;
}

std::string LogFileStamp::text() const
{
    char buf[160];
    std::snprintf(buf, sizeof buf, " %lld %lld %lld %llu %016llx %016llx", (long long)size,
                  (long long)mtimeNs, (long long)ctimeNs, (unsigned long long)inode,
                  (unsigned long long)headHash, (unsigned long long)tailHash);
    return buf;
}

int64_t LogIndex::headerLengthOf(const std::string &path)
{
    const std::string head = FileReader::head(path, 1 << 16);
    const size_t nl = head.find('\n');
    if (nl == std::string::npos)
        return 0;
    return LogParser::recordTypeOf(std::string_view(head).substr(0, nl)) == RecordType::Header
               ? int64_t(nl + 1)
               : 0;
}

std::string LogIndex::pathFor(const std::string &logPath, bool beside)
{
    const fs::path p = fs::absolute(logPath).lexically_normal();
    return CacheFile::fileIn(p.parent_path().string(), beside, p.filename().string() + ".sidx");
}

void LogIndex::Builder::checkpoint(const LogParser &parser)
{
    Snap s;
    s.cp.offset = parser.partial().bytes;
    s.cp.line = parser.line();
    s.cp.maxTsBefore = parser.anyTime() ? parser.partial().worker.info.lastLocalNs : INT64_MIN;
    const auto &tracks = parser.partial().worker.tracks;
    s.trackSizes.reserve(tracks.size());
    for (const EventTrack &t : tracks)
        s.trackSizes.push_back(uint32_t(t.count()));
    const auto &stacks = parser.openStacks();
    for (size_t t = 0; t < stacks.size(); ++t)
        for (uint32_t e : stacks[t])
            s.open.emplace_back(uint32_t(t), e);
    m_snaps.push_back(std::move(s));
}

LogIndex LogIndex::Builder::finish(const ParsedFile &f, const LogFileStamp &stamp,
                                   int64_t headerEnd)
{
    LogIndex x;
    x.stamp = stamp;
    x.headerEnd = headerEnd;
    const Worker &w = f.worker;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> spanOf;
    for (size_t k = 0; k < m_snaps.size(); ++k) {
        Snap &s = m_snaps[k];
        // The block after checkpoint k holds events [sizes[k], sizes[k + 1]) of every track.
        for (size_t t = 0; t < w.tracks.size(); ++t) {
            const EventTrack &tr = w.tracks[t];
            const size_t from = t < s.trackSizes.size() ? s.trackSizes[t] : 0;
            const size_t to = k + 1 < m_snaps.size() && t < m_snaps[k + 1].trackSizes.size()
                                  ? m_snaps[k + 1].trackSizes[t]
                              : k + 1 < m_snaps.size() ? 0
                                                       : tr.count();
            for (size_t i = from; i < to && i < tr.count(); ++i)
                s.cp.minStartAfter = std::min(s.cp.minStartAfter, tr.localStart[i]);
        }
        s.cp.openBegin = uint32_t(x.openSpans.size());
        for (const auto &[t, e] : s.open) {
            auto [it, inserted] = spanOf.emplace(std::make_pair(t, e), uint32_t(x.spans.size()));
            if (inserted) {
                const EventTrack &tr = w.tracks[t];
                Span sp;
                sp.tid = tr.tid;
                sp.localStart = tr.localStart[e];
                sp.localEnd = tr.localEnd[e];
                sp.flags = tr.flags[e];
                sp.name = std::string(f.names.name(tr.nameId[e]));
                const int64_t a = tr.argsId(e);
                if (a >= 0)
                    sp.args = std::string(f.args.text(uint32_t(a)));
                x.spans.push_back(std::move(sp));
            }
            x.openSpans.push_back(it->second);
        }
        s.cp.openCount = uint32_t(x.openSpans.size()) - s.cp.openBegin;
        x.checkpoints.push_back(s.cp);
    }
    x.setWholeFile(f);
    return x;
}

void LogIndex::setWholeFile(const ParsedFile &f)
{
    const Worker &w = f.worker;
    events = 0;
    threadNames.clear();
    for (const EventTrack &t : w.tracks) {
        events += int64_t(t.count());
        if (!t.threadName.empty())
            threadNames.emplace_back(t.tid, t.threadName);
    }
    refId = w.refId;
    samples = w.samples;
    wallPairs = w.wallPairs;
    firstLocalNs = w.info.firstLocalNs;
    lastLocalNs = w.info.lastLocalNs;
    lastHeartbeatLocalNs = w.info.lastHeartbeatLocalNs;
    droppedEvents = w.info.droppedEvents;
    closedCleanly = w.info.closedCleanly;
}

bool LogIndex::isOpenEventsNote(const LoadProblem &p)
{
    return p.kind == LoadProblem::Kind::OpenEvents && p.severity == LoadProblem::Severity::Info &&
           p.line == 0;
}

void LogIndex::append(const LogIndex &more)
{
    const auto spanBase = uint32_t(spans.size());
    for (Checkpoint c : more.checkpoints) {
        const uint32_t from = c.openBegin;
        c.openBegin = uint32_t(openSpans.size());
        for (uint32_t k = 0; k < c.openCount; ++k)
            openSpans.push_back(spanBase + more.openSpans[from + k]);
        checkpoints.push_back(c);
    }
    spans.insert(spans.end(), more.spans.begin(), more.spans.end());
}

std::pair<size_t, size_t> LogIndex::blocksFor(int64_t a, int64_t b) const
{
    const size_t n = checkpoints.size();
    // lo: the last checkpoint before which every record's time is < a (what lies before it ends
    // before the window; what is still open there comes from its open spans).
    size_t lo = 0;
    while (lo + 1 < n && checkpoints[lo + 1].maxTsBefore < a)
        ++lo;
    // hi: the first checkpoint from which on every event starts after b (suffix minimum).
    size_t hi = n;
    while (hi > lo + 1 && checkpoints[hi - 1].minStartAfter > b)
        --hi;
    return {lo, hi};
}

std::optional<LogIndex> LogIndex::read(const std::string &indexPath, std::string *why)
{
    std::optional<CacheFile::Opened> file =
        CacheFile::open(indexPath, kMagic, kVersion, CacheFile::Layout::Whole, why);
    if (!file)
        return std::nullopt;
    CacheFile::Reader &r = file->reader();
    LogIndex x;
    x.stamp = LogFileStamp::read(r);
    x.headerEnd = r.i64();
    x.firstLocalNs = r.i64();
    x.lastLocalNs = r.i64();
    x.lastHeartbeatLocalNs = r.i64();
    x.droppedEvents = r.i64();
    x.closedCleanly = r.u32() != 0;
    x.events = r.i64();
    x.refId = r.str();
    x.resume.possible = r.u32() != 0;
    x.resume.offset = r.i64();
    x.resume.line = r.i64();
    x.resume.tailHash = r.u64();
    x.resume.firstTid = r.i64();
    x.resume.lastOrderTs.resize(r.count(16));
    for (auto &[tid, ts] : x.resume.lastOrderTs) {
        tid = r.i64();
        ts = r.i64();
    }
    x.resume.notes.resize(r.count(12));
    for (auto &[line, message] : x.resume.notes) {
        line = r.i64();
        message = r.str();
    }
    x.checkpoints.resize(r.count(40));
    for (Checkpoint &c : x.checkpoints) {
        c.offset = r.i64();
        c.line = r.i64();
        c.maxTsBefore = r.i64();
        c.minStartAfter = r.i64();
        c.openBegin = r.u32();
        c.openCount = r.u32();
    }
    x.openSpans.resize(r.count(4));
    for (uint32_t &s : x.openSpans)
        s = r.u32();
    x.spans.resize(r.count(32));
    for (Span &s : x.spans) {
        s.tid = r.i64();
        s.localStart = r.i64();
        s.localEnd = r.i64();
        s.flags = uint16_t(r.u32());
        s.name = r.str();
        s.args = r.str();
    }
    x.threadNames.resize(r.count(12));
    for (auto &[tid, name] : x.threadNames) {
        tid = r.i64();
        name = r.str();
    }
    x.samples = clockrecords::getSamples(r);
    x.wallPairs = clockrecords::getWallPairs(r);
    if (!r.finish()) {
        if (why)
            *why = r.error();
        return std::nullopt;
    }
    // Internal consistency: a reader never indexes past what it read.
    bool consistent = !x.checkpoints.empty() && x.checkpoints[0].offset == 0 &&
                      x.resume.offset >= 0 && x.resume.offset <= x.stamp.size &&
                      x.resume.line >= 0 && x.headerEnd >= 0 && x.headerEnd <= x.stamp.size &&
                      x.events >= 0;
    for (size_t i = 0; consistent && i < x.checkpoints.size(); ++i) {
        const Checkpoint &c = x.checkpoints[i];
        consistent = c.offset >= 0 && c.offset <= x.stamp.size &&
                     (i == 0 || c.offset >= x.checkpoints[i - 1].offset) &&
                     uint64_t(c.openBegin) + c.openCount <= x.openSpans.size();
    }
    for (uint32_t s : x.openSpans)
        consistent = consistent && s < x.spans.size();
    // Notes lie before the continuation, in line order, at most as many as a parse shows.
    consistent = consistent && x.resume.notes.size() <= size_t(ProblemLog::kShownPerKind);
    for (size_t i = 0; consistent && i < x.resume.notes.size(); ++i)
        consistent = x.resume.notes[i].first > 0 && x.resume.notes[i].first <= x.resume.line &&
                     (i == 0 || x.resume.notes[i].first > x.resume.notes[i - 1].first);
    consistent = consistent && clockrecords::wallPairsValid(x.wallPairs);
    if (!consistent) {
        if (why)
            *why = "inconsistent checkpoints";
        return std::nullopt;
    }
    return x;
}

std::optional<LogIndex> LogIndex::load(const std::string &logPath, std::string *why, bool anyStamp)
{
    const std::optional<LogFileStamp> now = LogFileStamp::of(logPath);
    if (!now) {
        if (why)
            *why = "no such log";
        return std::nullopt;
    }
    std::string reason = "no index";
    for (bool beside : {true, false}) {
        const std::string p = pathFor(logPath, beside);
        std::error_code ec;
        if (!fs::exists(p, ec))
            continue;
        std::string r;
        std::optional<LogIndex> x = read(p, &r);
        if (!x) {
            reason = p + ": " + r;
            continue;
        }
        if (!anyStamp && !(x->stamp == *now)) {
            reason = p + ": stale (the log changed since it was written)";
            continue;
        }
        // The header's bytes are re-read from the log by every read that starts mid-log: an
        // index whose length for them is not the log's own is not used (a hash that matches
        // its bytes proves only that the file is whole, not that it is right).
        if (x->headerEnd != headerLengthOf(logPath)) {
            reason = p + ": stale (its header length is not the log's)";
            continue;
        }
        return x;
    }
    if (why)
        *why = reason;
    return std::nullopt;
}

std::string LogIndex::store(const std::string &logPath) const
{
    CacheFile::Writer wr(kMagic, kVersion);
    stamp.write(wr);
    wr.i64(headerEnd);
    wr.i64(firstLocalNs);
    wr.i64(lastLocalNs);
    wr.i64(lastHeartbeatLocalNs);
    wr.i64(droppedEvents);
    wr.u32(closedCleanly ? 1 : 0);
    wr.i64(events);
    wr.str(refId);
    wr.u32(resume.possible ? 1 : 0);
    wr.i64(resume.offset);
    wr.i64(resume.line);
    wr.u64(resume.tailHash);
    wr.i64(resume.firstTid);
    wr.u32(uint32_t(resume.lastOrderTs.size()));
    for (const auto &[tid, ts] : resume.lastOrderTs) {
        wr.i64(tid);
        wr.i64(ts);
    }
    wr.u32(uint32_t(resume.notes.size()));
    for (const auto &[line, message] : resume.notes) {
        wr.i64(line);
        wr.str(message);
    }
    wr.u32(uint32_t(checkpoints.size()));
    for (const Checkpoint &c : checkpoints) {
        wr.i64(c.offset);
        wr.i64(c.line);
        wr.i64(c.maxTsBefore);
        wr.i64(c.minStartAfter);
        wr.u32(c.openBegin);
        wr.u32(c.openCount);
    }
    wr.u32(uint32_t(openSpans.size()));
    for (uint32_t s : openSpans)
        wr.u32(s);
    wr.u32(uint32_t(spans.size()));
    for (const Span &s : spans) {
        wr.i64(s.tid);
        wr.i64(s.localStart);
        wr.i64(s.localEnd);
        wr.u32(s.flags);
        wr.str(s.name);
        wr.str(s.args);
    }
    wr.u32(uint32_t(threadNames.size()));
    for (const auto &[tid, name] : threadNames) {
        wr.i64(tid);
        wr.str(name);
    }
    clockrecords::putSamples(wr, samples);
    clockrecords::putWallPairs(wr, wallPairs);
    for (bool beside : {true, false})
        if (wr.writeTo(pathFor(logPath, beside)))
            return pathFor(logPath, beside);
    return {};
}

} // namespace syncline::load
