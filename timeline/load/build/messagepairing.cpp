// MessagePairing — see messagepairing.h.
#include "timeline/load/build/messagepairing.h"

#include "sync/parallel.h"
#include "sync/radixsort.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <thread>
#include <tuple>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace syncline::load {

namespace {

using sync::parallelFor;

// Moves every item of items[0, start.back()) into its bucket's range [start[b], start[b + 1])
// in place (one pass of an MSD radix sort: each item is swapped at most once into its place),
// no second array. Not stable.
template <typename T, typename BucketOf>
void inPlaceBuckets(T *items, const std::vector<size_t> &start, BucketOf bucketOf)
{
    std::vector<size_t> next(start.begin(), start.end() - 1);
    for (size_t b = 0; b + 1 < start.size(); ++b) {
        while (next[b] < start[b + 1]) {
            T item = items[next[b]];
            for (size_t d = bucketOf(item); d != b; d = bucketOf(item))
                std::swap(item, items[next[d]++]);
            items[next[b]++] = item;
        }
    }
}

// The engine's pair order: (send worker, send time, receive worker, receive time).
bool lessPair(const sync::MessagePair &a, const sync::MessagePair &b)
{
    return std::tie(a.sendWorker, a.sendLocal, a.recvWorker, a.recvLocal) <
           std::tie(b.sendWorker, b.sendLocal, b.recvWorker, b.recvLocal);
}

// Sorts the pairs by (send worker, send time, receive worker, receive time): bucketed by send
// worker in place, each bucket sorted on its own, the buckets in parallel.
void sortPairs(std::vector<sync::MessagePair> &pairs, size_t workers)
{
    auto bucketOf = [workers](const sync::MessagePair &p) {
        return size_t(std::clamp<int>(p.sendWorker, 0, int(workers)));
    };
    std::vector<size_t> start(workers + 2, 0);
    for (const sync::MessagePair &p : pairs)
        ++start[bucketOf(p) + 1];
    for (size_t w = 0; w + 1 < start.size(); ++w)
        start[w + 1] += start[w];
    inPlaceBuckets(pairs.data(), start, bucketOf);
    // Per worker by send time (radix, stable), then each run of equal send times by the rest
    // (a bucket of clamped workers, out of range, by the whole order).
    parallelFor(workers + 1, [&](size_t w) {
        sync::MessagePair *const from = pairs.data() + start[w];
        sync::MessagePair *const to = pairs.data() + start[w + 1];
        if (std::any_of(from, to, [&](const sync::MessagePair &p) {
                return p.sendWorker != from->sendWorker;
            })) {
            std::sort(from, to, lessPair);
            return;
        }
        sync::radixSort(from, to, [](const sync::MessagePair &p) {
            return uint64_t(p.sendLocal) ^ (uint64_t(1) << 63);
        });
        for (sync::MessagePair *r = from; r != to;) {
            sync::MessagePair *e = r + 1;
            while (e != to && e->sendLocal == r->sendLocal)
                ++e;
            if (e - r > 1)
                std::sort(r, e, lessPair);
            r = e;
        }
    });
}

// Each record's key: the id itself when it has at most 15 bytes (its bytes and length — exact,
// so such keys never read the log's id bytes again), else its hash and length (those keys are
// compared by their bytes where they meet), with the local time, the worker, the record's index
// and direction.
struct PairKey
{
    uint64_t w0, w1; // the id's 16 bytes (see encode)
    int64_t localNs;
    uint32_t index;      // the record's index in its worker's log
    uint32_t workerSend; // worker << 1 | send
    uint32_t worker() const { return workerSend >> 1; }
    bool send() const { return (workerSend & 1) != 0; }
};
static_assert(sizeof(PairKey) == 32 && sizeof(MessageLink) == 32);

constexpr size_t kInlineId = 15;

// Short ids: bytes 0..14 the id (zero padded), byte 15 its length (0..15). Long ids: bytes 0..7
// its hash, bytes 8..11 its length, byte 15 = 0xff. Equal ids give equal words; two short ids
// are equal exactly when their words are.
void encode(std::string_view id, PairKey &k)
{
    unsigned char b[16] = {};
    if (id.size() <= kInlineId) {
        if (!id.empty()) // (an empty view's data may be null: UB for memcpy even at 0 bytes)
            std::memcpy(b, id.data(), id.size());
        b[15] = uint8_t(id.size());
    } else {
        const uint64_t h = std::hash<std::string_view>()(id);
        const uint32_t n = uint32_t(id.size());
        std::memcpy(b, &h, 8);
        std::memcpy(b + 8, &n, 4);
        b[15] = 0xff;
    }
    std::memcpy(&k.w0, b, 8);
    std::memcpy(&k.w1, b + 8, 8);
}

// The same words, reading 16 bytes at once where `arena` (the id's log's bytes) has them after
// the id (little-endian: the bytes past the id are masked off, the length put in byte 15).
void encode(std::string_view id, std::string_view arena, PairKey &k)
{
    if constexpr (std::endian::native == std::endian::little) {
        const size_t n = id.size();
        if (n <= kInlineId && size_t(arena.data() + arena.size() - id.data()) >= 16) {
            uint64_t w[2];
            std::memcpy(w, id.data(), 16);
            const uint64_t lo = n >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * n)) - 1;
            const uint64_t hi = n <= 8 ? 0 : (uint64_t(1) << (8 * (n - 8))) - 1;
            k.w0 = w[0] & lo;
            k.w1 = (w[1] & hi) | uint64_t(n) << 56;
            return;
        }
    }
    encode(id, k);
}

bool isLongId(const PairKey &k)
{
    unsigned char b[8];
    std::memcpy(b, &k.w1, 8);
    return b[7] == 0xff;
}

uint64_t mixId(const PairKey &k)
{
    uint64_t h = k.w0 * 0x9E3779B97F4A7C15ULL ^ (k.w1 + 0x632BE59BD9B4E019ULL);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 32);
}

// Gives the heap's free pages back to the system (glibc keeps freed blocks for reuse).
void returnFreeMemory()
{
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
}

// (worker, record index) of a after b's.
bool later(const PairKey &a, const PairKey &b)
{
    return std::make_pair(a.worker(), a.index) > std::make_pair(b.worker(), b.index);
}

// Trivially copyable items in one malloc'd block, so it can shrink in place (realloc: a large
// block's pages past its new end go back to the system at once).
class RawBuffer
{
public:
    explicit RawBuffer(size_t bytes) { resize(bytes); }
    ~RawBuffer() { std::free(m_p); }
    RawBuffer(const RawBuffer &) = delete;
    RawBuffer &operator=(const RawBuffer &) = delete;
    void resize(size_t bytes)
    {
        void *p = std::realloc(m_p, std::max<size_t>(bytes, 1));
        if (!p)
            throw std::bad_alloc();
        m_p = p;
    }
    void release()
    {
        std::free(m_p);
        m_p = nullptr;
    }
    template <typename T> T *as() const { return static_cast<T *>(m_p); }

private:
    void *m_p = nullptr;
};

// Sorts one sender's links into MessageLink::lessByPair order: by send time (radix), each run
// of equal send times by the whole order, then regrouped stably by (send track, receive worker,
// receive track, kind).
void sortSenderLinks(MessageLink *from, MessageLink *to)
{
    sync::radixSort(
        from, to, [](const MessageLink &l) { return uint64_t(l.fromLocal) ^ (uint64_t(1) << 63); });
    for (MessageLink *r = from; r != to;) {
        MessageLink *e = r + 1;
        while (e != to && e->fromLocal == r->fromLocal)
            ++e;
        if (e - r > 1)
            std::sort(r, e, MessageLink::lessByPair);
        r = e;
    }
    using Group = std::tuple<uint32_t, uint32_t, uint32_t, int>;
    auto groupOf = [](const MessageLink &l) {
        return Group(l.fromTrack, l.toWorker, uint32_t(l.toTrack), int(l.kind));
    };
    std::vector<Group> groups;
    for (const MessageLink *l = from; l != to; ++l)
        if (groups.empty() || groups.back() != groupOf(*l))
            groups.push_back(groupOf(*l));
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    if (groups.size() <= 1)
        return;
    auto indexOf = [&](const MessageLink &l) {
        return size_t(std::lower_bound(groups.begin(), groups.end(), groupOf(l)) - groups.begin());
    };
    std::vector<size_t> at(groups.size() + 1, 0);
    for (const MessageLink *l = from; l != to; ++l)
        ++at[indexOf(*l) + 1];
    for (size_t g = 0; g + 1 < at.size(); ++g)
        at[g + 1] += at[g];
    std::vector<MessageLink> regrouped(size_t(to - from));
    for (const MessageLink *l = from; l != to; ++l)
        regrouped[at[indexOf(*l)]++] = *l;
    std::copy(regrouped.begin(), regrouped.end(), from);
}

// The links (lessByPair order) as a LinkTable, 16 bytes a link.
LinkTable tableOf(const MessageLink *links, size_t n)
{
    LinkTable t;
    t.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (!t.appendInOrder(links[i])) // (never: they are sorted) — sort them there
            return LinkTable(std::vector<MessageLink>(links, links + n));
    return t;
}

} // namespace

void MessagePairing::run(const Timeline &tl, const std::vector<MessageLog> &messages,
                         std::vector<MessageLog> *consumable, std::vector<sync::MessagePair> *out,
                         LinkTable *links)
{
    size_t total = 0, recordBytes = 0;
    std::vector<size_t> firstRecord(messages.size() + 1, 0);
    for (size_t w = 0; w < messages.size(); ++w) {
        total += messages[w].size();
        recordBytes += messages[w].bytes();
        firstRecord[w + 1] = total;
    }
    // ~4,096 keys (128 KiB) a bucket, a power of two from 256 to 65,536.
    int bits = 8;
    while (bits < 16 && (total >> bits) > 16384)
        ++bits;
    const size_t buckets = size_t(1) << bits;
    auto bucketOf = [bits](const PairKey &k) { return size_t(mixId(k) >> (64 - bits)); };

    // The workers in contiguous ranges of about equal record counts, one per thread.
    const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                                              std::max<size_t>(messages.size(), 1));
    std::vector<size_t> firstWorker(threads + 1, messages.size());
    firstWorker[0] = 0;
    {
        size_t seen = 0, t = 1;
        for (size_t w = 0; w < messages.size() && t < threads; ++w) {
            seen += messages[w].size();
            while (t < threads && seen * threads >= total * t)
                firstWorker[t++] = w + 1;
        }
    }
    auto makeKey = [&](size_t w, size_t i) {
        PairKey k;
        encode(messages[w].id(i), messages[w].idBytes(), k);
        k.localNs = messages[w][i].localNs;
        k.index = uint32_t(i);
        k.workerSend = uint32_t(w) << 1 | (messages[w].send(i) ? 1u : 0u);
        return k;
    };
    // The keys in worker order, each worker's records freed as soon as its keys are written:
    // the buffer's pages are touched in order, as the records' are given back (malloc leaves a
    // block this large unmapped until it is written).
    RawBuffer buffer(total * sizeof(PairKey));
    PairKey *const keys = buffer.as<PairKey>();
    std::vector<std::vector<size_t>> count(threads, std::vector<size_t>(buckets, 0));
    std::atomic<size_t> freedSinceTrim{0};
    parallelFor(threads, [&](size_t t) {
        std::vector<size_t> &c = count[t];
        for (size_t w = firstWorker[t]; w < firstWorker[t + 1]; ++w) {
            bool anyLong = false;
            PairKey *to = keys + firstRecord[w];
            for (size_t i = 0; i < messages[w].size(); ++i) {
                const PairKey k = makeKey(w, i);
                anyLong = anyLong || isLongId(k);
                ++c[bucketOf(k)];
                to[i] = k;
            }
            if (consumable && !anyLong) {
                const size_t bytes = messages[w].bytes();
                (*consumable)[w].releaseRecords();
                if (freedSinceTrim += bytes; freedSinceTrim >= recordBytes / 16 + 1) {
                    freedSinceTrim = 0;
                    returnFreeMemory();
                }
            }
        }
    });
    std::vector<size_t> start(buckets + 1, 0);
    for (size_t b = 0; b < buckets; ++b) {
        start[b + 1] = start[b];
        for (size_t t = 0; t < threads; ++t)
            start[b + 1] += count[t][b];
    }
    std::vector<std::vector<size_t>>().swap(count);
    // Each key into its bucket (by a mix of the id words; ~4,096 keys a bucket, so a bucket
    // pairs in cache), in place: first into one contiguous range of buckets per thread (a pass
    // with a few write positions, nearly sequential), then each range on its own thread.
    {
        const size_t parts = threads;
        auto partOf = [&](size_t b) { return b * parts / buckets; };
        std::vector<size_t> firstBucket(parts + 1, buckets);
        for (size_t b = buckets; b-- > 0;)
            firstBucket[partOf(b)] = b;
        for (size_t q = parts; q-- > 0;) // (more threads than buckets: empty parts)
            firstBucket[q] = std::min(firstBucket[q], firstBucket[q + 1]);
        std::vector<size_t> partStart(parts + 1);
        for (size_t q = 0; q <= parts; ++q)
            partStart[q] = start[firstBucket[q]];
        if (parts > 1)
            inPlaceBuckets(keys, partStart, [&](const PairKey &k) { return partOf(bucketOf(k)); });
        parallelFor(parts, [&](size_t q) {
            const size_t lo = firstBucket[q], hi = firstBucket[q + 1];
            std::vector<size_t> local(hi - lo + 1);
            for (size_t b = lo; b <= hi; ++b)
                local[b - lo] = start[b] - start[lo];
            inPlaceBuckets(keys + start[lo], local,
                           [&](const PairKey &k) { return bucketOf(k) - lo; });
        });
    }

    auto id = [&](const PairKey &k) { return messages[k.worker()].id(k.index); };
    auto hasTrack = [&](uint32_t w, uint32_t t) {
        return w < tl.workers.size() && t < tl.workers[w].tracks.size();
    };
    // Per bucket: its arrows over its front, and the engine's pairs whose ends have no track
    // (no arrow; the engine's other pairs are read off the arrows below).
    std::vector<size_t> linksIn(buckets, 0);
    std::vector<std::vector<sync::MessagePair>> trackless(buckets);
    // An open-addressing table by the id's words (long ids: and their bytes) holds each id's
    // two positions, its last send and last receive; one table per thread, reused bucket after
    // bucket (the buckets are of about equal size, so contiguous ranges of them balance).
    struct Slot
    {
        uint64_t w0, w1;
        int32_t send, recv; // positions in the bucket; both −1: the slot is free
    };
    parallelFor(threads, [&](size_t t) {
        std::vector<Slot> table;
        std::vector<MessageLink> made;
        for (size_t b = buckets * t / threads; b < buckets * (t + 1) / threads; ++b) {
            PairKey *const first = keys + start[b];
            const size_t n = start[b + 1] - start[b];
            size_t cap = 16;
            while (2 * cap < 3 * n) // load ≤ 2/3
                cap *= 2;
            table.assign(cap, Slot{0, 0, -1, -1});
            for (size_t p = 0; p < n; ++p) {
                const PairKey &k = first[p];
                const bool isLong = isLongId(k);
                for (size_t h = size_t(mixId(k)) & (cap - 1);; h = (h + 1) & (cap - 1)) {
                    Slot &sl = table[h];
                    if (sl.send < 0 && sl.recv < 0) {
                        sl.w0 = k.w0;
                        sl.w1 = k.w1;
                    } else if (sl.w0 != k.w0 || sl.w1 != k.w1 ||
                               (isLong && id(first[size_t(std::max(sl.send, sl.recv))]) != id(k))) {
                        continue;
                    }
                    // The last in (worker, record) order wins (the in-place bucketing does
                    // not keep the keys' order).
                    int32_t &at = k.send() ? sl.send : sl.recv;
                    if (at < 0 || later(k, first[size_t(at)]))
                        at = int32_t(p);
                    break;
                }
            }
            made.clear();
            for (const Slot &sl : table) {
                if (sl.send < 0 || sl.recv < 0)
                    continue;
                const PairKey &send = first[size_t(sl.send)], &recv = first[size_t(sl.recv)];
                const uint32_t sw = send.worker(), rw = recv.worker();
                const uint32_t st = messages[sw].track(send.index),
                               rt = messages[rw].track(recv.index);
                if (hasTrack(sw, st) && hasTrack(rw, rt)) {
                    MessageLink l;
                    l.fromLocal = send.localNs;
                    l.toLocal = recv.localNs;
                    l.fromWorker = sw;
                    l.toWorker = rw;
                    l.fromTrack = st;
                    l.toTrack = rt;
                    l.kind = MessageLink::Message;
                    made.push_back(l);
                } else if (sw != rw) {
                    trackless[b].push_back({int(sw), send.localNs, int(rw), recv.localNs});
                }
            }
            // The bucket's arrows over its front (an arrow takes two keys: they fit).
            linksIn[b] = made.size();
            if (!made.empty()) // (memcpy from an empty vector's null data is UB even for 0 bytes)
                std::memcpy(static_cast<void *>(first), made.data(),
                            made.size() * sizeof(MessageLink));
        }
    });
    if (consumable) {
        for (MessageLog &m : *consumable)
            m.releaseRecords();
        returnFreeMemory();
    }

    // Chrome flows: the links are every step of a flow (s → t → … → f, consecutive points of
    // one id); the engine takes the arrows s → f across workers.
    std::vector<MessageLink> flowLinks;
    std::vector<sync::MessagePair> extraPairs; // trackless, then flows
    for (const auto &t : trackless)
        extraPairs.insert(extraPairs.end(), t.begin(), t.end());
    std::vector<std::vector<sync::MessagePair>>().swap(trackless);
    for (size_t i = 0; i + 1 < tl.flows.size(); ++i) {
        const FlowPoint &a = tl.flows[i], &b = tl.flows[i + 1];
        if (a.id != b.id)
            continue;
        if (a.phase == 's' && b.phase == 'f' && a.worker != b.worker)
            extraPairs.push_back({int(a.worker), a.localNs, int(b.worker), b.localNs});
        if (a.phase != 'f' && b.phase != 's' && hasTrack(a.worker, a.track) &&
            hasTrack(b.worker, b.track)) {
            MessageLink l;
            l.fromLocal = a.localNs;
            l.toLocal = b.localNs;
            l.fromWorker = a.worker;
            l.toWorker = b.worker;
            l.fromTrack = a.track;
            l.toTrack = b.track;
            l.kind = MessageLink::Flow;
            flowLinks.push_back(l);
        }
    }
    // The arrows packed at the front of the key buffer (each bucket's are over its own front,
    // and a bucket holds at least two keys an arrow, so the moves only go down), the flows'
    // after them, and the buffer shrunk to them.
    size_t made = 0;
    for (size_t b = 0; b < buckets; ++b) {
        if (linksIn[b] > 0)
            std::memmove(static_cast<void *>(buffer.as<MessageLink>() + made),
                         static_cast<const void *>(keys + start[b]),
                         linksIn[b] * sizeof(MessageLink));
        made += linksIn[b];
    }
    const size_t n = made + flowLinks.size();
    buffer.resize(n * sizeof(MessageLink));
    MessageLink *const all = buffer.as<MessageLink>();
    if (!flowLinks.empty())
        std::memcpy(static_cast<void *>(all + made), flowLinks.data(),
                    flowLinks.size() * sizeof(MessageLink));
    std::vector<MessageLink>().swap(flowLinks);
    // By sending worker in place, then each worker's in lessByPair order, the workers in
    // parallel: the whole is then in lessByPair order.
    size_t senders = std::max(tl.workers.size(), messages.size());
    for (size_t i = 0; i < n; ++i)
        senders = std::max<size_t>(senders, size_t(all[i].fromWorker) + 1);
    std::vector<size_t> senderStart(senders + 1, 0);
    for (size_t i = 0; i < n; ++i)
        ++senderStart[all[i].fromWorker + 1];
    for (size_t w = 0; w < senders; ++w)
        senderStart[w + 1] += senderStart[w];
    inPlaceBuckets(all, senderStart, [](const MessageLink &l) { return size_t(l.fromWorker); });
    parallelFor(senders,
                [&](size_t w) { sortSenderLinks(all + senderStart[w], all + senderStart[w + 1]); });

    // The engine's pairs: the message arrows across workers (read off the 16-byte table once
    // the 32-byte arrows are gone, when there is one), the trackless pairs and the flows' s → f.
    auto engines = [](uint32_t from, uint32_t to, MessageLink::Kind kind) {
        return kind == MessageLink::Message && from != to;
    };
    if (links) {
        *links = tableOf(all, n);
        buffer.release();
        if (out) {
            size_t want = extraPairs.size();
            for (const LinkTable::Group &g : links->groups())
                if (engines(g.fromWorker, g.toWorker, g.kind))
                    want += g.end - g.begin;
            out->clear();
            out->reserve(want);
            for (const LinkTable::Group &g : links->groups())
                if (engines(g.fromWorker, g.toWorker, g.kind))
                    for (size_t i = g.begin; i < g.end; ++i)
                        out->push_back({int(g.fromWorker), links->ends(i).fromLocal,
                                        int(g.toWorker), links->ends(i).toLocal});
        }
    } else if (out) {
        size_t want = extraPairs.size();
        for (size_t i = 0; i < n; ++i)
            want += engines(all[i].fromWorker, all[i].toWorker, MessageLink::Kind(all[i].kind));
        out->clear();
        out->reserve(want);
        for (size_t i = 0; i < n; ++i)
            if (engines(all[i].fromWorker, all[i].toWorker, MessageLink::Kind(all[i].kind)))
                out->push_back({int(all[i].fromWorker), all[i].fromLocal, int(all[i].toWorker),
                                all[i].toLocal});
        buffer.release();
    }
    if (out) {
        out->insert(out->end(), extraPairs.begin(), extraPairs.end());
        sortPairs(*out, tl.workers.size());
    }
}

} // namespace syncline::load
