#include "timeline/load/clockcorrector.h"

#include "timeline/load/workeradmission.h"
#include "timeline/model/collectiveinstances.h"
#include "timeline/model/generation.h"

#include "recorder/globpattern.h"
#include "sync/radixsort.h"
#include "sync/syncengine.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace syncline::load {

namespace {

sync::ClockMap shifted(const sync::ClockMap &map, int64_t shift)
{
    if (map.segments().empty())
        return sync::ClockMap::offset(shift);
    std::vector<sync::ClockSegment> segs = map.segments();
    for (auto &s : segs)
        s.globalStart += shift;
    return sync::ClockMap(std::move(segs));
}

void addCollectives(const Timeline &tl, EventKindLookup &kinds, const std::string &alignOn,
                    std::vector<sync::CollectiveInstance> &out)
{
    // The k-th instance pairs only within one generation (an elastic restart or membership
    // change counts again from 0): the generation goes in the sequence's high bits.
    const std::vector<int64_t> generation = Generation::number(tl);
    std::vector<int8_t> isColl(tl.names.size(), -1);
    auto collective = [&](uint32_t id) {
        if (isColl[id] < 0)
            isColl[id] = int8_t(ClockCorrector::isCollective(tl, kinds, alignOn, id));
        return isColl[id] == 1;
    };
    for (size_t w = 0; w < tl.workers.size(); ++w)
        for (const CollectiveEvent &c : CollectiveInstances::of(tl, w, generation[w], collective))
            out.push_back({int(w), c.sequence, c.nameId, c.localBegin, c.localEnd});
}

// Runs fn(i) for i in [0, n) on the available cores (at most one thread per item).
void parallelFor(size_t n, const std::function<void(size_t)> &fn)
{
    const size_t threads =
        std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(n, 1));
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < n; i = next++)
            fn(i);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
}

// Moves every item into its bucket's range [start[b], start[b + 1]) in place (one pass of an
// MSD radix sort: each item is swapped at most once into its place), no second array.
template <typename T, typename BucketOf>
void inPlaceBuckets(std::vector<T> &items, const std::vector<size_t> &start, BucketOf bucketOf)
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
    inPlaceBuckets(pairs, start, bucketOf);
    std::vector<sync::MessagePair> &sorted = pairs;
    parallelFor(workers + 1, [&](size_t w) {
        std::sort(sorted.begin() + ptrdiff_t(start[w]), sorted.begin() + ptrdiff_t(start[w + 1]),
                  lessPair);
    });
}

// Message pairing by id: for each id, the last send and the last receive (in worker, then file
// order) make a pair. Every record becomes one 32-byte key, written in one sequential pass over
// each worker's records (the workers split between the cores): the id itself when it has at
// most 15 bytes (its bytes and length — exact, so such keys never read the log's id bytes
// again), else its hash and length (those keys are compared by their bytes where they meet),
// with the local time, the worker, the record's index and direction. The keys go straight to
// their bucket (by a mix of the id words; ~4,096 keys a bucket, so it sorts in cache) in one
// array; each bucket is sorted on integers and its arrows written over its own front (an
// arrow takes two keys' records, so it never overwrites a key not yet read), the buckets in
// parallel — no heap node and no random access per record. When the caller hands the records
// over, each worker's are freed as soon as its keys are made (unless it has a long id) and the
// freed memory returned, so the keys replace the records instead of adding to them.
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

// The links of a job, sorted by MessageLink::lessByPair: bucketed by sending worker in place,
// each worker's links sorted on their own, the workers in parallel.
void sortLinks(std::vector<MessageLink> &links, size_t workers)
{
    uint32_t top = 0;
    for (const MessageLink &l : links)
        top = std::max(top, l.fromWorker);
    const size_t n = std::max<size_t>(workers, size_t(top) + 1);
    std::vector<size_t> start(n + 1, 0);
    for (const MessageLink &l : links)
        ++start[l.fromWorker + 1];
    for (size_t w = 0; w < n; ++w)
        start[w + 1] += start[w];
    inPlaceBuckets(links, start, [](const MessageLink &l) { return size_t(l.fromWorker); });
    parallelFor(n, [&](size_t w) {
        std::sort(links.begin() + ptrdiff_t(start[w]), links.begin() + ptrdiff_t(start[w + 1]),
                  MessageLink::lessByPair);
    });
}

// `consumable`, when given, is `messages` itself, handed over (see above).
void addMessages(const Timeline &tl, const std::vector<MessageLog> &messages,
                 std::vector<MessageLog> *consumable, std::vector<sync::MessagePair> *out,
                 std::vector<MessageLink> *links)
{
    size_t total = 0, recordBytes = 0;
    for (const MessageLog &m : messages) {
        total += m.size();
        recordBytes += m.bytes();
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
    // Pass 1 counts the keys per (thread, bucket); pass 2 writes each thread's at its offsets.
    std::vector<std::vector<size_t>> at(threads, std::vector<size_t>(buckets + 1, 0));
    parallelFor(threads, [&](size_t t) {
        for (size_t w = firstWorker[t]; w < firstWorker[t + 1]; ++w)
            for (size_t i = 0; i < messages[w].size(); ++i)
                ++at[t][bucketOf(makeKey(w, i))];
    });
    std::vector<size_t> start(buckets + 1, 0);
    for (size_t b = 0, n = 0; b < buckets; ++b) {
        start[b] = n;
        for (size_t t = 0; t < threads; ++t) {
            const size_t c = at[t][b];
            at[t][b] = n;
            n += c;
        }
    }
    start[buckets] = total;
    // Not initialised: a page is touched only when its keys are written, as records are freed.
    std::unique_ptr<PairKey[]> keys = std::make_unique_for_overwrite<PairKey[]>(total);
    std::atomic<size_t> freedSinceTrim{0};
    parallelFor(threads, [&](size_t t) {
        std::vector<size_t> &next = at[t];
        for (size_t w = firstWorker[t]; w < firstWorker[t + 1]; ++w) {
            bool anyLong = false;
            for (size_t i = 0; i < messages[w].size(); ++i) {
                const PairKey k = makeKey(w, i);
                anyLong = anyLong || isLongId(k);
                keys[next[bucketOf(k)]++] = k;
            }
            if (consumable && !anyLong) {
                const size_t bytes = messages[w].bytes();
                (*consumable)[w].releaseRecords();
                if (freedSinceTrim += bytes; freedSinceTrim >= recordBytes / 4 + 1) {
                    freedSinceTrim = 0;
                    returnFreeMemory();
                }
            }
        }
    });
    std::vector<std::vector<size_t>>().swap(at);

    auto id = [&](const PairKey &k) { return messages[k.worker()].id(k.index); };
    auto hasTrack = [&](uint32_t w, uint32_t t) {
        return w < tl.workers.size() && t < tl.workers[w].tracks.size();
    };
    // Per bucket: its arrows over its front, and the engine's pairs whose ends have no track
    // (no arrow; the engine's other pairs are read off the arrows below).
    std::vector<size_t> linksIn(buckets, 0);
    std::vector<std::vector<sync::MessagePair>> trackless(buckets);
    // A bucket's keys lie in (worker, index) order (each thread wrote its workers' keys in
    // order, the threads' ranges one after the other): the last send and the last receive of an
    // id are its last ones in the bucket. An open-addressing table by the id's words (long ids:
    // and their bytes) holds each id's two positions; one table per thread, reused bucket after
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
            PairKey *const first = keys.get() + start[b];
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
                    (k.send() ? sl.send : sl.recv) = int32_t(p);
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
    // The arrows in one vector, grouped by sending worker (a counting scatter: each thread its
    // range of buckets, the flows' arrows with the last), then each worker's sorted by
    // MessageLink::lessByPair, the workers in parallel.
    uint32_t top = uint32_t(tl.workers.size());
    for (const MessageLink &l : flowLinks)
        top = std::max(top, l.fromWorker + 1);
    const size_t senders = std::max<size_t>(top, messages.size());
    std::vector<size_t> firstBucket(threads + 1, buckets);
    for (size_t t = 0; t < threads; ++t)
        firstBucket[t] = buckets * t / threads;
    auto eachLink = [&](size_t t, auto &&fn) {
        for (size_t b = firstBucket[t]; b < firstBucket[t + 1]; ++b)
            for (size_t i = 0; i < linksIn[b]; ++i) {
                MessageLink l;
                std::memcpy(&l, static_cast<const void *>(keys.get() + start[b] + i), sizeof l);
                fn(l);
            }
        if (t + 1 == threads)
            for (const MessageLink &l : flowLinks)
                fn(l);
    };
    std::vector<std::vector<size_t>> place(threads, std::vector<size_t>(senders, 0));
    parallelFor(threads, [&](size_t t) {
        eachLink(t, [&](const MessageLink &l) { ++place[t][l.fromWorker]; });
    });
    std::vector<size_t> senderStart(senders + 1, 0);
    for (size_t w = 0, n = 0; w < senders; ++w) {
        senderStart[w] = n;
        for (size_t t = 0; t < threads; ++t) {
            const size_t c = place[t][w];
            place[t][w] = n;
            n += c;
        }
        senderStart[w + 1] = n;
    }
    std::vector<MessageLink> all(senderStart[senders]);
    parallelFor(threads, [&](size_t t) {
        eachLink(t, [&](const MessageLink &l) { all[place[t][l.fromWorker]++] = l; });
    });
    std::vector<std::vector<size_t>>().swap(place);
    std::vector<MessageLink>().swap(flowLinks);
    keys.reset();
    // Per sender, in parallel: its arrows sorted in the engine's pair order (send time, receive
    // worker, receive time; then tracks and kind, a total order), the engine's pairs copied off
    // them (the message arrows across workers), then the arrows regrouped stably by (send
    // track, receive worker, receive track) — which is MessageLink::lessByPair, with one sort.
    auto engines = [](const MessageLink &l) {
        return l.kind == MessageLink::Message && l.fromWorker != l.toWorker;
    };
    std::vector<size_t> pairStart(senders + 1, 0);
    const size_t base = out ? out->size() : 0;
    const bool wasEmpty = !out || out->empty();
    if (out) {
        parallelFor(senders, [&](size_t w) {
            pairStart[w + 1] =
                size_t(std::count_if(all.begin() + ptrdiff_t(senderStart[w]),
                                     all.begin() + ptrdiff_t(senderStart[w + 1]), engines));
        });
        for (size_t w = 0; w < senders; ++w)
            pairStart[w + 1] += pairStart[w];
        out->resize(base + pairStart[senders]);
    }
    parallelFor(senders, [&](size_t w) {
        const auto from = all.begin() + ptrdiff_t(senderStart[w]),
                   to = all.begin() + ptrdiff_t(senderStart[w + 1]);
        // By send time (radix), then each run of equal send times by the rest.
        auto pairOrder = [](const MessageLink &a, const MessageLink &b) {
            return std::make_tuple(a.fromLocal, a.toWorker, a.toLocal, a.fromTrack,
                                   uint32_t(a.toTrack), int(a.kind)) <
                   std::make_tuple(b.fromLocal, b.toWorker, b.toLocal, b.fromTrack,
                                   uint32_t(b.toTrack), int(b.kind));
        };
        sync::radixSort(from, to, [](const MessageLink &l) {
            return uint64_t(l.fromLocal) ^ (uint64_t(1) << 63);
        });
        for (auto r = from; r != to;) {
            auto e = r + 1;
            while (e != to && e->fromLocal == r->fromLocal)
                ++e;
            if (e - r > 1)
                std::sort(r, e, pairOrder);
            r = e;
        }
        if (out) {
            auto o = out->begin() + ptrdiff_t(base + pairStart[w]);
            for (auto l = from; l != to; ++l)
                if (engines(*l))
                    *o++ = {int(l->fromWorker), l->fromLocal, int(l->toWorker), l->toLocal};
        }
        using Group = std::tuple<uint32_t, uint32_t, uint32_t>;
        auto groupOf = [](const MessageLink &l) {
            return Group(l.fromTrack, l.toWorker, uint32_t(l.toTrack));
        };
        std::vector<Group> groups;
        for (auto l = from; l != to; ++l)
            if (groups.empty() || groups.back() != groupOf(*l))
                groups.push_back(groupOf(*l));
        std::sort(groups.begin(), groups.end());
        groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
        if (groups.size() <= 1)
            return;
        auto indexOf = [&](const MessageLink &l) {
            return size_t(std::lower_bound(groups.begin(), groups.end(), groupOf(l)) -
                          groups.begin());
        };
        std::vector<size_t> at(groups.size() + 1, 0);
        for (auto l = from; l != to; ++l)
            ++at[indexOf(*l) + 1];
        for (size_t g = 0; g + 1 < at.size(); ++g)
            at[g + 1] += at[g];
        std::vector<MessageLink> regrouped(size_t(to - from));
        for (auto l = from; l != to; ++l)
            regrouped[at[indexOf(*l)]++] = *l;
        std::copy(regrouped.begin(), regrouped.end(), from);
    });
    if (out) {
        // Then the trackless pairs and the flows' s → f arrows (only then is the whole sorted).
        out->insert(out->end(), extraPairs.begin(), extraPairs.end());
        if (!wasEmpty || !extraPairs.empty())
            sortPairs(*out, tl.workers.size());
    }
    if (links) {
        if (links->empty()) {
            links->swap(all);
        } else {
            links->insert(links->end(), all.begin(), all.end());
            sortLinks(*links, tl.workers.size());
        }
    }
}

void addWorkers(const Timeline &tl, std::vector<sync::WorkerClockInput> &out)
{
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        const Worker &w = tl.workers[i];
        sync::WorkerClockInput wi;
        wi.workerId = int(i);
        wi.rank = w.info.rank;
        wi.host = w.info.host;
        wi.bootId = w.info.bootId;
        wi.clockSource = w.info.clockSource;
        wi.refId = w.refId;
        wi.samples = w.samples;
        wi.firstLocalNs = w.info.firstLocalNs;
        wi.lastLocalNs = w.info.lastLocalNs;
        out.push_back(std::move(wi));
    }
}

// The shift E that puts the engine's scale on the wall-clock epoch (see header): raw − engine
// at the first local time of the first corrected worker; nullopt when no worker was corrected.
std::optional<int64_t> referenceShift(const Timeline &tl, const sync::SyncEngineResult &res)
{
    for (const sync::WorkerClockResult &r : res.workers) {
        if (r.method == sync::ClockMethod::None)
            continue;
        const Worker &w = tl.workers[size_t(r.workerId)];
        const int64_t x = w.info.firstLocalNs;
        return w.raw.toGlobal(x) - r.map.toGlobal(x);
    }
    return std::nullopt;
}

// The worker's corrected map and clock summary become its raw wall-clock mapping.
void keepRawClock(Worker &w)
{
    w.corrected = w.raw;
    w.clock.offsetNs = w.raw.toGlobal(w.info.firstLocalNs) - w.info.firstLocalNs;
}

// Each worker's engine result, shifted by `shift`; workers the engine could not correct (or
// all of them when there is no shift) keep the raw wall-clock mapping, with a note.
void storeResults(Timeline &tl, const sync::SyncEngineResult &res, std::optional<int64_t> shift)
{
    for (const sync::WorkerClockResult &r : res.workers) {
        Worker &w = tl.workers[size_t(r.workerId)];
        w.clock = r;
        w.clock.map = sync::ClockMap(); // the map lives in w.corrected (shifted), not twice
        if (r.method == sync::ClockMethod::None || !shift) {
            keepRawClock(w);
            tl.clockNotes.push_back(
                "rank " + std::to_string(w.info.rank) +
                ": not corrected (no sync samples, and no usable collectives to align on); "
                "corrected view uses the raw wall-clock mapping");
            continue;
        }
        w.corrected = shifted(r.map, *shift);
        w.clock.offsetNs = w.corrected.toGlobal(w.info.firstLocalNs) - w.info.firstLocalNs;
    }
}

} // namespace

bool ClockCorrector::isCollective(const Timeline &tl, EventKindLookup &kinds,
                                  const std::string &alignOn, uint32_t nameId)
{
    return (!alignOn.empty() && matchesAlignPattern(alignOn, tl.names.name(nameId))) ||
           kinds.isCollective(tl.names, nameId);
}

void ClockCorrector::markCollectives(Timeline &tl, EventKindLookup &kinds,
                                     const std::string &alignOn)
{
    kinds.describe(tl);
    for (uint32_t id = 0; id < tl.kinds.size(); ++id)
        tl.kinds[id].collective = isCollective(tl, kinds, alignOn, id);
}

bool ClockCorrector::matchesAlignPattern(const std::string &pattern, std::string_view name)
{
    if (rec::GlobPattern::hasWildcards(pattern))
        return rec::GlobPattern::match(pattern, name);
    return name.find(pattern) != std::string_view::npos;
}

void ClockCorrector::apply(Timeline &tl, const std::vector<MessageLog> &messages,
                           EventKindLookup &kinds, const Options &options)
{
    apply(tl, messages, kinds, options, std::nullopt, nullptr);
}

std::vector<sync::MessagePair> ClockCorrector::pairMessages(const Timeline &tl,
                                                            const std::vector<MessageLog> &messages,
                                                            LinkTable *links)
{
    std::vector<sync::MessagePair> out;
    std::vector<MessageLink> made;
    addMessages(tl, messages, nullptr, &out, links ? &made : nullptr);
    if (links)
        *links = LinkTable(std::move(made)); // 16 bytes a link from here on
    return out;
}

std::vector<sync::MessagePair> ClockCorrector::pairMessages(const Timeline &tl,
                                                            std::vector<MessageLog> &&messages,
                                                            LinkTable *links)
{
    std::vector<MessageLog> mine = std::move(messages);
    std::vector<sync::MessagePair> out;
    std::vector<MessageLink> made;
    addMessages(tl, mine, &mine, &out, links ? &made : nullptr);
    if (links)
        *links = LinkTable(std::move(made));
    return out;
}

LinkTable ClockCorrector::links(const Timeline &tl, const std::vector<MessageLog> &messages)
{
    std::vector<MessageLink> out;
    addMessages(tl, messages, nullptr, nullptr, &out);
    return LinkTable(std::move(out));
}

void ClockCorrector::apply(Timeline &tl, const std::vector<MessageLog> &messages,
                           EventKindLookup &kinds, const Options &options,
                           const std::optional<int64_t> &fixedShift, int64_t *shiftOut)
{
    apply(tl, options.correct ? pairMessages(tl, messages) : std::vector<sync::MessagePair>(),
          kinds, options, fixedShift, shiftOut);
}

void ClockCorrector::apply(Timeline &tl, std::vector<sync::MessagePair> messagePairs,
                           EventKindLookup &kinds, const Options &options,
                           const std::optional<int64_t> &fixedShift, int64_t *shiftOut)
{
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        Worker &w = tl.workers[i];
        w.raw = WorkerAdmission::rawClock(w.info);
        w.clock = sync::WorkerClockResult();
        w.clock.workerId = int(i);
        keepRawClock(w); // until the engine's result replaces it (and for good without one)
    }
    if (tl.workers.empty())
        return;
    if (!options.correct) {
        tl.clockNotes.push_back(
            "clock correction disabled: corrected = raw (wall-clock anchor) for every worker");
        tl.updateRange();
        return;
    }
    sync::SyncEngineInput in;
    addWorkers(tl, in.workers);
    addCollectives(tl, kinds, options.alignOn, in.collectives);
    in.messages = std::move(messagePairs);
    const sync::SyncEngineResult res = sync::runSyncEngine(in);
    tl.causality = res.causality;
    tl.clockNotes.insert(tl.clockNotes.end(), res.notes.begin(), res.notes.end());

    std::optional<int64_t> shift = referenceShift(tl, res);
    if (shift && fixedShift)
        shift = *fixedShift;
    if (shift && shiftOut)
        *shiftOut = *shift;
    tl.referenceShiftNs = shift.value_or(0);
    storeResults(tl, res, shift);
    tl.updateRange();
}

} // namespace syncline::load
