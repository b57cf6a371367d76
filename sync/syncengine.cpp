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

void summarise(WorkerClockResult &r, const WorkerClockInput &w)
{
    const int64_t a = std::min(w.firstLocalNs, w.lastLocalNs);
    const int64_t b = std::max(w.firstLocalNs, w.lastLocalNs);
    r.offsetNs = r.map.toGlobal(a) - a;
    r.driftPpm =
        b > a ? (double(r.map.toGlobal(b) - r.map.toGlobal(a)) / double(b - a) - 1.0) * 1e6 : 0.0;
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

// One domain's fit from its members' samples (those against the best-covered reference).
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
    // Samples against different references are not combined: use the best-covered ref.
    std::map<std::string, size_t> perRef;
    for (size_t i : members)
        perRef[in.workers[i].refId] += in.workers[i].samples.size();
    size_t most = 0;
    for (const auto &[id, n] : perRef) {
        if (n > most) {
            most = n;
            out.ref = id;
        }
    }
    out.refs = perRef.size();
    if (most == 0)
        return out;
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
        if (w.refId != out.ref || w.samples.empty())
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
void fitDomains(const SyncEngineInput &in, const DomainGrouper &groups,
                std::vector<WorkerClockResult> &out, SyncEngineResult &res)
{
    const int n = groups.domainCount();
    std::vector<DomainFit> fits(size_t(std::max(n, 0)));
    parallelFor(size_t(std::max(n, 0)),
                [&](size_t d) { fits[d] = fitDomain(in, groups.members(int(d))); });
    for (int d = 0; d < n; ++d) {
        const DomainFit &f = fits[size_t(d)];
        const std::vector<size_t> &members = groups.members(d);
        if (!f.fitted)
            continue;
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
    fitDomains(input, groups, res.workers, res);

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
    const SyncEngineInput &repairInput = trustedOnly ? *trustedOnly : input;
    if (input.options.repairCausality &&
        (!repairInput.messages.empty() || !repairInput.collectives.empty())) {
        CausalityRepair repair(input.options.minMessageLatencyNs);
        res.causality = repair.repair(repairInput, res.workers);
        if (!res.causality.converged)
            res.notes.push_back(
                "causality repair stopped after " + std::to_string(res.causality.passes) +
                " passes without meeting every constraint (they contradict each other); " +
                std::to_string(res.causality.violationsAfter) + " violations remain");
    }
    for (size_t i = 0; i < input.workers.size(); ++i)
        summarise(res.workers[i], input.workers[i]);
    return res;
}

} // namespace syncline::sync
