#include "timeline/load/clockcorrector.h"

#include "timeline/load/workeradmission.h"
#include "timeline/model/collectiveinstances.h"
#include "timeline/model/generation.h"

#include "recorder/globpattern.h"
#include "sync/syncengine.h"

#include <algorithm>
#include <map>
#include <optional>

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

void addMessages(const Timeline &tl, const std::vector<MessageLog> &messages,
                 std::vector<sync::MessagePair> *out, std::vector<MessageLink> *links)
{
    struct Key
    {
        uint64_t hash;
        uint32_t worker;
        uint32_t index;
    };
    size_t total = 0;
    for (const MessageLog &m : messages)
        total += m.size();
    std::vector<Key> keys;
    keys.reserve(total);
    for (size_t w = 0; w < messages.size(); ++w)
        for (size_t i = 0; i < messages[w].size(); ++i)
            keys.push_back(
                {std::hash<std::string_view>()(messages[w].id(i)), uint32_t(w), uint32_t(i)});
    auto id = [&](const Key &k) { return messages[k.worker].id(k.index); };
    std::sort(keys.begin(), keys.end(), [&](const Key &a, const Key &b) {
        if (a.hash != b.hash)
            return a.hash < b.hash;
        if (const int c = id(a).compare(id(b)); c != 0)
            return c < 0;
        return std::tie(a.worker, a.index) < std::tie(b.worker, b.index);
    });
    if (out)
        out->reserve(out->size() + total / 2); // at most one pair per send
    if (links)
        links->reserve(links->size() + total / 2 + tl.flows.size());
    auto hasTrack = [&](uint32_t w, uint32_t t) {
        return w < tl.workers.size() && t < tl.workers[w].tracks.size();
    };
    for (size_t g = 0; g < keys.size();) {
        size_t end = g + 1;
        while (end < keys.size() && keys[end].hash == keys[g].hash && id(keys[end]) == id(keys[g]))
            ++end;
        const Key *send = nullptr, *recv = nullptr;
        for (size_t k = g; k < end; ++k)
            (messages[keys[k].worker].send(keys[k].index) ? send : recv) = &keys[k];
        if (send && recv) {
            const MessageLog &sm = messages[send->worker], &rm = messages[recv->worker];
            if (out && send->worker != recv->worker)
                out->push_back({int(send->worker), sm[send->index].localNs, int(recv->worker),
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
                links->push_back(l);
            }
        }
        g = end;
    }
    std::vector<Key>().swap(keys);
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
    if (links)
        std::sort(links->begin(), links->end(), MessageLink::lessByPair);
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
                                                            std::vector<MessageLink> *links)
{
    std::vector<sync::MessagePair> out;
    addMessages(tl, messages, &out, links);
    // A deterministic order that does not depend on the ids' hashes.
    std::sort(out.begin(), out.end(), [](const sync::MessagePair &a, const sync::MessagePair &b) {
        return std::tie(a.sendWorker, a.sendLocal, a.recvWorker, a.recvLocal) <
               std::tie(b.sendWorker, b.sendLocal, b.recvWorker, b.recvLocal);
    });
    return out;
}

std::vector<MessageLink> ClockCorrector::links(const Timeline &tl,
                                               const std::vector<MessageLog> &messages)
{
    std::vector<MessageLink> out;
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
