// Diagnoser — see diagnosis.h. The steps and the collective instances are found in
// diagnosissteps.cpp and diagnosiswaits.cpp (diagnosisdetail.h); here the what-if, the
// critical path and the run.
#include "timeline/report/diagnosis.h"

#include "timeline/model/generation.h"
#include "timeline/report/diagnosisdetail.h"
#include "timeline/report/rankoutliers.h"

#include <cmath>
#include <numeric>

namespace syncline {

namespace {

using namespace diagnosis_detail;

// --- what-if --------------------------------------------------------------------------------

struct WhatIf
{
    std::vector<int64_t> stepSaved; // per global step (0 where the rank has none)
    int64_t segmentSaved = 0;       // without steps: Δ at the end of each generation's chain
};

WhatIf replay(const Context &c, const Diagnosis &d, const std::vector<Instance> &all,
              const InstanceIndex &index, int rank)
{
    WhatIf out;
    out.stepSaved.assign(d.steps.size(), 0);
    for (size_t w = 0; w < c.tl.workers.size(); ++w) {
        if (c.tl.workers[w].info.rank != rank)
            continue;
        size_t cursor = 0;
        int64_t prevStep = -2, prevEndLocal = 0, delta = 0;
        bool havePrev = false;
        const MappedCollectives m = mappedCollectives(c, w, false);
        for (size_t k = 0; k < m.events.size(); ++k) {
            const CollectiveEvent &e = m.events[k];
            const Instance &in = all[index.find(e.key, e.sequence)];
            const int64_t a = m.begin[k];
            const int64_t step = stepAt(c, w, e.localBegin, cursor);
            if (step != prevStep) {
                if (prevStep >= 0)
                    out.stepSaved[size_t(prevStep)] = delta;
                delta = 0;
                havePrev = step >= 0;
                if (havePrev)
                    prevEndLocal = stepBeginLocal(c, w, step);
                prevStep = step;
            }
            if (in.participants >= 2 && havePrev && !std::isnan(in.medianLo)) {
                const double gap = double(std::max<int64_t>(0, e.localBegin - prevEndLocal));
                const double median = gap > in.medianLo ? in.medianLo : in.medianHi;
                const int64_t improvement = int64_t(std::max(0.0, gap - median));
                const int64_t others = in.lastWorker == int32_t(w) ? in.second : in.last;
                const int64_t newLast = std::max(a - delta - improvement, others - delta);
                delta = std::max<int64_t>(0, in.last - newLast);
            }
            prevEndLocal = std::max(prevEndLocal, e.localEnd);
            havePrev = true;
        }
        if (prevStep >= 0)
            out.stepSaved[size_t(prevStep)] = delta;
        else
            addSat(out.segmentSaved, delta);
    }
    return out;
}

void whatIfs(Context &c, Diagnosis &d, const std::vector<Instance> &all, const InstanceIndex &index)
{
    std::vector<size_t> order(d.ranks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return d.ranks[a].blameNs > d.ranks[b].blameNs; });
    std::vector<int64_t> blames;
    for (const DiagnosisRank &r : d.ranks)
        blames.push_back(r.blameNs);
    int64_t threshold = 0;
    const std::vector<bool> outlier = RankOutliers::flag(blames, &threshold);
    // The time the savings are judged against: the steps', or the collectives' spans.
    int64_t judged = 0;
    std::vector<size_t> keptSteps;
    for (size_t s = 0; s < d.steps.size(); ++s)
        if (d.steps[s].endNs > d.steps[s].beginNs && inRange(c.q, d.steps[s].beginNs)) {
            addSat(judged, d.steps[s].durationNs());
            keptSteps.push_back(s);
        }
    if (keptSteps.empty() && d.instances > 0) {
        int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
        for (const Instance &in : all)
            if (in.participants >= 2 && in.selected) {
                lo = std::min(lo, in.last);
                hi = std::max(hi, in.minEnd);
            }
        judged = std::max<int64_t>(0, hi - lo);
    }
    std::vector<size_t> chosen; // the ranks of most blame, each replayed on a thread
    for (size_t ri : order) {
        if (int(chosen.size()) >= c.q.whatIfRanks || d.ranks[ri].blameNs <= 0)
            break;
        chosen.push_back(ri);
    }
    std::vector<WhatIf> replays(chosen.size());
    auto run = [&](size_t j) { replays[j] = replay(c, d, all, index, d.ranks[chosen[j]].rank); };
    if (c.threads <= 1)
        for (size_t j = 0; j < chosen.size(); ++j)
            run(j);
    else
        sync::parallelFor(chosen.size(), run);
    for (size_t j = 0; j < chosen.size(); ++j) {
        const size_t ri = chosen[j];
        DiagnosisRank &r = d.ranks[ri];
        const WhatIf &w = replays[j];
        r.hasWhatIf = true;
        if (!keptSteps.empty()) {
            std::vector<int64_t> after;
            for (size_t s : keptSteps) {
                addSat(r.savedNsTotal, w.stepSaved[s]);
                after.push_back(d.steps[s].durationNs() - w.stepSaved[s]);
            }
            r.savedNsPerStep = r.savedNsTotal / int64_t(keptSteps.size());
            std::vector<int64_t> sorted = after;
            r.whatIfStepP50Ns = Stats::percentile(sorted, 50);
        } else {
            r.savedNsTotal = w.segmentSaved;
        }
        r.culprit =
            outlier[ri] && judged > 0 && double(r.savedNsTotal) >= kMinSavedShare * double(judged);
        if (r.culprit && d.culprits.empty())
            for (size_t s = 0; s < d.steps.size(); ++s)
                d.steps[s].whatIfEndNs = d.steps[s].endNs - w.stepSaved[s];
        if (r.culprit)
            d.culprits.push_back(ri);
    }
}

// --- critical path --------------------------------------------------------------------------

// Adds to byName the local time in [from, to) covered by events of `depth` on the track
// (clipped); returns the time covered.
int64_t attribute(const EventTrack &t, int64_t from, int64_t to, int depth,
                  std::map<uint32_t, int64_t> &byName)
{
    if (to <= from)
        return 0;
    int64_t covered = 0;
    int i = t.firstIndexEndingAfter(from);
    for (; i >= 0 && size_t(i) < t.count() && t.localStart[size_t(i)] < to; ++i) {
        if (t.depth[size_t(i)] != depth || (t.flags[size_t(i)] & EventInstant))
            continue;
        const int64_t ns =
            std::min(to, t.localEnd[size_t(i)]) - std::max(from, t.localStart[size_t(i)]);
        if (ns > 0) {
            addSat(byName[t.nameId[size_t(i)]], ns);
            addSat(covered, ns);
        }
    }
    return covered;
}

void criticalPath(Context &c, Diagnosis &d, const std::vector<Instance> &all)
{
    std::map<uint32_t, int64_t> byName;
    int64_t other = 0;
    std::vector<int64_t> byRank(d.ranks.size(), 0);
    auto onRank = [&](size_t w, int64_t ns) { addSat(byRank[size_t(c.rankIndex[w])], ns); };
    // Per step, its instances in order of last arrival.
    std::vector<std::vector<size_t>> ofStep(d.steps.size());
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].participants >= 2 && all[i].step >= 0 && all[i].selected)
            ofStep[size_t(all[i].step)].push_back(i);
    for (size_t s = 0; s < d.steps.size(); ++s) {
        const DiagnosisStep &step = d.steps[s];
        if (step.lastRankWorker < 0 || !inRange(c.q, step.beginNs))
            continue;
        std::vector<size_t> &ins = ofStep[s];
        std::sort(ins.begin(), ins.end(),
                  [&](size_t a, size_t b) { return all[a].last < all[b].last; });
        int64_t lastEndGlobal = step.beginNs;
        for (size_t i : ins) {
            const Instance &in = all[i];
            const size_t w = size_t(in.lastWorker);
            const EventTrack &t = c.tl.workers[w].tracks[in.lastTrack];
            if (in.lastHasGap) {
                const int64_t to = t.localStart[in.lastIndex];
                const int64_t gap = to - in.lastPrevEndLocal;
                // By the step's children on the step's thread (a collective recorded on a track
                // of its own, as DDP's bucket all-reduces are, has no siblings there), else by
                // the collective's siblings.
                const EventTrack *at = &t;
                int depth = t.depth[in.lastIndex];
                const int64_t k = int64_t(s) - c.stepBase[w];
                if (k >= 0 && size_t(k) < c.steps[w].size()) {
                    const WorkerStep &ws = c.steps[w][size_t(k)];
                    at = &c.tl.workers[w].tracks[ws.track];
                    depth = at->depth[ws.index] + 1;
                }
                addSat(other, gap - attribute(*at, in.lastPrevEndLocal, to, depth, byName));
                onRank(w, gap);
            }
            const int64_t coll = std::max<int64_t>(0, in.minEnd - in.last);
            addSat(byName[in.nameId], coll);
            onRank(w, coll);
            lastEndGlobal = std::max(lastEndGlobal, in.minEnd);
        }
        // The tail: on the worker that ended last, from the last collective's end to its end.
        const size_t w = size_t(step.lastRankWorker);
        const int64_t k = int64_t(s) - c.stepBase[w];
        if (k >= 0 && size_t(k) < c.steps[w].size()) {
            const WorkerStep &ws = c.steps[w][size_t(k)];
            const EventTrack &t = c.tl.workers[w].tracks[ws.track];
            const int64_t endLocal = t.localEnd[ws.index];
            const int64_t fromLocal =
                ins.empty()
                    ? t.localStart[ws.index]
                    : endLocal - std::max<int64_t>(0, c.global(w, endLocal) - lastEndGlobal);
            const int64_t tail = endLocal - fromLocal;
            if (tail > 0) {
                addSat(other,
                       tail - attribute(t, fromLocal, endLocal, t.depth[ws.index] + 1, byName));
                onRank(w, tail);
            }
        }
    }
    int64_t total = other;
    for (const auto &[id, ns] : byName)
        addSat(total, ns);
    d.criticalTotalNs = total;
    for (size_t r = 0; r < d.ranks.size(); ++r) {
        d.ranks[r].criticalNs = byRank[r];
        if (byRank[r] > 0)
            d.criticalByRank.push_back({std::to_string(d.ranks[r].rank), d.ranks[r].rank, byRank[r],
                                        total ? double(byRank[r]) / double(total) : 0.0});
    }
    for (const auto &[id, ns] : byName)
        if (ns > 0)
            d.criticalByName.push_back({std::string(c.tl.names.name(id)), -1, ns,
                                        total ? double(ns) / double(total) : 0.0});
    if (other > 0)
        d.criticalByName.push_back(
            {"(other)", -1, other, total ? double(other) / double(total) : 0.0});
    auto byNs = [](const DiagnosisShare &a, const DiagnosisShare &b) {
        return a.ns != b.ns ? a.ns > b.ns : a.name < b.name;
    };
    std::stable_sort(d.criticalByRank.begin(), d.criticalByRank.end(), byNs);
    std::stable_sort(d.criticalByName.begin(), d.criticalByName.end(), byNs);
}

} // namespace

std::string_view Diagnoser::stepKey(std::string_view name)
{
    const size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == name.size() || hash == 0)
        return name;
    for (size_t i = hash + 1; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, hash);
}

Diagnosis Diagnoser::run(const Timeline &tl, const DiagnoseQuery &q)
{
    Diagnosis d;
    d.mode = q.mode;
    d.workerCount = tl.workers.size();
    Context c{tl, q, Generation::number(tl), {}, {}, {}, {}, {}};
    c.collective.assign(tl.names.size(), 0);
    for (uint32_t id = 0; id < tl.names.size(); ++id)
        if (const NameKind *k = tl.kindOf(id); k && k->collective) {
            c.collective[id] = 1;
            d.collectiveNames.push_back(id);
        }
    c.threads = q.threads ? q.threads : tl.eventCount() < 100000 ? 1 : Stats::defaultThreads();
    // Ranks, and each worker's clock bound (none in raw mode, where nothing is claimed).
    std::vector<int> ranks;
    for (const Worker &w : tl.workers)
        ranks.push_back(w.info.rank);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    for (int r : ranks)
        d.ranks.push_back(DiagnosisRank{r});
    for (const Worker &w : tl.workers) {
        c.rankIndex.push_back(
            int(std::lower_bound(ranks.begin(), ranks.end(), w.info.rank) - ranks.begin()));
        const bool corrected =
            q.mode == ClockMode::Corrected && w.clock.method != sync::ClockMethod::None;
        c.bound.push_back(corrected ? std::max(w.clock.boundNs, w.clock.assumedBoundNs) : 0);
    }
    // Steps.
    std::vector<std::string> keys;
    const std::vector<int> keyOf = stepKeys(c, keys);
    const int key = chooseStep(c, keyOf, keys);
    if (key >= 0) {
        d.stepName = keys[size_t(key)];
        collectSteps(c, keyOf, key);
    } else {
        c.steps.assign(tl.workers.size(), {});
    }
    buildSteps(c, d);
    stepSummary(c, d);
    // Collectives: arrivals, waits, medians, blame, what-if, critical path.
    std::vector<Instance> all;
    InstanceIndex index;
    passArrivals(c, all, index);
    for (Instance &in : all)
        in.selected = inRange(q, in.step >= 0 ? d.steps[size_t(in.step)].beginNs : in.last);
    std::vector<std::vector<Diagnosis::Arrival>> rows;
    {
        std::vector<float> gaps;
        passWaits(c, d, all, index, gaps, rows);
        takeMedians(all, gaps, tl.workers.size());
    }
    blame(c, d, all);
    listArrivals(c, d, all, rows);
    whatIfs(c, d, all, index);
    criticalPath(c, d, all);
    for (size_t s = 0; s < d.steps.size() && !d.cellWaitNs.empty(); ++s)
        for (size_t w = 0; w < d.workerCount; ++w) {
            const float wait = d.cellWait(s, w);
            if (!std::isnan(wait))
                d.steps[s].waitMaxNs = std::max(d.steps[s].waitMaxNs, toNs(wait));
        }
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const WorkerInfo &info = tl.workers[w].info;
        if (!info.closedCleanly && info.kind == SourceKind::SynclineLog)
            d.unclosed.emplace_back(w, c.global(w, info.lastLocalNs));
    }
    for (size_t r = 0; r < d.ranks.size(); ++r)
        if (d.ranks[r].waitNs > 0 && !d.ranks[r].culprit)
            d.victims.push_back(r);
    std::stable_sort(d.victims.begin(), d.victims.end(),
                     [&](size_t a, size_t b) { return d.ranks[a].waitNs > d.ranks[b].waitNs; });
    return d;
}

} // namespace syncline
