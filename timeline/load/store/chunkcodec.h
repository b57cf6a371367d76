// ChunkCodec — the bytes of one event-store chunk (EventStore; docs/scale.md "The index, the
// event store and the correction cache"): encoding up to EventStore::kChunkEvents events of one
// track, or of the file's `msg` records, into a self-contained chunk, and decoding one back.
//
// An event chunk: varint count of its distinct args texts, each as a varint length and its
// bytes (in first-use order), then per event seven varints — the start (zigzag delta from the
// previous start; the first from the chunk's min start), the duration (zigzag), the name id,
// the distance back to the parent in the track (0: none), the depth, the flags (overdue
// cleared: the reader applies the job's config) and the chunk-local args index (0: none).
// Example: events A [100, 900] depth 0 and its child B [150, 400] with args {"step": 1}:
//   1, 11 '{"step": 1}',   0 1600 a 0 0 0 0,   100 500 b 1 1 0 1   (zigzag doubles the deltas)
// A `msg` chunk: per record the local time (zigzag delta from the previous one; the first from
// 0), (track index << 1 | send), and the id as a varint length and its bytes.
// A chunk's directory entry (EventStore::Chunk) holds its count, [min start, max end], offset,
// length and word hash; decoding checks every field against it and fails on any mismatch.
// Threading: static functions over their arguments; any thread.
#pragma once

#include "timeline/load/store/eventstore.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace syncline::load {

class ChunkCodec
{
public:
    using Chunk = EventStore::Chunk;

    // Encodes events [from, from + n) of t (args texts by id from `args`); fills c's count,
    // [min start, max end], length and hash (the caller sets its offset).
    static std::string encodeEvents(const EventTrack &t, size_t from, size_t n,
                                    const ArgStore &args, Chunk &c);
    // Appends the chunks of events [from, count) of t to `bytes`, whose first byte lies at
    // `base` in the file, and their entries to `chunks`.
    static void encodeTrack(const EventTrack &t, size_t from, const ArgStore &args, uint64_t base,
                            std::string &bytes, std::vector<Chunk> &chunks);
    // The same for the message records [from, size) of `msgs`.
    static void encodeMessages(const MessageLog &msgs, size_t from, uint64_t base,
                               std::string &bytes, std::vector<Chunk> &chunks);

    // Reads a store's chunks in runs: the chunks a window needs of one track lie one after
    // another in the file, so a run of them is one pread (up to kRunBytes) instead of one a
    // chunk, and the kernel's readahead is off for the file (POSIX_FADV_RANDOM) — with it, a
    // window of a quarter of a job read about three times the bytes it needed from disk.
    class Reader
    {
    public:
        static constexpr uint64_t kRunBytes = 4 << 20;
        explicit Reader(int fd);
        // The bytes of chunks[k], its hash checked. When they are not in the last run read,
        // reads a new run: chunks[k] and the chunks after it that are adjacent in the file and
        // that `wanted` accepts. False (and *why) on a read error or a hash mismatch.
        template <class Wanted>
        bool get(const std::vector<Chunk> &chunks, size_t k, const Wanted &wanted,
                 std::string_view &bytes, std::string *why)
        {
            const Chunk &c = chunks[k];
            if (c.offset < m_from || c.offset + c.length > m_from + m_run.size()) {
                uint64_t end = c.offset + c.length;
                for (size_t j = k + 1;
                     j < chunks.size() && chunks[j].offset == end &&
                     end - c.offset + chunks[j].length <= kRunBytes && wanted(chunks[j]);
                     ++j)
                    end += chunks[j].length;
                if (!readRun(c.offset, end - c.offset, why))
                    return false;
            }
            bytes = std::string_view(m_run).substr(c.offset - m_from, c.length);
            return checked(bytes, c, why);
        }

    private:
        bool readRun(uint64_t offset, uint64_t length, std::string *why);
        static bool checked(std::string_view bytes, const Chunk &c, std::string *why);
        int m_fd;
        std::string m_run;   // the bytes of the last run read
        uint64_t m_from = 0; // its offset in the file
    };

    // What decodeEvents keeps of a chunk: `in` null keeps every event; `maxNs` (per name id,
    // the config's expected maximum, < 0 none; empty: no rule) sets the overdue flag; `names`
    // is the store's name count (a larger id is corruption).
    struct Keep
    {
        const WindowTest *in;
        const std::vector<int64_t> &maxNs;
        size_t names;
    };
    // One track's kept events while its chunks are decoded, before they are copied, at their
    // exact size, into the track (the caller keeps one per thread, so that these arrays stay
    // allocated from one track and one file to the next).
    struct TrackScratch
    {
        std::vector<int64_t> start, end;
        std::vector<uint32_t> name, args, keptOrig, argIds;
        std::vector<int32_t> parent, newInChunk;
        std::vector<uint16_t> depth, flags;
        int maxDepth = 0;
        void clearTrack();
    };
    // Decodes the event chunk c (its `bytes`; its first event is event `first` of its track)
    // and appends the kept events to s, their parents re-pointed into the kept ones; its
    // args texts are interned into `args` (under `mutex` when not null). False (and *why) when
    // the bytes are not exactly c's events.
    static bool decodeEvents(std::string_view bytes, const Chunk &c, size_t first, const Keep &keep,
                             ArgStore &args, std::mutex *mutex, TrackScratch &s, std::string *why);
    // Moves s's kept events into t's arrays (each allocated once, at its size); args as
    // argDense when `denseArgs` and most kept events have some (EventTrack::compactArgs' rule),
    // else as argRefs.
    static void fillTrack(const TrackScratch &s, bool denseArgs, EventTrack &t);
    // Decodes the `msg` chunk c (its `bytes`) of a store of `tracks` tracks into `out`,
    // the records whose time `in` keeps (every record when `in` is null).
    static bool decodeMessages(std::string_view bytes, const Chunk &c, size_t tracks,
                               const WindowTest *in, MessageLog &out, std::string *why);
};

} // namespace syncline::load
