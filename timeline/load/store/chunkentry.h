// ChunkEntry — how a chunk's entry (EventStore::Chunk: event count, [min start, max end], offset,
// length, hash) is written in a CacheFile record: the event store's directory and the clock
// inputs a Dask task sends both write it so. Reading checks nothing; each reader checks the
// entry against what it knows (the file's length, the blob it points into).
// Threading: values.
#pragma once

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/eventstore.h"

namespace syncline::load::chunkentry {

inline void put(CacheFile::Writer &w, const EventStore::Chunk &c)
{
    w.u32(c.count);
    w.i64(c.minStart);
    w.i64(c.maxEnd);
    w.u64(c.offset);
    w.u32(c.length);
    w.u64(c.hash);
}

inline EventStore::Chunk get(CacheFile::Reader &r)
{
    EventStore::Chunk c;
    c.count = r.u32();
    c.minStart = r.i64();
    c.maxEnd = r.i64();
    c.offset = r.u64();
    c.length = r.u32();
    c.hash = r.u64();
    return c;
}

} // namespace syncline::load::chunkentry
