#include "timeline/load/store/eventstore.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/chunkcodec.h"
#include "timeline/load/store/chunkentry.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/store/varint.h"
#include "timeline/load/store/windowreader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'E', 'V', 'T', '1'};

using Chunk = EventStore::Chunk;
using varint::preadExact;

// One directory entry; false when it cannot describe a chunk before the directory.
bool getChunk(CacheFile::Reader &r, Chunk &c, uint64_t dirOffset)
{
    c = chunkentry::get(r);
    return c.count > 0 && c.count <= EventStore::kChunkEvents && c.offset <= dirOffset &&
           c.length <= dirOffset - c.offset;
}

// The directory of a store of `f` whose chunks are `trackChunks` (per track of f) and
// `msgChunks`, placed at `dirOffset`; followed by that offset (the file's last 8 bytes).
std::string directory(const ParsedFile &f, const LogFileStamp &stamp,
                      const std::vector<std::vector<Chunk>> &trackChunks,
                      const std::vector<Chunk> &msgChunks, uint64_t dirOffset)
{
    CacheFile::Writer dir(kMagic, EventStore::kVersion);
    stamp.write(dir);
    dir.u32(f.usable ? 1 : 0);
    dir.u32(f.rankKnown ? 1 : 0);
    dir.u32(uint32_t(f.names.size()));
    for (uint32_t i = 0; i < f.names.size(); ++i)
        dir.str(f.names.name(i));
    dir.u32(uint32_t(f.worker.tracks.size()));
    for (size_t ti = 0; ti < f.worker.tracks.size(); ++ti) {
        const EventTrack &t = f.worker.tracks[ti];
        dir.i64(t.tid);
        dir.i64(t.pid);
        dir.u32(t.async ? 1 : 0);
        dir.str(t.category);
        dir.str(t.threadName);
        dir.u32(uint32_t(t.maxDepth));
        dir.u64(t.count());
        dir.u32(uint32_t(trackChunks[ti].size()));
        for (const Chunk &c : trackChunks[ti])
            chunkentry::put(dir, c);
    }
    dir.u32(uint32_t(msgChunks.size()));
    for (const Chunk &c : msgChunks)
        chunkentry::put(dir, c);
    dir.u32(uint32_t(f.worker.counters.size()));
    for (const CounterTrack &c : f.worker.counters) {
        dir.i64(c.pid);
        dir.str(c.name);
        dir.str(c.series);
        dir.str(c.category);
        dir.f64(c.minValue);
        dir.f64(c.maxValue);
        dir.u32(uint32_t(c.count()));
        for (size_t i = 0; i < c.count(); ++i) {
            dir.i64(c.localTs[i]);
            dir.f64(c.value[i]);
        }
    }
    dir.u32(uint32_t(f.problems.size()));
    for (const LoadProblem &p : f.problems) {
        dir.u32(uint32_t(p.kind));
        dir.u32(uint32_t(p.severity));
        dir.str(p.file);
        dir.i64(p.line);
        dir.str(p.message);
        dir.i64(p.tid);
        dir.i64(p.localNs);
    }
    std::string tail = dir.finished();
    tail.append(reinterpret_cast<const char *>(&dirOffset), 8);
    return tail;
}

bool prepared(const ParsedFile &f)
{
    return std::all_of(f.worker.tracks.begin(), f.worker.tracks.end(), [](const EventTrack &t) {
        return t.parent.size() == t.count() && t.depth.size() == t.count();
    });
}

// The whole store of f: its chunks and its directory.
std::pair<std::string, std::string> encodeWhole(const ParsedFile &f, const LogFileStamp &stamp)
{
    std::string chunks;
    std::vector<std::vector<Chunk>> trackChunks(f.worker.tracks.size());
    for (size_t ti = 0; ti < f.worker.tracks.size(); ++ti)
        ChunkCodec::encodeTrack(f.worker.tracks[ti], 0, f.args, 0, chunks, trackChunks[ti]);
    std::vector<Chunk> msgChunks;
    ChunkCodec::encodeMessages(f.messages, 0, 0, chunks, msgChunks);
    std::string tail = directory(f, stamp, trackChunks, msgChunks, chunks.size());
    return {std::move(chunks), std::move(tail)};
}

// True when events [from, from + n) of `now` are those of `was` in everything the store keeps
// (the overdue flag aside).
bool sameEvents(const EventTrack &was, const EventTrack &now, size_t from, size_t n)
{
    if (from + n > was.count() || from + n > now.count())
        return false;
    for (size_t i = from; i < from + n; ++i)
        if (was.localStart[i] != now.localStart[i] || was.localEnd[i] != now.localEnd[i] ||
            was.nameId[i] != now.nameId[i] || was.parent[i] != now.parent[i] ||
            was.depth[i] != now.depth[i] ||
            uint16_t(was.flags[i] & ~EventOverdue) != uint16_t(now.flags[i] & ~EventOverdue) ||
            was.argsId(uint32_t(i)) != now.argsId(uint32_t(i)))
            return false;
    return true;
}

} // namespace

std::string EventStore::pathFor(const std::string &logPath, bool beside)
{
    const fs::path p = fs::absolute(logPath).lexically_normal();
    return CacheFile::fileIn(p.parent_path().string(), beside, p.filename().string() + ".sevt");
}

std::string EventStore::write(const std::string &logPath, const ParsedFile &f,
                              const LogFileStamp &stamp)
{
    if (!prepared(f))
        return {}; // not prepared: nothing to store
    const auto [chunks, tail] = encodeWhole(f, stamp);
    for (bool beside : {true, false}) {
        const std::string p = pathFor(logPath, beside);
        if (CacheFile::writeParts(p, {chunks, tail}))
            return p;
    }
    return {};
}

bool EventStore::extend(const ParsedFile &f, const std::vector<EventTrack> &before,
                        const LogFileStamp &stamp) const
{
    if (!prepared(f) || before.size() != tracks.size() || m_path.empty())
        return false;
    const uint64_t base = uint64_t(storedBytes);
    std::string bytes;
    std::vector<std::vector<Chunk>> trackChunks(f.worker.tracks.size());
    for (size_t ti = 0; ti < f.worker.tracks.size(); ++ti) {
        const EventTrack &t = f.worker.tracks[ti];
        // The old chunks whose events are unchanged stay as they are; a changed one (an open
        // event that ended, a new parent) is encoded again over the same events; after an
        // insertion every later chunk has changed. Then the new events.
        size_t covered = 0; // events of t in the old chunks' ranges
        for (size_t j = 0; j < tracks.size(); ++j) {
            if (tracks[j].tid != t.tid || tracks[j].async != t.async)
                continue;
            for (const Chunk &c : tracks[j].chunks) {
                if (covered + c.count > t.count())
                    break;
                if (sameEvents(before[j], t, covered, c.count)) {
                    trackChunks[ti].push_back(c);
                } else {
                    Chunk n;
                    const std::string out =
                        ChunkCodec::encodeEvents(t, covered, c.count, f.args, n);
                    n.offset = base + bytes.size();
                    bytes += out;
                    trackChunks[ti].push_back(n);
                }
                covered += c.count;
            }
            break;
        }
        ChunkCodec::encodeTrack(t, covered, f.args, base, bytes, trackChunks[ti]);
    }
    // The message records keep their chunks while the old tracks keep their places (the
    // records name their track by index).
    std::vector<Chunk> msgChunks;
    size_t keptMsgs = 0;
    bool samePlaces = tracks.size() <= f.worker.tracks.size();
    for (size_t j = 0; samePlaces && j < tracks.size(); ++j)
        samePlaces = f.worker.tracks[j].tid == tracks[j].tid;
    if (samePlaces)
        for (const Chunk &c : messageChunks) {
            msgChunks.push_back(c);
            keptMsgs += c.count;
        }
    if (keptMsgs > f.messages.size())
        return false;
    ChunkCodec::encodeMessages(f.messages, keptMsgs, base, bytes, msgChunks);
    uint64_t live = 0;
    for (const auto &list : trackChunks)
        for (const Chunk &c : list)
            live += c.length;
    for (const Chunk &c : msgChunks)
        live += c.length;
    const uint64_t dirOffset = base + bytes.size();
    const std::string tail = directory(f, stamp, trackChunks, msgChunks, dirOffset);
    if (dirOffset + tail.size() > 2 * live + (uint64_t(1) << 20)) {
        // Mostly superseded bytes (events inserted early in long tracks): written anew.
        const auto [chunks, whole] = encodeWhole(f, stamp);
        return CacheFile::writeParts(m_path, {chunks, whole});
    }
    const int fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat st
    {
    };
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == off_t(base);
    if (ok) {
        // Appended after the old end (its directory stays behind as dead bytes): a reader that
        // opened the old directory still finds every chunk it names unchanged.
        for (std::string_view part : {std::string_view(bytes), std::string_view(tail)}) {
            size_t done = 0;
            const uint64_t at = part.data() == bytes.data() ? base : dirOffset;
            while (ok && done < part.size()) {
                const ssize_t w =
                    ::pwrite(fd, part.data() + done, part.size() - done, off_t(at + done));
                if (w < 0 && errno == EINTR)
                    continue;
                ok = w > 0;
                done += ok ? size_t(w) : 0;
            }
        }
        if (!ok && ::ftruncate(fd, off_t(base)) != 0) {
            // The old store stays (stale for the grown log: rebuilt by the next load).
        }
    }
    ::close(fd);
    return ok;
}

std::optional<EventStore> EventStore::open(const std::string &logPath, std::string *why,
                                           bool anyStamp)
{
    const std::optional<LogFileStamp> now = LogFileStamp::of(logPath);
    if (!now) {
        if (why)
            *why = "no such log";
        return std::nullopt;
    }
    std::string reason = "no event store";
    for (bool beside : {true, false}) {
        const std::string p = pathFor(logPath, beside);
        std::error_code ec;
        if (p.empty() || !fs::exists(fs::symlink_status(p, ec)))
            continue;
        std::string error;
        std::optional<CacheFile::Opened> file =
            CacheFile::open(p, kMagic, kVersion, CacheFile::Layout::Directory, &error);
        if (!file) {
            reason = p + ": " + error;
            continue;
        }
        CacheFile::Reader &r = file->reader();
        const uint64_t dirOffset = file->recordOffset();
        const uint64_t size = file->fileSize();
        EventStore s;
        s.m_path = p;
        s.storedBytes = int64_t(size);
        s.stamp = LogFileStamp::read(r);
        s.usable = r.u32() != 0;
        s.rankKnown = r.u32() != 0;
        s.names.resize(r.count(4));
        for (std::string &n : s.names)
            n = r.str();
        s.tracks.resize(r.count(40));
        bool consistent = true;
        for (Track &t : s.tracks) {
            t.tid = r.i64();
            t.pid = r.i64();
            t.async = r.u32() != 0;
            t.category = r.str();
            t.threadName = r.str();
            t.maxDepth = r.u32();
            t.events = r.u64();
            t.chunks.resize(r.count(40));
            uint64_t sum = 0;
            for (Chunk &c : t.chunks) {
                consistent = getChunk(r, c, dirOffset) && consistent;
                sum += c.count;
            }
            consistent = consistent && sum == t.events;
        }
        s.messageChunks.resize(r.count(40));
        for (Chunk &c : s.messageChunks)
            consistent = getChunk(r, c, dirOffset) && consistent;
        s.counters.resize(r.count(52));
        for (CounterTrack &c : s.counters) {
            c.pid = r.i64();
            c.name = r.str();
            c.series = r.str();
            c.category = r.str();
            c.minValue = r.f64();
            c.maxValue = r.f64();
            const size_t n = r.count(16);
            c.localTs.resize(n);
            c.value.resize(n);
            for (size_t i = 0; i < n; ++i) {
                c.localTs[i] = r.i64();
                c.value[i] = r.f64();
            }
        }
        s.problems.resize(r.count(40));
        for (LoadProblem &pr : s.problems) {
            const uint32_t kind = r.u32();
            consistent = consistent && kind < uint32_t(LoadProblem::Kind::Count);
            pr.kind = kind < uint32_t(LoadProblem::Kind::Count) ? LoadProblem::Kind(kind)
                                                                 : LoadProblem::Kind::Other;
            const uint32_t sev = r.u32();
            consistent = consistent && sev <= uint32_t(LoadProblem::Severity::Error);
            pr.severity = LoadProblem::Severity(std::min<uint32_t>(sev, 2));
            pr.file = r.str();
            pr.line = r.i64();
            pr.message = r.str();
            pr.tid = r.i64();
            pr.localNs = r.i64();
        }
        if (!r.finish()) {
            reason = p + ": " + r.error();
            continue;
        }
        if (!consistent || s.names.empty() || !s.names[0].empty()) {
            reason = p + ": inconsistent directory";
            continue;
        }
        if (!anyStamp && !(s.stamp == *now)) {
            reason = p + ": stale (the log changed since it was written)";
            continue;
        }
        return s;
    }
    if (why)
        *why = reason;
    return std::nullopt;
}

bool EventStore::read(const sync::ClockMap &map, int64_t begin, int64_t end, int64_t aLocal,
                      int64_t bLocal, EventKindLookup &kinds, ParsedFile &out, int64_t *bytesRead,
                      std::string *why, bool withMessages, const ArgSink &sink) const
{
    const WindowTest in(map, begin, end);
    std::vector<int64_t> maxNs(names.size()); // the config's expected maximum per name
    StringTable table;
    for (size_t i = 0; i < names.size(); ++i)
        maxNs[i] = kinds.expectedMaxNs(table, table.intern(names[i]));
    return decode(&in, aLocal, bLocal, maxNs, out, bytesRead, why, withMessages, sink, true);
}

bool EventStore::readAll(ParsedFile &out, std::string *why) const
{
    return decode(nullptr, INT64_MIN, INT64_MAX, {}, out, nullptr, why, true, {nullptr, nullptr},
                  false);
}

bool EventStore::decode(const WindowTest *in, int64_t aLocal, int64_t bLocal,
                        const std::vector<int64_t> &maxNs, ParsedFile &out, int64_t *bytesRead,
                        std::string *why, bool withMessages, const ArgSink &sink,
                        bool denseArgs) const
{
    std::string reason;
    auto failed = [&](const std::string &r) {
        if (why)
            *why = m_path + ": " + r;
        return false;
    };
    std::string error;
    const int fd = FileReader::openRegular(m_path, &error);
    if (fd < 0)
        return failed(error);
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::lseek(fd, 0, SEEK_END) != off_t(storedBytes))
        return failed("changed since it was opened");
    out.names = StringTable();
    for (size_t i = 0; i < names.size(); ++i)
        if (out.names.intern(names[i]) != uint32_t(i))
            return failed("inconsistent name table");
    out.usable = usable;
    out.rankKnown = rankKnown;
    out.problems = problems;
    out.worker.counters = counters;
    out.worker.tracks.clear();
    out.worker.tracks.resize(tracks.size());
    ArgStore &args = sink.store ? *sink.store : out.args;
    out.argsInTimelineStore = sink.store != nullptr;
    thread_local ChunkCodec::TrackScratch s;
    const ChunkCodec::Keep keep{in, maxNs, names.size()};
    ChunkCodec::Reader reader(fd);
    std::string_view bytes;
    auto wanted = [aLocal, bLocal](const Chunk &c) {
        return c.minStart <= bLocal && c.maxEnd >= aLocal;
    };
    int64_t read = 0;
    for (size_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &st = tracks[ti];
        EventTrack &t = out.worker.tracks[ti];
        t.tid = st.tid;
        t.pid = st.pid;
        t.async = st.async;
        t.category = st.category;
        t.threadName = st.threadName;
        s.clearTrack();
        size_t first = 0; // index in the track of chunk k's first event
        for (size_t k = 0; k < st.chunks.size(); first += st.chunks[k].count, ++k) {
            const Chunk &c = st.chunks[k];
            if (c.minStart > bLocal)
                break; // sorted by start: every later chunk starts after the window
            if (c.maxEnd < aLocal)
                continue;
            if (!reader.get(st.chunks, k, wanted, bytes, &reason) ||
                !ChunkCodec::decodeEvents(bytes, c, first, keep, args, sink.mutex, s, &reason))
                return failed(reason);
            read += c.length;
        }
        ChunkCodec::fillTrack(s, denseArgs, t);
    }
    out.messages = MessageLog();
    for (size_t k = 0; withMessages && k < messageChunks.size(); ++k) {
        const Chunk &c = messageChunks[k];
        if (!wanted(c))
            continue;
        if (!reader.get(messageChunks, k, wanted, bytes, &reason) ||
            !ChunkCodec::decodeMessages(bytes, c, tracks.size(), in, out.messages, &reason))
            return failed(reason);
        read += c.length;
    }
    out.messages.shrink();
    if (bytesRead)
        *bytesRead += read;
    return true;
}

} // namespace syncline::load
