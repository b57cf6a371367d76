#include "timeline/load/clockcorrector.h"

#include "timeline/load/workeradmission.h"
#include "timeline/model/collectiveinstances.h"
#include "timeline/model/generation.h"

#include "recorder/globpattern.h"
#include "sync/syncengine.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <thread>

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

void addMessages(const Timeline &tl, const std::vector<MessageLog> &messages,
                 std::vector<sync::MessagePair> *out, LinkTable *linkTable)
{
    // (the flows below are appended after the msg pairs, then everything is sorted)
    std::vector<MessageLink> made, *links = linkTable ? &made : nullptr;
    // Pairs by id: for each id, the last send and the last receive (in worker, then file
    // order) make a pair when they lie on different workers. 16-byte keys (id hash, worker,
    // record) are bucketed by the hash's top byte and each bucket sorted by integers only, the
    // buckets in parallel; ids are compared only inside a run of equal hashes — once per
    // record, not once per comparison (the string compares of a sort by id were a third of the
    // correction stage with ~1,000 messages per second per worker).
    struct Key
    {
        uint64_t hash;
        uint32_t worker;
        uint32_t index;
    };
    size_t total = 0;
    for (const MessageLog &m : messages)
        total += m.size();
    constexpr size_t kBuckets = 256;
    auto bucketOf = [](uint64_t h) { return size_t(h >> 56); };
    std::vector<Key> keys;
    keys.reserve(total);
    std::vector<size_t> bucketStart(kBuckets + 1, 0);
    for (size_t w = 0; w < messages.size(); ++w)
        for (size_t i = 0; i < messages[w].size(); ++i) {
            keys.push_back(
                {std::hash<std::string_view>()(messages[w].id(i)), uint32_t(w), uint32_t(i)});
            ++bucketStart[bucketOf(keys.back().hash) + 1];
        }
    for (size_t b = 0; b < kBuckets; ++b)
        bucketStart[b + 1] += bucketStart[b];
    inPlaceBuckets(keys, bucketStart, [&](const Key &k) { return bucketOf(k.hash); });
    auto id = [&](const Key &k) { return messages[k.worker].id(k.index); };
    auto hasTrack = [&](uint32_t w, uint32_t t) {
        return w < tl.workers.size() && t < tl.workers[w].tracks.size();
    };
    std::vector<std::vector<sync::MessagePair>> found(kBuckets);
    std::vector<std::vector<MessageLink>> foundLinks(kBuckets);
    parallelFor(kBuckets, [&](size_t b) {
        const auto first = keys.begin() + ptrdiff_t(bucketStart[b]);
        const auto last = keys.begin() + ptrdiff_t(bucketStart[b + 1]);
        std::sort(first, last, [](const Key &a, const Key &c) {
            return std::tie(a.hash, a.worker, a.index) < std::tie(c.hash, c.worker, c.index);
        });
        std::vector<sync::MessagePair> &mine = found[b];
        std::vector<MessageLink> &myLinks = foundLinks[b];
        auto emit = [&](auto from, auto to) { // one id's records, in (worker, index) order
            const Key *send = nullptr, *recv = nullptr;
            for (auto k = from; k != to; ++k)
                (messages[k->worker].send(k->index) ? send : recv) = &*k;
            if (!send || !recv)
                return;
            const MessageLog &sm = messages[send->worker], &rm = messages[recv->worker];
            if (out && send->worker != recv->worker)
                mine.push_back({int(send->worker), sm[send->index].localNs, int(recv->worker),
                                rm[recv->index].localNs});
            const uint32_t st = sm.track(send->index), rt = rm.track(recv->index);
            if (links && hasTrack(send->worker, st) && hasTrack(recv->worker, rt)) {
                MessageLink l;
                l.fromLocal = sm[send->index].localNs;
                l.toLocal = rm[recv->index].localNs;
                l.fromWorker = send->worker;
                l.toWorker = recv->worker;
                l.fromTrack = st;
                l.toTrack = rt;
                l.kind = MessageLink::Message;
                myLinks.push_back(l);
            }
        };
        for (auto g = first; g != last;) {
            auto end = g + 1;
            bool oneId = true;
            while (end != last && end->hash == g->hash) {
                oneId = oneId && id(*end) == id(*g);
                ++end;
            }
            if (!oneId) // a hash collision: order the run by id, then (worker, index)
                std::sort(g, end, [&](const Key &a, const Key &c) {
                    if (const int cmp = id(a).compare(id(c)); cmp != 0)
                        return cmp < 0;
                    return std::tie(a.worker, a.index) < std::tie(c.worker, c.index);
                });
            for (auto r = g; r != end;) {
                auto idEnd = r + 1;
                while (idEnd != end && (oneId || id(*idEnd) == id(*r)))
                    ++idEnd;
                emit(r, idEnd);
                r = idEnd;
            }
            g = end;
        }
    });
    std::vector<Key>().swap(keys);
    size_t pairs = 0, linkCount = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
        pairs += found[b].size();
        linkCount += foundLinks[b].size();
    }
    if (out)
        out->reserve(out->size() + pairs);
    if (links)
        links->reserve(links->size() + linkCount + tl.flows.size());
    for (size_t b = 0; b < kBuckets; ++b) {
        if (out)
            out->insert(out->end(), found[b].begin(), found[b].end());
        if (links)
            links->insert(links->end(), foundLinks[b].begin(), foundLinks[b].end());
        std::vector<sync::MessagePair>().swap(found[b]);
        std::vector<MessageLink>().swap(foundLinks[b]);
    }
    // Chrome flows: the engine takes arrows s → f across workers; the links every step of a
    // flow (s → t → … → f, consecutive points of one id).
    for (size_t i = 0; i + 1 < tl.flows.size(); ++i) {
        const FlowPoint &a = tl.flows[i], &b = tl.flows[i + 1];
        if (a.id != b.id)
            continue;
        if (out && a.phase == 's' && b.phase == 'f' && a.worker != b.worker)
            out->push_back({int(a.worker), a.localNs, int(b.worker), b.localNs});
        if (links && a.phase != 'f' && b.phase != 's' && hasTrack(a.worker, a.track) &&
            hasTrack(b.worker, b.track)) {
            MessageLink l;
            l.fromLocal = a.localNs;
            l.toLocal = b.localNs;
            l.fromWorker = a.worker;
            l.toWorker = b.worker;
            l.fromTrack = a.track;
            l.toTrack = b.track;
            l.kind = MessageLink::Flow;
            links->push_back(l);
        }
    }
    if (linkTable)
        *linkTable = LinkTable(std::move(made)); // sorted (lessByPair) and grouped there
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
                  [](const sync::MessagePair &a, const sync::MessagePair &b) {
                      return std::tie(a.sendWorker, a.sendLocal, a.recvWorker, a.recvLocal) <
                             std::tie(b.sendWorker, b.sendLocal, b.recvWorker, b.recvLocal);
                  });
    });
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
    addMessages(tl, messages, &out, links);
    // A deterministic order that does not depend on the ids' hashes.
    sortPairs(out, tl.workers.size());
    return out;
}

LinkTable ClockCorrector::links(const Timeline &tl, const std::vector<MessageLog> &messages)
{
    LinkTable out;
    addMessages(tl, messages, nullptr, &out);
    return out;
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
