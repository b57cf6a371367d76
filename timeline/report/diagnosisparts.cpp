#include "timeline/report/diagnosisparts.h"

#include "timeline/model/collectiveinstances.h"
#include "timeline/model/collectivenames.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/partcodec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace syncline {

namespace {

constexpr PartMagic kMagic = {'S', 'Y', 'N', 'D', 'G', 'P', 'T', '1'};

bool complete(const EventTrack &t, size_t i)
{
    return !(t.flags[i] & (EventOpen | EventInstant));
}

// The kept events of one track (ascending indices), ancestor-closed.
std::vector<uint8_t> keptEvents(const EventTrack &t, const std::vector<int> &keyOf,
                                const std::vector<uint8_t> &candidate,
                                const std::vector<uint8_t> &collective)
{
    const size_t n = t.count();
    std::vector<uint8_t> keep(n, 0);
    if (n == 0)
        return keep;
    std::set<int> depths; // every event at these depths is kept
    std::unordered_map<int, int> minDepth; // candidate key → its shallowest complete event
    for (size_t i = 0; i < n; ++i) {
        if (!complete(t, i))
            continue;
        const uint32_t id = t.nameId[i];
        if (collective[id]) {
            keep[i] = 1;
            depths.insert(t.depth[i]);
        }
        if (!t.async && candidate[size_t(keyOf[id])]) {
            keep[i] = 1;
            auto [it, added] = minDepth.try_emplace(keyOf[id], t.depth[i]);
            if (!added)
                it->second = std::min(it->second, int(t.depth[i]));
        }
    }
    for (const auto &[key, depth] : minDepth)
        depths.insert(depth + 1);
    keep[0] = 1;
    for (size_t i = 0; i < n; ++i)
        if (depths.count(t.depth[i]))
            keep[i] = 1;
    for (size_t i = n; i-- > 0;) // parents come first: one pass from the end closes it
        if (keep[i] && t.parent[i] >= 0)
            keep[size_t(t.parent[i])] = 1;
    return keep;
}

// Whether a collective's args say anything CollectiveInstances reads (a process group and
// sequence number, or `failed`): other args are left out (an event without them is keyed and
// judged the same).
bool instanceArgs(std::string_view json)
{
    std::string group;
    int64_t sequence = 0;
    return CollectiveInstances::groupAndSequence(json, group, sequence) || argsSayFailed(json);
}

// A clock map as the diagnosis uses it: the segments' mapping only (their bounds, bands and
// flags are the viewer's; the worker's bound travels in its clock summary).
void writeMap(PartWriter &o, const sync::ClockMap &m)
{
    o.varint(m.segments().size());
    for (const sync::ClockSegment &s : m.segments()) {
        o.svarint(s.localStart);
        o.svarint(s.globalStart);
        o.f64(s.slope);
    }
}

bool readMap(PartReader &in, sync::ClockMap &m)
{
    std::vector<sync::ClockSegment> segs(in.count());
    for (sync::ClockSegment &s : segs) {
        s.localStart = in.svarint();
        s.globalStart = in.svarint();
        s.slope = in.f64();
        if (!in.ok || !std::isfinite(s.slope) || s.slope <= 0)
            return false;
    }
    m = segs.empty() ? sync::ClockMap() : sync::ClockMap(std::move(segs));
    return true;
}

} // namespace

DiagnosisPart DiagnosisPart::of(const Timeline &tl, size_t w, std::string_view stepName)
{
    DiagnosisPart p;
    const Worker &src = tl.workers[w];
    const size_t N = tl.names.size();
    for (uint32_t id = 0; id < N; ++id)
        p.names.emplace_back(tl.names.name(id));
    // Per name: its step key, and whether it can be a collective (either recognition mode).
    std::unordered_map<std::string_view, int> keyIds;
    std::vector<int> keyOf(N);
    std::vector<uint8_t> collective(N, 0);
    for (uint32_t id = 0; id < N; ++id) {
        keyOf[id] = keyIds.try_emplace(Diagnoser::stepKey(tl.names.name(id)), int(keyIds.size()))
                        .first->second;
        const NameKind *k = tl.kindOf(id);
        collective[id] = (k && k->collective) ||
                         CollectiveNames::classify(tl.names.name(id)) != CollectiveNames::Kind::None;
    }
    // The step candidates: the query's key, the config's step kind, keys outermost here.
    std::vector<uint8_t> candidate(keyIds.size(), 0);
    if (!stepName.empty())
        if (auto it = keyIds.find(Diagnoser::stepKey(stepName)); it != keyIds.end())
            candidate[size_t(it->second)] = 1;
    for (uint32_t id = 0; id < N; ++id)
        if (const NameKind *k = tl.kindOf(id); k && k->category == "step")
            candidate[size_t(keyOf[id])] = 1;
    for (const EventTrack &t : src.tracks)
        for (size_t i = 0; i < t.count() && !t.async; ++i)
            if (t.depth[i] == 0 && complete(t, i))
                candidate[size_t(keyOf[t.nameId[i]])] = 1;
    std::vector<uint8_t> partial(N, 0);
    p.worker.info.rank = src.info.rank;
    p.worker.info.restart = src.info.restart;
    p.worker.info.worldSize = src.info.worldSize;
    p.worker.info.runId = src.info.runId;
    p.worker.info.kind = src.info.kind;
    p.worker.info.closedCleanly = src.info.closedCleanly;
    p.worker.info.lastLocalNs = src.info.lastLocalNs;
    p.worker.clock.method = src.clock.method;
    p.worker.clock.boundNs = src.clock.boundNs;
    p.worker.clock.assumedBoundNs = src.clock.assumedBoundNs;
    p.worker.corrected = src.corrected;
    p.worker.raw = src.raw;
    std::unordered_map<uint32_t, uint32_t> argIds; // the timeline's → the part's
    for (const EventTrack &t : src.tracks) {
        const std::vector<uint8_t> keep = keptEvents(t, keyOf, candidate, collective);
        EventTrack &out = p.worker.tracks.emplace_back();
        out.tid = t.tid;
        out.pid = t.pid;
        out.async = t.async;
        out.order = t.order;
        std::vector<int32_t> index(t.count(), -1);
        for (size_t i = 0; i < t.count(); ++i) {
            const uint32_t id = t.nameId[i];
            if (!t.async && complete(t, i) && !candidate[size_t(keyOf[id])])
                partial[id] = 1;
            if (!keep[i])
                continue;
            const uint32_t j = uint32_t(out.count());
            index[i] = int32_t(j);
            out.localStart.push_back(t.localStart[i]);
            out.localEnd.push_back(t.localEnd[i]);
            out.nameId.push_back(id);
            out.depth.push_back(t.depth[i]);
            out.parent.push_back(t.parent[i] >= 0 ? index[size_t(t.parent[i])] : -1);
            uint16_t flags = t.flags[i] & uint16_t(~EventHasArgs);
            const int64_t args = (t.flags[i] & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
            if (collective[id] && args >= 0 && size_t(args) < tl.args.size() &&
                instanceArgs(tl.args.text(uint32_t(args)))) {
                auto [it, added] = argIds.try_emplace(uint32_t(args), uint32_t(p.args.size()));
                if (added)
                    p.args.emplace_back(tl.args.text(uint32_t(args)));
                out.argRefs.emplace_back(j, it->second);
                flags |= EventHasArgs;
            }
            out.flags.push_back(flags);
            out.maxDepth = std::max(out.maxDepth, int(t.depth[i]));
        }
    }
    for (uint32_t id = 0; id < N; ++id)
        if (partial[id])
            p.partial.push_back(id);
    return p;
}

std::string DiagnosisPart::encode() const
{
    PartWriter o(kMagic);
    const WorkerInfo &i = worker.info;
    o.svarint(i.rank);
    o.svarint(i.restart);
    o.svarint(i.worldSize);
    o.str(i.runId);
    o.varint(i.kind == SourceKind::ChromeTrace ? 1 : 0);
    o.varint(i.closedCleanly ? 1 : 0);
    o.svarint(i.lastLocalNs);
    o.varint(uint64_t(worker.clock.method));
    o.svarint(worker.clock.boundNs);
    o.svarint(worker.clock.assumedBoundNs);
    writeMap(o, worker.corrected);
    writeMap(o, worker.raw);
    o.varint(names.size());
    for (const std::string &n : names)
        o.str(n);
    o.varint(partial.size());
    uint32_t last = 0;
    for (uint32_t id : partial) { // ascending
        o.varint(id - last);
        last = id;
    }
    o.varint(args.size());
    for (const std::string &a : args)
        o.str(a);
    o.varint(worker.tracks.size());
    for (const EventTrack &t : worker.tracks) {
        o.svarint(t.tid);
        o.svarint(t.pid);
        o.svarint(t.order);
        o.varint(t.async ? 1 : 0);
        o.varint(t.count());
        int64_t start = 0;
        size_t ref = 0;
        for (size_t e = 0; e < t.count(); ++e) {
            o.svarint(t.localStart[e] - start); // sorted: small and never negative
            start = t.localStart[e];
            o.svarint(t.localEnd[e] - t.localStart[e]);
            o.varint(t.nameId[e]);
            o.varint(t.depth[e]);
            o.varint(t.flags[e]);
            if (t.flags[e] & EventHasArgs) {
                while (ref < t.argRefs.size() && t.argRefs[ref].first < e)
                    ++ref;
                o.varint(ref < t.argRefs.size() && t.argRefs[ref].first == e
                             ? t.argRefs[ref].second
                             : uint32_t(args.size())); // never: of() pairs the flag with a ref
            }
        }
    }
    return o.bytes;
}

std::optional<DiagnosisPart> DiagnosisPart::decode(std::string_view bytes, std::string *why)
{
    PartReader in(bytes, kMagic);
    if (!in.hasMagic())
        return refused(why, "not a diagnose part (bad magic)");
    DiagnosisPart p;
    WorkerInfo &i = p.worker.info;
    i.rank = int(in.svarint());
    i.restart = int(in.svarint());
    i.worldSize = int(in.svarint());
    i.runId = in.str();
    i.kind = in.varint() ? SourceKind::ChromeTrace : SourceKind::SynclineLog;
    i.closedCleanly = in.varint() != 0;
    i.lastLocalNs = in.svarint();
    const uint64_t method = in.varint();
    if (method > uint64_t(sync::ClockMethod::Collectives))
        return refused(why, "a diagnose part with an unknown clock method");
    p.worker.clock.method = sync::ClockMethod(method);
    p.worker.clock.boundNs = in.svarint();
    p.worker.clock.assumedBoundNs = in.svarint();
    if (!readMap(in, p.worker.corrected) || !readMap(in, p.worker.raw))
        return refused(why, "truncated or damaged diagnose part (clock map)");
    p.names.resize(in.count());
    for (std::string &n : p.names)
        n = in.str();
    if (p.names.empty() || !p.names[0].empty())
        return refused(why, "truncated or damaged diagnose part (names)");
    p.partial.resize(in.count());
    uint64_t id = 0;
    for (uint32_t &x : p.partial) {
        id += in.varint();
        if (id >= p.names.size())
            return refused(why, "truncated or damaged diagnose part (names)");
        x = uint32_t(id);
    }
    p.args.resize(in.count());
    for (std::string &a : p.args)
        a = in.str();
    p.worker.tracks.resize(in.count());
    std::vector<int32_t> open; // per depth, the event open at it
    for (EventTrack &t : p.worker.tracks) {
        t.tid = in.svarint();
        t.pid = in.svarint();
        t.order = in.svarint();
        t.async = in.varint() != 0;
        const size_t n = in.count();
        t.reserve(n);
        int64_t start = 0;
        open.clear();
        for (size_t e = 0; e < n && in.ok; ++e) {
            const int64_t delta = in.svarint();
            const int64_t length = in.svarint();
            const uint64_t name = in.varint(), depth = in.varint(), flags = in.varint();
            if (delta < 0 || __builtin_add_overflow(start, delta, &start) || name >= p.names.size() ||
                depth > open.size() || flags > std::numeric_limits<uint16_t>::max())
                return refused(why, "truncated or damaged diagnose part (events)");
            int64_t end = 0;
            if (__builtin_add_overflow(start, length, &end))
                return refused(why, "truncated or damaged diagnose part (events)");
            if (flags & EventHasArgs) {
                const uint64_t a = in.varint();
                if (a >= p.args.size())
                    return refused(why, "truncated or damaged diagnose part (args)");
                t.argRefs.emplace_back(uint32_t(e), uint32_t(a));
            }
            open.resize(depth);
            t.localStart.push_back(start);
            t.localEnd.push_back(end);
            t.nameId.push_back(uint32_t(name));
            t.depth.push_back(uint16_t(depth));
            t.flags.push_back(uint16_t(flags));
            t.parent.push_back(depth ? open.back() : -1);
            open.push_back(int32_t(e));
            t.maxDepth = std::max(t.maxDepth, int(depth));
        }
    }
    if (!in.ok || !in.atEnd())
        return refused(why, "truncated or damaged diagnose part");
    return p;
}

bool DiagnosisPart::holdsStep(std::string_view key) const
{
    for (uint32_t id : partial)
        if (Diagnoser::stepKey(names[id]) == key)
            return false;
    return true;
}

std::shared_ptr<Timeline> DiagnosisPart::timeline(std::vector<DiagnosisPart> &parts)
{
    auto tl = std::make_shared<Timeline>();
    for (DiagnosisPart &p : parts) {
        // Every name of the log in its order, as the full load merges a file's table.
        std::vector<uint32_t> nameIds;
        for (const std::string &n : p.names)
            nameIds.push_back(tl->names.intern(n));
        std::vector<uint32_t> argIds;
        for (const std::string &a : p.args)
            argIds.push_back(tl->args.intern(a));
        for (EventTrack &t : p.worker.tracks) {
            for (uint32_t &id : t.nameId)
                id = nameIds[id];
            for (auto &ref : t.argRefs)
                ref.second = argIds[ref.second];
        }
        tl->workers.push_back(std::move(p.worker));
        p.worker = Worker();
    }
    tl->updateRange();
    return tl;
}

} // namespace syncline
