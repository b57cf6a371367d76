#include "timeline/load/store/clockinputs.h"

#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/chunkcodec.h"
#include "timeline/load/store/chunkentry.h"
#include "timeline/load/store/clockrecords.h"

#include <algorithm>

namespace syncline::load {

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'C', 'L', 'K', '1'};

using Chunk = EventStore::Chunk;

// A chunk entry that can describe bytes of `blob` (its hash checked as the store's reader does).
bool chunkIn(const Chunk &c, std::string_view blob, std::string_view &bytes)
{
    if (c.count == 0 || c.count > EventStore::kChunkEvents || c.offset > blob.size() ||
        c.length > blob.size() - c.offset)
        return false;
    bytes = blob.substr(size_t(c.offset), c.length);
    return CacheFile::wordHash(bytes) == c.hash;
}

// The fields encode() writes first: the log, its header line and size, what the whole file
// says about the worker, its sync samples.
struct Head
{
    std::string path, header, refId;
    int64_t size = 0;
    bool usable = false, rankKnown = false, closedCleanly = false;
    int64_t whole[4] = {}; // first, last, last heartbeat local ns; dropped events
    std::vector<sync::ClockSample> samples;
};

Head readHead(CacheFile::Reader &r)
{
    Head h;
    h.path = r.str();
    h.header = r.str();
    h.size = r.i64();
    h.usable = r.u32() != 0;
    h.rankKnown = r.u32() != 0;
    for (int64_t &v : h.whole)
        v = r.i64();
    h.closedCleanly = r.u32() != 0;
    h.refId = r.str();
    h.samples = clockrecords::getSamples(r);
    return h;
}

} // namespace

std::string ClockInputs::encode(const ParsedFile &f, std::string_view headerLine, int64_t fileBytes)
{
    std::string blob;
    std::vector<std::vector<Chunk>> trackChunks(f.worker.tracks.size());
    for (size_t ti = 0; ti < f.worker.tracks.size(); ++ti)
        ChunkCodec::encodeTrack(f.worker.tracks[ti], 0, f.args, 0, blob, trackChunks[ti]);
    std::vector<Chunk> msgChunks;
    ChunkCodec::encodeMessages(f.messages, 0, 0, blob, msgChunks);

    CacheFile::Writer w(kMagic, kVersion);
    const WorkerInfo &info = f.worker.info;
    w.str(f.path);
    w.str(headerLine);
    w.i64(fileBytes);
    w.u32(f.usable ? 1 : 0);
    w.u32(f.rankKnown ? 1 : 0);
    w.i64(info.firstLocalNs);
    w.i64(info.lastLocalNs);
    w.i64(info.lastHeartbeatLocalNs);
    w.i64(info.droppedEvents);
    w.u32(info.closedCleanly ? 1 : 0);
    w.str(f.worker.refId);
    clockrecords::putSamples(w, f.worker.samples);
    clockrecords::putWallPairs(w, f.worker.wallPairs);
    w.u32(uint32_t(f.names.size()));
    for (uint32_t i = 0; i < f.names.size(); ++i)
        w.str(f.names.name(i));
    w.u32(uint32_t(f.worker.tracks.size()));
    for (size_t ti = 0; ti < f.worker.tracks.size(); ++ti) {
        const EventTrack &t = f.worker.tracks[ti];
        w.i64(t.tid);
        w.i64(t.pid);
        w.u32(t.async ? 1 : 0);
        w.str(t.category);
        w.str(t.threadName);
        w.i64(t.order);
        w.u32(uint32_t(trackChunks[ti].size()));
        for (const Chunk &c : trackChunks[ti])
            chunkentry::put(w, c);
    }
    w.u32(uint32_t(msgChunks.size()));
    for (const Chunk &c : msgChunks)
        chunkentry::put(w, c);
    w.str(blob);
    return w.finished();
}

bool ClockInputs::synced(const ParsedFile &f)
{
    return f.usable && !f.worker.samples.empty();
}

bool ClockInputs::synced(std::string_view bytes)
{
    CacheFile::Reader r(bytes, kMagic, kVersion);
    const Head h = readHead(r);
    return r.ok() && h.usable && !h.samples.empty();
}

std::optional<ParsedFile> ClockInputs::decode(std::string_view bytes, int64_t *fileBytes,
                                              std::string *why, ChunkCodec::TrackScratch *scratch)
{
    auto refused = [why](const std::string &r) {
        if (why)
            *why = "clock inputs refused: " + r;
        return std::nullopt;
    };
    CacheFile::Reader r(bytes, kMagic, kVersion);
    Head head = readHead(r);
    const std::string &path = head.path, &header = head.header, &refId = head.refId;
    const int64_t size = head.size;
    const bool usable = head.usable, rankKnown = head.rankKnown,
               closedCleanly = head.closedCleanly;
    const int64_t *whole = head.whole;
    std::vector<sync::ClockSample> &samples = head.samples;
    std::vector<WallPair> wallPairs = clockrecords::getWallPairs(r);
    bool consistent =
        clockrecords::samplesValid(samples) && clockrecords::wallPairsValid(wallPairs);
    std::vector<std::string> names(r.count(4));
    for (std::string &n : names)
        n = r.str();
    struct Track
    {
        EventTrack meta;
        std::vector<Chunk> chunks;
    };
    std::vector<Track> tracks(r.count(44));
    for (Track &t : tracks) {
        t.meta.tid = r.i64();
        t.meta.pid = r.i64();
        t.meta.async = r.u32() != 0;
        t.meta.category = r.str();
        t.meta.threadName = r.str();
        t.meta.order = r.i64();
        t.chunks.resize(r.count(40));
        for (Chunk &c : t.chunks)
            c = chunkentry::get(r);
    }
    std::vector<Chunk> msgChunks(r.count(40));
    for (Chunk &c : msgChunks)
        c = chunkentry::get(r);
    const std::string_view blob = r.view(); // the chunks, read in place
    if (!r.finish())
        return refused(r.error());
    if (!consistent)
        return refused("a sync sample or wall-clock pair no log can hold");
    if (size < 0 || !logTimeInRange(whole[0]) || !logTimeInRange(whole[1]) ||
        !logTimeInRange(whole[2]))
        return refused("inconsistent worker fields");
    if (names.empty() || !names[0].empty() || tracks.size() > ParsedFile::kMaxTracks)
        return refused("inconsistent name table or tracks");
    // The worker's identity as the header line gives it; then what the whole file said.
    LogParser parser(path);
    if (!header.empty()) {
        if (header.back() != '\n' || parser.feed(header) != header.size())
            return refused("not a header line");
    }
    ParsedFile f = parser.finish();
    f.problems.clear(); // the parse of the log itself reported them
    f.usable = usable;
    f.rankKnown = rankKnown;
    WorkerInfo &info = f.worker.info;
    info.firstLocalNs = whole[0];
    info.lastLocalNs = whole[1];
    info.lastHeartbeatLocalNs = whole[2];
    info.droppedEvents = whole[3];
    info.closedCleanly = closedCleanly;
    f.worker.refId = refId;
    f.worker.samples = std::move(samples);
    f.worker.wallPairs = std::move(wallPairs);
    f.names = StringTable();
    for (size_t i = 0; i < names.size(); ++i)
        if (f.names.intern(names[i]) != uint32_t(i))
            return refused("inconsistent name table");
    f.args = ArgStore();
    f.argsInTimelineStore = false;
    f.worker.tracks.clear();
    f.worker.tracks.reserve(tracks.size());
    ChunkCodec::TrackScratch own;
    ChunkCodec::TrackScratch &s = scratch ? *scratch : own;
    const std::vector<int64_t> noMax;
    const ChunkCodec::Keep keep{nullptr, noMax, names.size()};
    std::string reason;
    std::string_view chunk;
    for (Track &st : tracks) {
        EventTrack t = std::move(st.meta);
        s.clearTrack();
        size_t first = 0;
        for (const Chunk &c : st.chunks) {
            if (!chunkIn(c, blob, chunk))
                return refused("a chunk outside the bytes or damaged");
            if (!ChunkCodec::decodeEvents(chunk, c, first, keep, f.args, nullptr, s, &reason))
                return refused(reason);
            first += c.count;
        }
        ChunkCodec::fillTrack(s, false, t);
        f.worker.tracks.push_back(std::move(t));
    }
    f.messages = MessageLog();
    for (const Chunk &c : msgChunks)
        if (!chunkIn(c, blob, chunk) ||
            !ChunkCodec::decodeMessages(chunk, c, tracks.size(), nullptr, f.messages, &reason))
            return refused(reason.empty() ? "a chunk outside the bytes or damaged" : reason);
    f.messages.shrink();
    if (fileBytes)
        *fileBytes = size;
    return f;
}

} // namespace syncline::load
