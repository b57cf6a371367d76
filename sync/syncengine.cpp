// runSyncEngine — see syncengine.h. Orchestrates: clock domains → per-domain model from sync
// samples → collective alignment for workers without samples → causality repair.
#include "syncengine.h"

#include "burstreducer.h"
#include "causalityrepair.h"
#include "clockmodelbuilder.h"
#include "collectivealigner.h"
#include "domaingrouper.h"
#include "modelcombiner.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace syncline::sync {

const char *methodName(ClockMethod method)
{
    switch (method) {
    case ClockMethod::None:
        return "none";
    case ClockMethod::SyncSamples:
        return "sync";
    case ClockMethod::Collectives:
        return "collectives";
    }
    return "none";
}

namespace {

// The fitted drift over the worker's span (ppm): the mean slope of the fitted map (before the
// causality repair, whose ramps are local corrections, not a rate) over the part of the span
// its samples cover; the nearest fitted segment's slope where they cover none of it.
double fittedDrift(const ClockMap &map, const WorkerClockInput &w)
{
    const auto &segs = map.segments();
    if (segs.empty())
        return 0.0;
    int64_t a = std::min(w.firstLocalNs, w.lastLocalNs);
    int64_t b = std::max(w.firstLocalNs, w.lastLocalNs);
    size_t lo = 0, hi = segs.size(); // segments [lo, hi) are not extrapolated
    while (lo < hi && (segs[lo].flags & SegExtrapolated))
        ++lo;
    while (hi > lo && (segs[hi - 1].flags & SegExtrapolated))
        --hi;
    if (lo < hi) {
        a = std::max(a, segs[lo].localStart);
        // The sampled part ends where the first extrapolated segment after it starts.
        if (hi < segs.size())
            b = std::min(b, segs[hi].localStart);
    }
    if (b <= a)
        return (map.segmentAt(a).slope - 1.0) * 1e6;
    return (double(map.toGlobal(b) - map.toGlobal(a)) / double(b - a) - 1.0) * 1e6;
}

void summarise(WorkerClockResult &r, const WorkerClockInput &w)
{
    const int64_t a = std::min(w.firstLocalNs, w.lastLocalNs);
    const int64_t b = std::max(w.firstLocalNs, w.lastLocalNs);
    r.offsetNs = r.map.toGlobal(a) - a;
    r.flags = 0;
    r.boundNs = 0;
    r.bandNs = 0;
    r.assumedBoundNs = 0;
    const auto &segs = r.map.segments();
    for (size_t i = 0; i < segs.size(); ++i) {
        // Segment i covers [start, end); the first extends to −∞ and the last to +∞.
        const int64_t start = i == 0 ? INT64_MIN : segs[i].localStart;
        const int64_t end = i + 1 < segs.size() ? segs[i + 1].localStart : INT64_MAX;
        if (start > b || end <= a)
            continue;
        r.flags |= segs[i].flags;
        r.boundNs = std::max(r.boundNs, segs[i].boundNs);
        r.bandNs = std::max(r.bandNs, segs[i].bandNs);
        r.assumedBoundNs =
            std::max(r.assumedBoundNs,
                     segs[i].assumedBoundNs > 0 ? segs[i].assumedBoundNs : segs[i].boundNs);
    }
}

// The clock behind a reference id: the time server's boot hash, after the last '@'
// (`<server as configured>@<boot hash>`). The same server restarted on its host keeps it (same
// clock, whatever name the workers used for it); another host or another boot is another clock.
// An id without '@' (another writer) stands for its own clock.
std::string referenceClock(const std::string &ref)
{
    const size_t at = ref.rfind('@');
    return at == std::string::npos ? ref : ref.substr(at + 1);
}

// One domain's fit from its members' samples (those against the best-covered reference clock).
struct DomainFit
{
    bool fitted = false;
    ClockModel model;
    int sampleCount = 0;
    std::string ref;
    size_t refs = 0;
};

DomainFit fitDomain(const SyncEngineInput &in, const std::vector<size_t> &members)
{
    DomainFit out;
    // Samples against different reference clocks are not combined: use the best-covered clock.
    // Servers of one clock (a job's server restarted on its host, on another port: an elastic
    // restart's new MASTER_PORT) are one reference; `ref` names its best-covered server.
    std::map<std::string, size_t> perClock, perRef;
    for (size_t i : members) {
        perClock[referenceClock(in.workers[i].refId)] += in.workers[i].samples.size();
        perRef[in.workers[i].refId] += in.workers[i].samples.size();
    }
    std::string clock;
    size_t most = 0;
    for (const auto &[id, n] : perClock) {
        if (n > most) {
            most = n;
            clock = id;
        }
    }
    out.refs = perClock.size();
    if (most == 0)
        return out;
    most = 0;
    for (const auto &[id, n] : perRef) {
        if (referenceClock(id) == clock && n > most) {
            most = n;
            out.ref = id;
        }
    }
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i : members) {
        const WorkerClockInput &w = in.workers[i];
        first = std::min({first, w.firstLocalNs, w.lastLocalNs});
        last = std::max({last, w.firstLocalNs, w.lastLocalNs});
    }
    // One model per process (each has its own sync path and burst times), combined below.
    // All processes' bursts together are the rate prior of a process whose run is too short to
    // determine its own (a restarted incarnation living seconds; ShortRunFitter).
    std::vector<std::vector<BurstBound>> each;
    std::vector<BurstBound> domain;
    for (size_t i : members) {
        const WorkerClockInput &w = in.workers[i];
        if (referenceClock(w.refId) != clock || w.samples.empty())
            continue;
        BurstReducer reducer;
        each.push_back(reducer.reduce(w.samples, w.workerId));
        out.sampleCount += int(w.samples.size()) - reducer.skipped();
        domain.insert(domain.end(), each.back().begin(), each.back().end());
    }
    std::sort(domain.begin(), domain.end(),
              [](const BurstBound &a, const BurstBound &b) { return a.tMid() < b.tMid(); });
    std::vector<ClockModel> models;
    for (const std::vector<BurstBound> &bursts : each) {
        if (!bursts.empty())
            models.push_back(ClockModelBuilder().build(bursts, first, last, domain));
    }
    out.model = ModelCombiner::combine(models);
    out.fitted = !out.model.segments.empty();
    return out;
}

// Fits every domain that has samples (domains in parallel on the available cores; the result
// does not depend on the thread count).
// Returns each domain's reference id ("" where it has no fit).
std::vector<std::string> fitDomains(const SyncEngineInput &in, const DomainGrouper &groups,
                                    std::vector<WorkerClockResult> &out, SyncEngineResult &res)
{
    const int n = groups.domainCount();
    std::vector<DomainFit> fits(size_t(std::max(n, 0)));
    parallelFor(size_t(std::max(n, 0)),
                [&](size_t d) { fits[d] = fitDomain(in, groups.members(int(d))); });
    std::vector<std::string> refs(fits.size());
    for (int d = 0; d < n; ++d) {
        const DomainFit &f = fits[size_t(d)];
        const std::vector<size_t> &members = groups.members(d);
        if (!f.fitted)
            continue;
        refs[size_t(d)] = f.ref;
        const ClockMap map(f.model.segments);
        for (size_t i : members) {
            out[i].map = map;
            out[i].method = ClockMethod::SyncSamples;
            out[i].sampleCount = f.sampleCount;
        }
        if (f.model.steps > 0) {
            res.notes.push_back("rank " + std::to_string(in.workers[members.front()].rank) + ": " +
                                std::to_string(f.model.steps) + " clock step(s) detected");
        }
        if (f.refs > 1) {
            res.notes.push_back("rank " + std::to_string(in.workers[members.front()].rank) +
                                ": samples against several references; used " + f.ref);
        }
    }
    return refs;
}

// The ranks as "0-3, 6, 8-9" (any order, repeats counted once).
std::string rankList(std::vector<int> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string out;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]);
        if (j > i)
            out += "-" + std::to_string(ranks[j]);
        i = j + 1;
    }
    return out;
}

// Workers whose samples were taken against different reference clocks (two time servers) share
// no clock: each server's monotonic clock has its own zero and rate, and nothing in the samples
// relates them. The reference clock of the lowest-rank synced worker is global time; every
// domain fitted against another clock loses its fit (its map would claim a µs bound on a scale
// it was never measured against) and is left to the collective alignment, as a worker without
// samples. Returns the workers so demoted (input positions) and their clocks' refs, by rank.
struct OtherReferences
{
    std::vector<size_t> workers;
    std::map<std::string, std::vector<int>> ranksByClock; // every synced worker, by clock
    std::map<std::string, std::string> refOfClock;        // a ref id naming each clock
    std::string reference;                                // the clock that is global time
};

OtherReferences separateReferences(const SyncEngineInput &in, const DomainGrouper &groups,
                                   const std::vector<std::string> &refs,
                                   std::vector<WorkerClockResult> &out)
{
    OtherReferences o;
    int lowest = std::numeric_limits<int>::max();
    for (int d = 0; d < groups.domainCount(); ++d) {
        if (out[groups.members(d).front()].method == ClockMethod::None)
            continue;
        const std::string clock = referenceClock(refs[size_t(d)]);
        o.refOfClock.emplace(clock, refs[size_t(d)]);
        for (size_t i : groups.members(d)) {
            o.ranksByClock[clock].push_back(in.workers[i].rank);
            if (in.workers[i].rank < lowest) {
                lowest = in.workers[i].rank;
                o.reference = clock;
            }
        }
    }
    if (o.ranksByClock.size() < 2)
        return o;
    for (int d = 0; d < groups.domainCount(); ++d) {
        if (out[groups.members(d).front()].method == ClockMethod::None ||
            referenceClock(refs[size_t(d)]) == o.reference)
            continue;
        for (size_t i : groups.members(d)) {
            out[i].map = ClockMap();
            out[i].method = ClockMethod::None;
            out[i].sampleCount = 0;
            o.workers.push_back(i);
        }
    }
    return o;
}

// The note naming which ranks were synced to which reference clock and what became of the ranks
// of the other clocks; their maps (collective alignment) and results carry SegOtherReference.
void noteOtherReferences(const SyncEngineInput &in, const OtherReferences &o,
                         std::vector<WorkerClockResult> &out, SyncEngineResult &res)
{
    std::string note = "workers synced to " + std::to_string(o.ranksByClock.size()) +
                       " unrelated reference clocks (time servers; no shared corrected clock): "
                       "ranks " +
                       rankList(o.ranksByClock.at(o.reference)) + " to " +
                       o.refOfClock.at(o.reference) + " (the reference)";
    for (const auto &[clock, ranks] : o.ranksByClock)
        if (clock != o.reference)
            note += ", ranks " + rankList(ranks) + " to " + o.refOfClock.at(clock);
    std::vector<int> aligned, raw;
    for (size_t i : o.workers) {
        WorkerClockResult &r = out[i];
        if (r.method == ClockMethod::None) {
            raw.push_back(in.workers[i].rank);
            continue;
        }
        aligned.push_back(in.workers[i].rank);
        std::vector<ClockSegment> segs = r.map.segments();
        for (ClockSegment &s : segs)
            s.flags |= SegOtherReference;
        r.map = ClockMap(std::move(segs));
    }
    if (!aligned.empty())
        note += "; ranks " + rankList(aligned) +
                " aligned to the reference on collectives (assumption-based bound)";
    if (!raw.empty())
        note += "; ranks " + rankList(raw) +
                " not placed on the reference (no shared collectives): their own wall-clock "
                "anchor, no bound against the reference";
    res.notes.push_back(std::move(note));
}

} // namespace

SyncEngineResult runSyncEngine(const SyncEngineInput &input)
{
    SyncEngineResult res;
    const DomainGrouper groups(input.workers);
    res.workers.resize(input.workers.size());
    for (size_t i = 0; i < input.workers.size(); ++i) {
        res.workers[i].workerId = input.workers[i].workerId;
        res.workers[i].domain = groups.domainOf(i);
    }
    const std::vector<std::string> refs = fitDomains(input, groups, res.workers, res);
    const OtherReferences others = separateReferences(input, groups, refs, res.workers);

    // Instances the aligner found not to correspond must not constrain the repair either.
    std::optional<SyncEngineInput> trustedOnly;
    const bool anyUnfitted =
        std::any_of(res.workers.begin(), res.workers.end(),
                    [](const WorkerClockResult &w) { return w.method == ClockMethod::None; });
    if (input.options.alignOnCollectives && !input.collectives.empty() && anyUnfitted) {
        CollectiveAligner aligner;
        const std::vector<bool> ok = aligner.align(input, groups, res.workers, res.notes);
        if (std::find(ok.begin(), ok.end(), false) != ok.end()) {
            trustedOnly = input;
            trustedOnly->collectives.clear();
            for (size_t i = 0; i < ok.size(); ++i) {
                if (ok[i])
                    trustedOnly->collectives.push_back(input.collectives[i]);
            }
        }
    }
    if (!others.workers.empty())
        noteOtherReferences(input, others, res.workers, res);
    for (size_t i = 0; i < input.workers.size(); ++i)
        res.workers[i].driftPpm = fittedDrift(res.workers[i].map, input.workers[i]);
    const SyncEngineInput &repairInput = trustedOnly ? *trustedOnly : input;
    if (input.options.repairCausality &&
        (!repairInput.messages.empty() || !repairInput.collectives.empty())) {
        CausalityRepair repair(input.options.minMessageLatencyNs);
        res.causality = repair.repair(repairInput, res.workers);
        if (!res.causality.converged)
            res.notes.push_back(
                "causality repair stopped after " + std::to_string(res.causality.passes) +
                " passes without meeting every constraint " +
                (repair.contradictory()
                     ? std::string("(they contradict each other)")
                     : std::string("(they do not contradict each other, but its local "
                                   "adjustments did not reach maps that meet them all)")) +
                ": " + repair.stopReason() + "; " +
                std::to_string(res.causality.violationsAfter) + " violations remain");
    }
    for (size_t i = 0; i < input.workers.size(); ++i)
        summarise(res.workers[i], input.workers[i]);
    for (size_t i : others.workers)
        res.workers[i].flags |= SegOtherReference; // also where there is no map to carry it
    return res;
}

} // namespace syncline::sync
