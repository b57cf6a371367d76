#include "timeline/load/store/chunkcodec.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/varint.h"
#include "timeline/load/store/windowreader.h"

#include <algorithm>
#include <fcntl.h>
#include <unordered_map>

namespace syncline::load {

using varint::unzig;

static int64_t wrapAdd(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) + uint64_t(b));
}
using varint::zig;

// a − b modulo 2^64 (the inverse of wrapAdd): times within ±2^62 can lie 2^63 apart, which a
// signed subtraction would overflow.
static int64_t wrapSub(int64_t a, int64_t b)
{
    return int64_t(uint64_t(a) - uint64_t(b));
}
using VarReader = varint::Reader;

std::string ChunkCodec::encodeEvents(const EventTrack &t, size_t from, size_t n,
                                     const ArgStore &args, Chunk &c)
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
    varint::put(out, texts.size());
    for (uint32_t id : texts) {
        const std::string_view s = args.text(id);
        varint::put(out, s.size());
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
        put(zig(wrapSub(t.localStart[i], prev)));
        prev = t.localStart[i];
        put(zig(wrapSub(t.localEnd[i], t.localStart[i])));
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

void ChunkCodec::encodeTrack(const EventTrack &t, size_t from, const ArgStore &args, uint64_t base,
                             std::string &bytes, std::vector<Chunk> &chunks)
{
    for (; from < t.count(); from += EventStore::kChunkEvents) {
        Chunk c;
        const std::string out = encodeEvents(
            t, from, std::min<size_t>(EventStore::kChunkEvents, t.count() - from), args, c);
        c.offset = base + bytes.size();
        bytes += out;
        chunks.push_back(c);
    }
}

void ChunkCodec::encodeMessages(const MessageLog &msgs, size_t from, uint64_t base,
                                std::string &bytes, std::vector<Chunk> &chunks)
{
    for (; from < msgs.size(); from += EventStore::kChunkEvents) {
        const size_t n = std::min<size_t>(EventStore::kChunkEvents, msgs.size() - from);
        Chunk c;
        c.offset = base + bytes.size();
        c.count = uint32_t(n);
        c.minStart = INT64_MAX;
        c.maxEnd = INT64_MIN;
        std::string out;
        int64_t prev = 0;
        for (size_t i = from; i < from + n; ++i) {
            const int64_t ts = msgs[i].localNs;
            varint::put(out, zig(wrapSub(ts, prev)));
            prev = ts;
            varint::put(out, (uint64_t(msgs.track(i)) << 1) | (msgs.send(i) ? 1 : 0));
            const std::string_view id = msgs.id(i);
            varint::put(out, id.size());
            out.append(id);
            c.minStart = std::min(c.minStart, ts);
            c.maxEnd = std::max(c.maxEnd, ts);
        }
        c.length = uint32_t(out.size());
        c.hash = CacheFile::wordHash(out);
        bytes += out;
        chunks.push_back(c);
    }
}

ChunkCodec::Reader::Reader(int fd) : m_fd(fd)
{
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
}

bool ChunkCodec::Reader::readRun(uint64_t offset, uint64_t length, std::string *why)
{
    m_run.resize(size_t(length));
    m_from = offset;
    if (!varint::preadExact(m_fd, m_run.data(), m_run.size(), int64_t(offset))) {
        m_run.clear();
        *why = "read error";
        return false;
    }
    return true;
}

bool ChunkCodec::Reader::checked(std::string_view bytes, const Chunk &c, std::string *why)
{
    if (bytes.size() != c.length || CacheFile::wordHash(bytes) != c.hash) {
        *why = "corrupt chunk (hash mismatch)";
        return false;
    }
    return true;
}

void ChunkCodec::TrackScratch::clearTrack()
{
    start.clear();
    end.clear();
    name.clear();
    args.clear();
    keptOrig.clear();
    parent.clear();
    depth.clear();
    flags.clear();
    maxDepth = 0;
}

bool ChunkCodec::decodeEvents(std::string_view bytes, const Chunk &c, size_t first,
                              const Keep &keep, ArgStore &args, std::mutex *mutex, TrackScratch &s,
                              std::string *why)
{
    auto corrupt = [why](const char *what) {
        *why = what;
        return false;
    };
    VarReader v(bytes);
    const size_t nArgs = v.get();
    if (nArgs > c.count)
        return corrupt("corrupt chunk");
    s.argIds.clear();
    {
        std::unique_lock<std::mutex> lock;
        if (mutex)
            lock = std::unique_lock(*mutex);
        for (size_t a = 0; a < nArgs && !v.bad; ++a) {
            const uint64_t len = v.get();
            if (len > uint64_t(v.end - v.p))
                return corrupt("corrupt chunk");
            s.argIds.push_back(
                args.intern(std::string_view(reinterpret_cast<const char *>(v.p), len)));
            v.p += len;
        }
    }
    int64_t start = c.minStart;
    s.newInChunk.assign(c.count, -1);
    for (uint32_t e = 0; e < c.count; ++e) {
        // Seven varints; unchecked while a whole event's worth of bytes remains.
        const bool fast = v.left() >= 7 * VarReader::kMaxBytes;
        auto next = [&v, fast] { return fast ? v.getUnchecked() : v.get(); };
        // Wrapping sums (a corrupt delta is no undefined behaviour), then the parser's rule:
        // a time beyond ±2^62 ns is one no parse gives, so the chunk is corrupt.
        start = wrapAdd(start, unzig(next()));
        const int64_t stop = wrapAdd(start, unzig(next()));
        const uint64_t name = next();
        const uint64_t up = next();
        const uint64_t depth = next();
        uint16_t flags = uint16_t(next());
        const uint64_t arg = next();
        if (v.bad || name >= keep.names || arg > s.argIds.size() || depth > 0xFFFF ||
            up > first + e || !logTimeInRange(start) || !logTimeInRange(stop))
            return corrupt("corrupt chunk");
        if (keep.in && !keep.in->keep(start, stop))
            continue;
        const uint32_t orig = uint32_t(first + e);
        int32_t parent = -1;
        if (up > 0) {
            // An ancestor encloses its descendants: it was kept before this event (mostly in
            // this chunk; else found among the kept ones).
            const uint32_t p = uint32_t(orig - up);
            if (up <= e) {
                parent = s.newInChunk[e - up];
            } else {
                const auto it = std::lower_bound(s.keptOrig.begin(), s.keptOrig.end(), p);
                parent = it != s.keptOrig.end() && *it == p ? int32_t(it - s.keptOrig.begin()) : -1;
            }
            if (parent < 0)
                return corrupt("inconsistent nesting");
        }
        // What every reader of a track indexes by (EventTrack's invariants): sorted by start,
        // no end before its start, a root at depth 0, a child one deeper than its parent and
        // inside it. A store the full parse wrote always holds them; one that does not is corrupt.
        if (stop < start || (!s.start.empty() && start < s.start.back()))
            return corrupt("events out of order");
        if (parent < 0 ? depth != 0
                       : depth != uint64_t(s.depth[size_t(parent)]) + 1 ||
                             start < s.start[size_t(parent)] || stop > s.end[size_t(parent)])
            return corrupt("inconsistent nesting");
        if (!keep.maxNs.empty() && keep.maxNs[name] >= 0 && stop - start > keep.maxNs[name])
            flags |= EventOverdue;
        s.newInChunk[e] = int32_t(s.start.size());
        s.start.push_back(start);
        s.end.push_back(stop);
        s.name.push_back(uint32_t(name));
        s.flags.push_back(flags);
        s.parent.push_back(parent);
        s.depth.push_back(uint16_t(depth));
        s.args.push_back(arg > 0 ? s.argIds[arg - 1] : EventTrack::kNoArgs);
        s.keptOrig.push_back(orig);
        s.maxDepth = std::max(s.maxDepth, int(depth));
    }
    if (v.p != v.end)
        return corrupt("corrupt chunk (trailing bytes)");
    return true;
}

void ChunkCodec::fillTrack(const TrackScratch &s, bool denseArgs, EventTrack &t)
{
    const size_t n = s.start.size();
    t.localStart.assign(s.start.begin(), s.start.end());
    t.localEnd.assign(s.end.begin(), s.end.end());
    t.nameId.assign(s.name.begin(), s.name.end());
    t.flags.assign(s.flags.begin(), s.flags.end());
    t.parent.assign(s.parent.begin(), s.parent.end());
    t.depth.assign(s.depth.begin(), s.depth.end());
    const size_t withArgs =
        size_t(n - size_t(std::count(s.args.begin(), s.args.end(), EventTrack::kNoArgs)));
    if (denseArgs && withArgs * 2 > n) {
        t.argDense.assign(s.args.begin(), s.args.end());
    } else {
        t.argRefs.reserve(withArgs);
        for (size_t i = 0; i < n; ++i)
            if (s.args[i] != EventTrack::kNoArgs)
                t.argRefs.emplace_back(uint32_t(i), s.args[i]);
    }
    t.maxDepth = n > 0 ? s.maxDepth : 0;
}

bool ChunkCodec::decodeMessages(std::string_view bytes, const Chunk &c, size_t tracks,
                                const WindowTest *in, MessageLog &out, std::string *why)
{
    VarReader v(bytes);
    int64_t ts = 0;
    for (uint32_t e = 0; e < c.count; ++e) {
        ts = wrapAdd(ts, unzig(v.get()));
        const uint64_t trackSend = v.get();
        const uint64_t len = v.get();
        if (v.bad || len > uint64_t(v.end - v.p) || !logTimeInRange(ts) ||
            (trackSend >> 1) >= std::max<size_t>(tracks, 1)) {
            *why = "corrupt chunk";
            return false;
        }
        const std::string_view id(reinterpret_cast<const char *>(v.p), size_t(len));
        v.p += len;
        if (!in || in->keep(ts, ts))
            out.add(ts, (trackSend & 1) != 0, 0, id, uint32_t(trackSend >> 1));
    }
    if (v.p != v.end) {
        *why = "corrupt chunk (trailing bytes)";
        return false;
    }
    return true;
}

} // namespace syncline::load
