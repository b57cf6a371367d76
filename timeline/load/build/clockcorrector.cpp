#include "timeline/load/build/clockcorrector.h"
#include "timeline/model/ranklist.h"

#include "timeline/load/build/messagepairing.h"
#include "timeline/load/build/wallclocks.h"
#include "timeline/load/build/workeradmission.h"
#include "timeline/model/collectiveinstances.h"
#include "timeline/model/collectivenames.h"
#include "timeline/model/generation.h"

#include "recorder/globpattern.h"
#include "sync/syncengine.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace syncline::load {

namespace {

// Recognised names (no --align-on, no configured category) go to the engine only when some
// worker of a job of two or more has no sync samples: they are what aligns such a job, while a job whose every worker
// is synced keeps exactly the constraints it was given.
void addCollectives(const Timeline &tl, EventKindLookup &kinds, const std::string &alignOn,
                    std::vector<sync::CollectiveInstance> &out)
{
    if (tl.workers.empty())
        return;
    size_t unsynced = 0;
    for (const Worker &w : tl.workers)
        unsynced += w.samples.empty();
    std::vector<uint8_t> recognised;
    if (ClockCorrector::alignsOnRecognisedNames(tl.workers.size(), unsynced))
        recognised = CollectiveNames::recognise(tl.names);
    else
        recognised.assign(tl.names.size(), 0);
    // The instance key (CollectiveInstances: process group and sequence number, else the k-th
    // of its name, within one generation) is what pairs instances in the engine.
    const std::vector<int64_t> generation = Generation::number(tl);
    std::vector<int8_t> isColl(tl.names.size(), -1);
    auto collective = [&](uint32_t id) {
        if (isColl[id] < 0)
            isColl[id] = int8_t(ClockCorrector::isCollective(tl, kinds, alignOn, recognised, id));
        return isColl[id] == 1;
    };
    for (size_t w = 0; w < tl.workers.size(); ++w)
        for (const CollectiveEvent &c : CollectiveInstances::of(tl, w, generation[w], collective))
            if (!c.failed) // its end is not the operation's: it constrains nothing
                out.push_back({int(w), c.sequence, c.key, c.localBegin, c.localEnd});
}

// One line when workers without sync samples were aligned on collectives (what a job of
// profiler traces gets with no option): which, on how many instances, the assumption and the
// largest bound, and how to see the clocks as recorded instead.
void noteCollectiveAlignment(Timeline &tl, size_t instances)
{
    std::vector<int> ranks;
    int64_t bound = 0;
    for (const Worker &w : tl.workers)
        if (w.samples.empty() && w.clock.method == sync::ClockMethod::Collectives) {
            ranks.push_back(w.info.rank);
            bound = std::max(bound, w.clock.boundNs);
        }
    if (ranks.empty())
        return;
    const std::string list = rankList(ranks);
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", double(bound) / 1000.0);
    tl.clockNotes.push_back("rank(s) " + list +
                            ": no sync samples; aligned on " + std::to_string(instances) +
                            " collective event(s) found by name (assuming each ends at the "
                            "same instant on every rank), bound up to " + b +
                            " µs; --no-align shows these clocks as recorded");
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

// Why the collectives did not correct worker `w` either (the second half of its "not
// corrected" note): alignment off, none of its own, or its own could not be aligned (the
// aligner's note on that rank says why).
std::string collectivesWhy(const Timeline &tl, size_t w, bool alignCollectives,
                           const std::vector<sync::CollectiveInstance> &collectives)
{
    if (!alignCollectives)
        return "collective alignment is off (--no-align)";
    const auto own = std::count_if(collectives.begin(), collectives.end(),
                                   [&](const sync::CollectiveInstance &c) {
                                       return c.workerId == int(w);
                                   });
    if (own == 0)
        return "no collectives to align on";
    return "its " + std::to_string(own) +
           " collective instance(s) could not be aligned: the \"collective alignment\" note of "
           "rank " + std::to_string(tl.workers[w].info.rank) + " says why";
}

// Each worker's engine result, shifted by `shift`; workers the engine could not correct (or
// all of them when there is no shift) keep the raw wall-clock mapping, with a note that says
// why (the samples, then the collectives).
void storeResults(Timeline &tl, const sync::SyncEngineResult &res, std::optional<int64_t> shift,
                  bool alignCollectives, const std::vector<sync::CollectiveInstance> &collectives)
{
    for (const sync::WorkerClockResult &r : res.workers) {
        Worker &w = tl.workers[size_t(r.workerId)];
        w.clock = r;
        w.clock.map = sync::ClockMap(); // the map lives in w.corrected (shifted), not twice
        if (r.method == sync::ClockMethod::None || !shift) {
            keepRawClock(w);
            // Why: another reference, samples that bound nothing, or none at all.
            const std::string why =
                (r.flags & sync::SegOtherReference)
                    ? "synced to another reference clock than the job's"
                : !w.samples.empty()
                    ? "its " + std::to_string(w.samples.size()) +
                          " sync samples give no usable bound: in every burst the exchanges "
                          "contradict each other (a lower bound above the upper one, as when "
                          "the clock steps during the burst) or are invalid"
                    : std::string("no sync samples");
            tl.clockNotes.push_back(
                "rank " + std::to_string(w.info.rank) + ": not corrected (" + why + ", and " +
                collectivesWhy(tl, size_t(r.workerId), alignCollectives, collectives) +
                "); corrected view uses the raw wall-clock mapping" +
                                    ((r.flags & sync::SegOtherReference)
                                         ? ", with no bound against the other ranks"
                                         : ""));
            continue;
        }
        w.corrected = r.map.shifted(*shift);
        w.clock.offsetNs = w.corrected.toGlobal(w.info.firstLocalNs) - w.info.firstLocalNs;
    }
}

} // namespace

bool ClockCorrector::isCollective(const Timeline &tl, EventKindLookup &kinds,
                                  const std::string &alignOn,
                                  const std::vector<uint8_t> &recognised, uint32_t nameId)
{
    if (kinds.isCollective(tl.names, nameId))
        return true;
    if (!alignOn.empty())
        return matchesAlignPattern(alignOn, tl.names.name(nameId));
    return nameId < recognised.size() && recognised[nameId] && !kinds.hasCategory(tl.names, nameId);
}

void ClockCorrector::markCollectives(Timeline &tl, EventKindLookup &kinds,
                                     const std::string &alignOn)
{
    kinds.describe(tl);
    const std::vector<uint8_t> recognised = CollectiveNames::recognise(tl.names);
    for (uint32_t id = 0; id < tl.kinds.size(); ++id)
        tl.kinds[id].collective = isCollective(tl, kinds, alignOn, recognised, id);
}

namespace {

// Keeps of every track of `f` only the events whose name `keep` accepts (a kept event's parent
// becomes its nearest kept ancestor); their args stay in f.args, referenced by argRefs.
template <typename Keep>
void keepEvents(ParsedFile &f, Keep keep)
{
    for (EventTrack &t : f.worker.tracks) {
        EventTrack kept;
        kept.tid = t.tid;
        kept.pid = t.pid;
        kept.threadName = std::move(t.threadName);
        kept.async = t.async;
        kept.category = std::move(t.category);
        kept.order = t.order;
        std::vector<int32_t> newIndex(t.count(), -1);
        for (size_t i = 0; i < t.count(); ++i) {
            if (!keep(t.nameId[i]))
                continue;
            int32_t p = t.parent[i];
            while (p >= 0 && newIndex[size_t(p)] < 0)
                p = t.parent[size_t(p)];
            const int32_t parent = p >= 0 ? newIndex[size_t(p)] : -1;
            newIndex[i] = int32_t(kept.count());
            kept.localStart.push_back(t.localStart[i]);
            kept.localEnd.push_back(t.localEnd[i]);
            kept.nameId.push_back(t.nameId[i]);
            kept.parent.push_back(parent);
            kept.depth.push_back(parent < 0 ? 0 : uint16_t(kept.depth[size_t(parent)] + 1));
            kept.flags.push_back(t.flags[i]);
            kept.maxDepth = std::max<int>(kept.maxDepth, kept.depth.back());
            if (const int64_t args = t.argsId(uint32_t(i)); args >= 0)
                kept.argRefs.emplace_back(uint32_t(newIndex[i]), uint32_t(args));
        }
        t = std::move(kept);
    }
}

} // namespace

bool ClockCorrector::alignsOnRecognisedNames(size_t workers, size_t unsynced)
{
    return unsynced > 0 && workers >= 2; // one worker alone has nothing to align with
}

void ClockCorrector::keepClockInputs(ParsedFile &f, EventKindLookup &kinds,
                                     const std::string &alignOn)
{
    std::vector<int8_t> candidate(f.names.size(), -1);
    keepEvents(f, [&](uint32_t id) {
        if (id >= candidate.size())
            return false;
        if (candidate[id] < 0)
            candidate[id] = int8_t(kinds.isCollective(f.names, id) ||
                                   (!alignOn.empty() &&
                                    matchesAlignPattern(alignOn, f.names.name(id))) ||
                                   CollectiveNames::classify(f.names.name(id)) !=
                                       CollectiveNames::Kind::None);
        return candidate[id] == 1;
    });
}

void ClockCorrector::keepAlignedEvents(ParsedFile &f, EventKindLookup &kinds,
                                       const Options &options)
{
    // isCollective with no name recognised: the config's "collective" category, or --align-on.
    std::vector<int8_t> aligned(f.names.size(), -1);
    keepEvents(f, [&](uint32_t id) {
        if (!options.correct || !options.alignCollectives || id >= aligned.size())
            return false;
        if (aligned[id] < 0)
            aligned[id] = int8_t(kinds.isCollective(f.names, id) ||
                                 (!options.alignOn.empty() &&
                                  matchesAlignPattern(options.alignOn, f.names.name(id))));
        return aligned[id] == 1;
    });
    // Only the kept events' args, in a store of their own.
    ArgStore args;
    for (EventTrack &t : f.worker.tracks)
        for (auto &ref : t.argRefs)
            ref.second = args.intern(f.args.text(ref.second));
    f.args = std::move(args);
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
    MessagePairing::run(tl, messages, nullptr, &out, links);
    return out;
}

std::vector<sync::MessagePair> ClockCorrector::pairMessages(const Timeline &tl,
                                                            std::vector<MessageLog> &&messages,
                                                            LinkTable *links)
{
    std::vector<MessageLog> mine = std::move(messages);
    std::vector<sync::MessagePair> out;
    MessagePairing::run(tl, mine, &mine, &out, links);
    return out;
}

LinkTable ClockCorrector::links(const Timeline &tl, const std::vector<MessageLog> &messages)
{
    LinkTable out;
    MessagePairing::run(tl, messages, nullptr, nullptr, &out);
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
        WallClocks::check(tl, false);
        if (options.wallClocks)
            tl.clockNotes.push_back("--clock wall: nothing to check the wall clocks against "
                                    "(clock correction disabled): the raw wall-clock maps are "
                                    "shown");
        tl.updateRange();
        return;
    }
    sync::SyncEngineInput in;
    addWorkers(tl, in.workers);
    if (options.alignCollectives)
        addCollectives(tl, kinds, options.alignOn, in.collectives);
    else
        tl.clockNotes.push_back("collective alignment off (--no-align): clocks corrected from "
                                "sync samples and messages only");
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
    storeResults(tl, res, shift, options.alignCollectives, in.collectives);
    noteCollectiveAlignment(tl, in.collectives.size());
    const WallClocks::Check wall = WallClocks::check(tl, true);
    if (options.wallClocks)
        WallClocks::useWall(tl, wall);
    tl.updateRange();
}

} // namespace syncline::load
