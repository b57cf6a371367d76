#include "timeline/load/eventstore.h"

#include "timeline/load/cachefile.h"
#include "timeline/load/filereader.h"
#include "timeline/load/varint.h"
#include "timeline/load/windowreader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <unordered_map>

namespace syncline::load {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'E', 'V', 'T', '1'};

using varint::preadExact;
using varint::unzig;
using varint::zig;
using VarReader = varint::Reader;

void putVar(std::string &out, uint64_t v)
{
    varint::put(out, v);
}

// Encodes events [from, from + n) of t (args ids into `args`).
std::string encodeChunk(const EventTrack &t, size_t from, size_t n, const ArgStore &args,
                        EventStore::Chunk &c)
{
    // The chunk's distinct args, in first-use order.
    std::vector<uint32_t> argOf(n, 0);
    std::unordered_map<uint32_t, uint32_t> local;
    std::vector<uint32_t> texts;
    auto ref = std::lower_bound(
        t.argRefs.begin(), t.argRefs.end(), uint32_t(from),
        [](const std::pair<uint32_t, uint32_t> &r, uint32_t e) { return r.first < e; });
    for (; ref != t.argRefs.end() && ref->first < from + n; ++ref) {
        auto [it, inserted] = local.emplace(ref->second, uint32_t(texts.size()));
        if (inserted)
            texts.push_back(ref->second);
        argOf[ref->first - from] = it->second + 1;
    }
    std::string out;
    putVar(out, texts.size());
    for (uint32_t id : texts) {
        const std::string_view s = args.text(id);
        putVar(out, s.size());
        out.append(s);
    }
    c.count = uint32_t(n);
    c.minStart = n > 0 ? t.localStart[from] : 0;
    c.maxEnd = INT64_MIN;
    // The events' varints straight into the buffer (7 per event, at most 10 bytes each).
    const size_t head = out.size();
    out.resize(head + n * 70);
    uint8_t *p = reinterpret_cast<uint8_t *>(out.data() + head);
    auto put = [&p](uint64_t v) {
        while (v >= 0x80) {
            *p++ = uint8_t(v) | 0x80;
            v >>= 7;
        }
        *p++ = uint8_t(v);
    };
    int64_t prev = c.minStart;
    for (size_t k = 0; k < n; ++k) {
        const size_t i = from + k;
        put(zig(t.localStart[i] - prev));
        prev = t.localStart[i];
        put(zig(t.localEnd[i] - t.localStart[i]));
        put(t.nameId[i]);
        put(t.parent[i] < 0 ? 0 : uint64_t(int64_t(i) - t.parent[i]));
        put(t.depth[i]);
        put(uint16_t(t.flags[i] & ~EventOverdue));
        put(argOf[k]);
        c.maxEnd = std::max(c.maxEnd, t.localEnd[i]);
        c.minStart = std::min(c.minStart, t.localStart[i]);
    }
    out.resize(size_t(p - reinterpret_cast<uint8_t *>(out.data())));
    c.length = uint32_t(out.size());
    c.hash = CacheFile::wordHash(out);
    return out;
}

} // namespace

std::string EventStore::pathFor(const std::string &logPath, bool beside)
{
    const fs::path p = fs::absolute(logPath).lexically_normal();
    return CacheFile::placeFor(p.parent_path().string(), beside) + "/" + p.filename().string() +
           ".sevt";
}

std::string EventStore::write(const std::string &logPath, const ParsedFile &f,
                              const LogFileStamp &stamp)
{
    std::string chunks;
    CacheFile::Writer dir(kMagic, kVersion);
    dir.i64(stamp.size);
    dir.i64(stamp.mtimeNs);
    dir.u64(stamp.inode);
    dir.u64(stamp.headHash);
    dir.u32(f.usable ? 1 : 0);
    dir.u32(f.rankKnown ? 1 : 0);
    dir.u32(uint32_t(f.names.size()));
    for (uint32_t i = 0; i < f.names.size(); ++i)
        dir.str(f.names.name(i));
    dir.u32(uint32_t(f.worker.tracks.size()));
    for (const EventTrack &t : f.worker.tracks) {
        if (t.parent.size() != t.count() || t.depth.size() != t.count())
            return {}; // not prepared: nothing to store
        dir.i64(t.tid);
        dir.i64(t.pid);
        dir.u32(t.async ? 1 : 0);
        dir.str(t.category);
        dir.str(t.threadName);
        dir.u32(uint32_t(t.maxDepth));
        dir.u64(t.count());
        const size_t nChunks = (t.count() + kChunkEvents - 1) / kChunkEvents;
        dir.u32(uint32_t(nChunks));
        for (size_t k = 0; k < nChunks; ++k) {
            const size_t from = k * kChunkEvents;
            Chunk c;
            c.offset = chunks.size();
            chunks +=
                encodeChunk(t, from, std::min<size_t>(kChunkEvents, t.count() - from), f.args, c);
            dir.u32(c.count);
            dir.i64(c.minStart);
            dir.i64(c.maxEnd);
            dir.u64(c.offset);
            dir.u32(c.length);
            dir.u64(c.hash);
        }
    }
    const MessageLog &msgs = f.messages;
    const size_t nMsgChunks = (msgs.size() + kChunkEvents - 1) / kChunkEvents;
    dir.u32(uint32_t(nMsgChunks));
    for (size_t k = 0; k < nMsgChunks; ++k) {
        const size_t from = k * kChunkEvents,
                     n = std::min<size_t>(kChunkEvents, msgs.size() - from);
        Chunk c;
        c.offset = chunks.size();
        c.count = uint32_t(n);
        c.minStart = INT64_MAX;
        c.maxEnd = INT64_MIN;
        std::string out;
        int64_t prev = 0;
        for (size_t i = from; i < from + n; ++i) {
            const int64_t ts = msgs[i].localNs;
            putVar(out, zig(ts - prev));
            prev = ts;
            putVar(out, (uint64_t(msgs.track(i)) << 1) | (msgs.send(i) ? 1 : 0));
            const std::string_view id = msgs.id(i);
            putVar(out, id.size());
            out.append(id);
            c.minStart = std::min(c.minStart, ts);
            c.maxEnd = std::max(c.maxEnd, ts);
        }
        c.length = uint32_t(out.size());
        c.hash = CacheFile::wordHash(out);
        chunks += out;
        dir.u32(c.count);
        dir.i64(c.minStart);
        dir.i64(c.maxEnd);
        dir.u64(c.offset);
        dir.u32(c.length);
        dir.u64(c.hash);
    }
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
        dir.u32(uint32_t(p.severity));
        dir.str(p.file);
        dir.i64(p.line);
        dir.str(p.message);
        dir.i64(p.tid);
        dir.i64(p.localNs);
    }
    const uint64_t dirOffset = chunks.size();
    std::string tail = dir.finished();
    tail.append(reinterpret_cast<const char *>(&dirOffset), 8);
    for (bool beside : {true, false}) {
        const std::string p = pathFor(logPath, beside);
        if (CacheFile::writeParts(p, {chunks, tail}))
            return p;
    }
    return {};
}

std::optional<EventStore> EventStore::open(const std::string &logPath, std::string *why)
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
        std::string error;
        const int fd = FileReader::openRegular(p, &error);
        if (fd < 0)
            continue;
        auto fail = [&](const std::string &r) {
            reason = p + ": " + r;
            ::close(fd);
        };
        const off_t size = ::lseek(fd, 0, SEEK_END);
        uint64_t dirOffset = 0;
        if (size < 8 + 20 || !preadExact(fd, reinterpret_cast<char *>(&dirOffset), 8, size - 8) ||
            dirOffset > uint64_t(size) - 8) {
            fail("not an event store (too short or bad trailer)");
            continue;
        }
        std::string bytes(size_t(uint64_t(size) - 8 - dirOffset), '\0');
        if (!preadExact(fd, bytes.data(), bytes.size(), int64_t(dirOffset))) {
            fail("read error");
            continue;
        }
        ::close(fd);
        CacheFile::Reader r(bytes, kMagic, kVersion);
        if (!r.ok()) {
            reason = p + ": " + r.error();
            continue;
        }
        EventStore s;
        s.m_path = p;
        s.storedBytes = int64_t(size);
        s.stamp.size = r.i64();
        s.stamp.mtimeNs = r.i64();
        s.stamp.inode = r.u64();
        s.stamp.headHash = r.u64();
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
                c.count = r.u32();
                c.minStart = r.i64();
                c.maxEnd = r.i64();
                c.offset = r.u64();
                c.length = r.u32();
                c.hash = r.u64();
                sum += c.count;
                consistent = consistent && c.count > 0 && c.count <= kChunkEvents &&
                             c.offset <= dirOffset && c.length <= dirOffset - c.offset;
            }
            consistent = consistent && sum == t.events;
        }
        s.messageChunks.resize(r.count(40));
        for (Chunk &c : s.messageChunks) {
            c.count = r.u32();
            c.minStart = r.i64();
            c.maxEnd = r.i64();
            c.offset = r.u64();
            c.length = r.u32();
            c.hash = r.u64();
            consistent = consistent && c.count > 0 && c.count <= kChunkEvents &&
                         c.offset <= dirOffset && c.length <= dirOffset - c.offset;
        }
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
        s.problems.resize(r.count(36));
        for (LoadProblem &pr : s.problems) {
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
        if (!(s.stamp == *now)) {
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
                      std::string *why, bool withMessages) const
{
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
    std::string buf;
    std::vector<uint32_t> argIds;
    std::vector<int64_t> maxNs(names.size()); // the config's expected maximum per name
    for (size_t i = 0; i < names.size(); ++i)
        maxNs[i] = kinds.expectedMaxNs(out.names, uint32_t(i));
    std::vector<uint32_t> keptOrig;  // per kept event, its index in the whole track
    std::vector<int32_t> newInChunk; // per event of the chunk being decoded: its index kept
    int64_t read = 0;
    const WindowTest in(map, begin, end);
    for (size_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &st = tracks[ti];
        EventTrack &t = out.worker.tracks[ti];
        t.tid = st.tid;
        t.pid = st.pid;
        t.async = st.async;
        t.category = st.category;
        t.threadName = st.threadName;
        // The chunks that can hold an event of the window; the first and last chosen bound the
        // one read (the chunks of a track are contiguous in the file).
        std::vector<size_t> want;
        uint64_t upper = 0;
        for (size_t k = 0; k < st.chunks.size(); ++k) {
            const Chunk &c = st.chunks[k];
            if (c.minStart > bLocal)
                break; // sorted by start: every later chunk starts after the window
            if (c.maxEnd >= aLocal) {
                want.push_back(k);
                upper += c.count;
            }
        }
        t.reserve(upper);
        t.parent.reserve(upper);
        t.depth.reserve(upper);
        keptOrig.clear();
        int maxDepth = 0;
        size_t first = 0; // index in the track of chunk k's first event
        size_t nextChunk = 0;
        for (size_t k : want) {
            for (; nextChunk < k; ++nextChunk)
                first += st.chunks[nextChunk].count;
            const Chunk &c = st.chunks[k];
            buf.resize(c.length);
            if (!preadExact(fd, buf.data(), c.length, int64_t(c.offset)))
                return failed("read error");
            read += c.length;
            if (CacheFile::wordHash(buf) != c.hash)
                return failed("corrupt chunk (hash mismatch)");
            VarReader v(buf);
            const size_t nArgs = v.get();
            if (nArgs > c.count)
                return failed("corrupt chunk");
            argIds.clear();
            for (size_t a = 0; a < nArgs && !v.bad; ++a) {
                const uint64_t len = v.get();
                if (len > uint64_t(v.end - v.p))
                    return failed("corrupt chunk");
                argIds.push_back(out.args.intern(
                    std::string_view(reinterpret_cast<const char *>(v.p), size_t(len))));
                v.p += len;
            }
            int64_t start = c.minStart;
            newInChunk.assign(c.count, -1);
            for (uint32_t e = 0; e < c.count; ++e) {
                start += unzig(v.get());
                const int64_t stop = start + unzig(v.get());
                const uint64_t name = v.get();
                const uint64_t up = v.get();
                const uint64_t depth = v.get();
                uint16_t flags = uint16_t(v.get());
                const uint64_t arg = v.get();
                if (v.bad || name >= names.size() || arg > argIds.size() || depth > 0xFFFF ||
                    up > first + e)
                    return failed("corrupt chunk");
                if (!in.keep(start, stop))
                    continue;
                const uint32_t orig = uint32_t(first + e);
                int32_t parent = -1;
                if (up > 0) {
                    // An ancestor encloses its descendants: it was kept before this event
                    // (mostly in this chunk; else found among the kept ones).
                    const uint32_t p = uint32_t(orig - up);
                    if (up <= e) {
                        parent = newInChunk[e - up];
                    } else {
                        const auto it = std::lower_bound(keptOrig.begin(), keptOrig.end(), p);
                        parent =
                            it != keptOrig.end() && *it == p ? int32_t(it - keptOrig.begin()) : -1;
                    }
                    if (parent < 0)
                        return failed("inconsistent nesting");
                }
                if (maxNs[name] >= 0 && stop - start > maxNs[name])
                    flags |= EventOverdue;
                const uint32_t index = out.addEvent(t, start, stop, uint32_t(name), flags);
                t.parent.push_back(parent);
                t.depth.push_back(uint16_t(depth));
                maxDepth = std::max(maxDepth, int(depth));
                if (arg > 0)
                    t.argRefs.emplace_back(index, argIds[arg - 1]);
                keptOrig.push_back(orig);
                newInChunk[e] = int32_t(index);
            }
            if (v.p != v.end)
                return failed("corrupt chunk (trailing bytes)");
        }
        t.maxDepth = t.count() > 0 ? maxDepth : 0;
        t.localStart.shrink_to_fit();
        t.localEnd.shrink_to_fit();
        t.nameId.shrink_to_fit();
        t.flags.shrink_to_fit();
        t.parent.shrink_to_fit();
        t.depth.shrink_to_fit();
        t.argRefs.shrink_to_fit();
    }
    out.messages = MessageLog();
    for (const Chunk &c : messageChunks) {
        if (!withMessages || c.maxEnd < aLocal || c.minStart > bLocal)
            continue;
        buf.resize(c.length);
        if (!preadExact(fd, buf.data(), c.length, int64_t(c.offset)))
            return failed("read error");
        read += c.length;
        if (CacheFile::wordHash(buf) != c.hash)
            return failed("corrupt chunk (hash mismatch)");
        VarReader v(buf);
        int64_t ts = 0;
        for (uint32_t e = 0; e < c.count; ++e) {
            ts += unzig(v.get());
            const uint64_t trackSend = v.get();
            const uint64_t len = v.get();
            if (v.bad || len > uint64_t(v.end - v.p) ||
                (trackSend >> 1) >= std::max<size_t>(tracks.size(), 1))
                return failed("corrupt chunk");
            const std::string_view id(reinterpret_cast<const char *>(v.p), size_t(len));
            v.p += len;
            if (in.keep(ts, ts))
                out.messages.add(ts, (trackSend & 1) != 0, 0, id, uint32_t(trackSend >> 1));
        }
        if (v.p != v.end)
            return failed("corrupt chunk (trailing bytes)");
    }
    out.messages.shrink();
    if (bytesRead)
        *bytesRead += read;
    return true;
}

} // namespace syncline::load
