// Diagnoser — see diagnosis.h.
#include "timeline/report/diagnosis.h"

#include "timeline/model/collectiveinstances.h"
#include "timeline/model/generation.h"
#include "timeline/report/rankoutliers.h"

#include "sync/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>

namespace syncline {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Sums of times held at the int64 limits: times are within ±2^62 ns (the parser's rule), but
// sums and (n − 1) × a lead of hostile ones are not.
void addSat(int64_t &sum, int64_t v)
{
    if (__builtin_add_overflow(sum, v, &sum))
        sum = v > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

int64_t mulSat(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        return (a > 0) == (b > 0) ? std::numeric_limits<int64_t>::max()
                                  : std::numeric_limits<int64_t>::min();
    return out;
}

// A float sum of times as int64 (clamped: a float past 2^63 does not convert).
int64_t toNs(double v)
{
    if (!(v < 9.2e18))
        return std::numeric_limits<int64_t>::max();
    return v > -9.2e18 ? int64_t(v) : std::numeric_limits<int64_t>::min();
}
constexpr double kMinSavedShare = 0.01; // a culprit's what-if saves ≥ 1 % of the step time

// One of a worker's steps: its event (8 bytes a step; times are read from the track, in the
// worker's local ns, and mapped where a global time is needed).
struct WorkerStep
{
    uint32_t track = 0, index = 0;
};

// What the passes gather per collective instance.
struct Instance
{
    uint32_t nameId = 0;
    int64_t sequence = 0;
    int participants = 0;
    int64_t last = std::numeric_limits<int64_t>::min();
    int64_t second = std::numeric_limits<int64_t>::min();
    int32_t lastWorker = -1, secondWorker = -1;
    int64_t minEnd = std::numeric_limits<int64_t>::max();
    int32_t step = -1; // global step index (of the first worker that places it in a step)
    // The last arriver's collective event and where its compute before it began (local ns).
    uint32_t lastTrack = 0, lastIndex = 0;
    int64_t lastPrevEndLocal = 0;
    bool lastHasGap = false;
    float medianLo = kNaN, medianHi = kNaN; // around the median of the gaps (see what-if)
    bool decided = false;
    bool selected = false; // in the query's range (its step's begin, or its last arrival)
};

struct Context
{
    const Timeline &tl;
    const DiagnoseQuery &q;
    std::vector<int64_t> generation;
    std::vector<uint8_t> collective;            // per name id
    std::vector<std::vector<WorkerStep>> steps; // per worker, by begin
    std::vector<int64_t> stepBase;              // per worker: global index of its step 0
    std::vector<int> rankIndex;                 // per worker: index into Diagnosis::ranks
    std::vector<int64_t> bound;                 // per worker
    size_t threads = 1; // 1 for a small job (Stats' rule), else the hardware's
    int64_t global(size_t w, int64_t local) const { return tl.toGlobal(w, local, q.mode); }
    // fn(w) for every worker, spread over `threads` (fn writes only worker w's results).
    template <class F> void forEachWorker(F fn) const
    {
        if (threads <= 1) {
            for (size_t w = 0; w < tl.workers.size(); ++w)
                fn(w);
            return;
        }
        sync::parallelFor(tl.workers.size(), fn);
    }
};

bool inRange(const DiagnoseQuery &q, int64_t t)
{
    return !q.useRange || (t >= q.beginNs && t <= q.endNs);
}

bool complete(const EventTrack &t, size_t i)
{
    return !(t.flags[i] & (EventOpen | EventInstant));
}

// --- steps ----------------------------------------------------------------------------------

// Per name id, the step key id it folds to (-1: never a step).
std::vector<int> stepKeys(const Context &c, std::vector<std::string> &keys)
{
    std::unordered_map<std::string_view, int> ids;
    std::vector<int> out(c.tl.names.size(), -1);
    for (uint32_t id = 1; id < c.tl.names.size(); ++id) {
        if (c.collective[id])
            continue;
        const std::string_view key = Diagnoser::stepKey(c.tl.names.name(id));
        auto [it, added] = ids.try_emplace(key, int(keys.size()));
        if (added)
            keys.emplace_back(key);
        out[id] = it->second;
    }
    return out;
}

// The step key: the query's, or the detected one (-1 when none).
int chooseStep(const Context &c, const std::vector<int> &keyOf,
               const std::vector<std::string> &keys)
{
    if (!c.q.stepName.empty()) {
        const std::string_view want = Diagnoser::stepKey(c.q.stepName);
        for (size_t k = 0; k < keys.size(); ++k)
            if (keys[k] == want)
                return int(k);
        return -1;
    }
    // Per chunk of workers (on its own thread): workers with ≥ 2 of a key, and time covered.
    const size_t W = c.tl.workers.size();
    const size_t threads = std::clamp<size_t>(c.threads, 1, std::max<size_t>(W, 1));
    std::vector<std::vector<int64_t>> chunkWorkers(threads), chunkCovered(threads);
    sync::runChunks(W, threads, [&](size_t t, size_t begin, size_t end) {
        std::vector<int64_t> &workers = chunkWorkers[t], &covered = chunkCovered[t];
        workers.assign(keys.size(), 0);
        covered.assign(keys.size(), 0);
        std::vector<int64_t> count(keys.size(), 0);
        for (size_t w = begin; w < end; ++w) {
            std::fill(count.begin(), count.end(), 0);
            for (const EventTrack &t : c.tl.workers[w].tracks) {
                if (t.async)
                    continue;
                for (size_t i = 0; i < t.count(); ++i) {
                    if (t.depth[i] != 0 || !complete(t, i))
                        continue;
                    const int k = keyOf[t.nameId[i]];
                    if (k < 0)
                        continue;
                    ++count[size_t(k)];
                    addSat(covered[size_t(k)], t.localEnd[i] - t.localStart[i]);
                }
            }
            for (size_t k = 0; k < keys.size(); ++k)
                workers[k] += count[k] >= 2;
        }
    });
    std::vector<int64_t> workers(keys.size(), 0), covered(keys.size(), 0);
    for (size_t t = 0; t < threads; ++t)
        for (size_t k = 0; k < keys.size(); ++k) {
            workers[k] += chunkWorkers[t][k];
            addSat(covered[k], chunkCovered[t][k]);
        }
    // The config's `step` kind, when it names one that occurs, wins over detection.
    std::vector<uint8_t> configured(keys.size(), 0);
    bool anyConfigured = false;
    for (uint32_t id = 0; id < c.tl.names.size(); ++id)
        if (const NameKind *kind = c.tl.kindOf(id);
            kind && kind->category == "step" && keyOf[id] >= 0)
            configured[size_t(keyOf[id])] = 1;
    for (size_t k = 0; k < keys.size(); ++k)
        anyConfigured = anyConfigured || (configured[k] && workers[k] > 0);
    int best = -1;
    for (size_t k = 0; k < keys.size(); ++k) {
        if (workers[k] == 0 || (anyConfigured && !configured[k]))
            continue;
        if (best < 0 || workers[k] > workers[size_t(best)] ||
            (workers[k] == workers[size_t(best)] && covered[k] > covered[size_t(best)]))
            best = int(k);
    }
    return best;
}

// Each worker's step events: complete events of the key at the shallowest depth it has on
// the track (the outermost), in begin order.
void collectSteps(Context &c, const std::vector<int> &keyOf, int key)
{
    c.steps.assign(c.tl.workers.size(), {});
    c.forEachWorker([&](size_t w) {
        const Worker &worker = c.tl.workers[w];
        std::vector<WorkerStep> &out = c.steps[w];
        for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
            const EventTrack &t = worker.tracks[ti];
            if (t.async)
                continue;
            // One pass: the key's events with their depth, then keep the shallowest.
            const size_t first = out.size();
            int minDepth = std::numeric_limits<int>::max();
            std::vector<uint16_t> depths;
            for (size_t i = 0; i < t.count(); ++i)
                if (keyOf[t.nameId[i]] == key && complete(t, i)) {
                    minDepth = std::min(minDepth, int(t.depth[i]));
                    depths.push_back(t.depth[i]);
                    out.push_back({uint32_t(ti), uint32_t(i)});
                }
            size_t kept = first;
            for (size_t j = first; j < out.size(); ++j)
                if (depths[j - first] == minDepth)
                    out[kept++] = out[j];
            out.resize(kept);
        }
        std::stable_sort(out.begin(), out.end(), [&](const WorkerStep &a, const WorkerStep &b) {
            return worker.tracks[a.track].localStart[a.index] <
                   worker.tracks[b.track].localStart[b.index];
        });
    });
}

// d.steps by (generation, index) and the per-worker base into them; the duration cells.
void buildSteps(Context &c, Diagnosis &d)
{
    std::map<int64_t, size_t> perGeneration; // generation → steps it has (max over workers)
    for (size_t w = 0; w < c.steps.size(); ++w) {
        size_t &n = perGeneration[c.generation[w]];
        n = std::max(n, c.steps[w].size());
    }
    std::map<int64_t, int64_t> base;
    int64_t total = 0;
    for (const auto &[g, n] : perGeneration) {
        base[g] = total;
        for (size_t k = 0; k < n; ++k)
            d.steps.push_back({g, int64_t(k), std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min(), 0, 0, -1});
        total += int64_t(n);
    }
    c.stepBase.assign(c.steps.size(), 0);
    const bool cells = c.q.cells;
    if (cells) {
        d.cellDurationNs.assign(d.steps.size() * d.workerCount, kNaN);
        d.cellWaitNs.assign(d.steps.size() * d.workerCount, kNaN);
    }
    std::vector<int64_t> local, begin, end;
    for (size_t w = 0; w < c.steps.size(); ++w) {
        c.stepBase[w] = base[c.generation[w]];
        // Local → global in two batches (the begins ascend: the map's segment cursor).
        const std::vector<WorkerStep> &mine = c.steps[w];
        const size_t n = mine.size();
        const sync::ClockMap &map = c.tl.map(w, c.q.mode);
        local.resize(n);
        begin.resize(n);
        end.resize(n);
        for (size_t k = 0; k < n; ++k)
            local[k] = c.tl.workers[w].tracks[mine[k].track].localStart[mine[k].index];
        map.toGlobal(local, begin);
        for (size_t k = 0; k < n; ++k)
            local[k] = c.tl.workers[w].tracks[mine[k].track].localEnd[mine[k].index];
        map.toGlobal(local, end);
        for (size_t k = 0; k < n; ++k) {
            DiagnosisStep &step = d.steps[size_t(c.stepBase[w]) + k];
            step.beginNs = std::min(step.beginNs, begin[k]);
            if (end[k] > step.endNs) {
                step.endNs = end[k];
                step.lastRankWorker = int32_t(w);
            }
            if (cells) {
                const size_t cell = (size_t(c.stepBase[w]) + k) * d.workerCount + w;
                d.cellDurationNs[cell] = float(end[k] - begin[k]);
                d.cellWaitNs[cell] = 0.0f;
            }
        }
    }
    for (DiagnosisStep &s : d.steps)
        s.whatIfEndNs = s.endNs;
}

// --- collective instances -------------------------------------------------------------------

class InstanceIndex
{
public:
    // The instance of (name, sequence), added when new.
    size_t of(uint32_t nameId, int64_t sequence, std::vector<Instance> &all)
    {
        std::vector<int64_t> &slots =
            m_slots[{nameId, sequence >> CollectiveInstances::kGenerationShift}];
        const size_t k =
            size_t(sequence & ((int64_t(1) << CollectiveInstances::kGenerationShift) - 1));
        if (k >= slots.size())
            slots.resize(k + 1, -1);
        if (slots[k] < 0) {
            slots[k] = int64_t(all.size());
            Instance inst;
            inst.nameId = nameId;
            inst.sequence = sequence;
            all.push_back(inst);
        }
        return size_t(slots[k]);
    }

    // The instance of (name, sequence), which must exist.
    size_t find(uint32_t nameId, int64_t sequence) const
    {
        const std::vector<int64_t> &slots =
            m_slots.at({nameId, sequence >> CollectiveInstances::kGenerationShift});
        return size_t(
            slots[size_t(sequence & ((int64_t(1) << CollectiveInstances::kGenerationShift) - 1))]);
    }

private:
    std::map<std::pair<uint32_t, int64_t>, std::vector<int64_t>> m_slots;
};

// The step (global index) of worker w holding its local time localT, advancing `cursor` (events come
// in begin order); -1 when none.
int64_t stepAt(const Context &c, size_t w, int64_t localT, size_t &cursor)
{
    const std::vector<WorkerStep> &s = c.steps[w];
    const Worker &worker = c.tl.workers[w];
    while (cursor < s.size() && worker.tracks[s[cursor].track].localEnd[s[cursor].index] < localT)
        ++cursor;
    if (cursor < s.size() && worker.tracks[s[cursor].track].localStart[s[cursor].index] <= localT)
        return c.stepBase[w] + int64_t(cursor);
    return -1;
}

// Worker w's own begin (local ns) of its step with global index `step`.
int64_t stepBeginLocal(const Context &c, size_t w, int64_t step)
{
    const WorkerStep &s = c.steps[w][size_t(step - c.stepBase[w])];
    return c.tl.workers[w].tracks[s.track].localStart[s.index];
}

std::vector<CollectiveEvent> collectivesOf(const Context &c, size_t w)
{
    return CollectiveInstances::of(c.tl, w, c.generation[w], c.collective);
}

// Worker w's collective events with their global begins (and ends), mapped in one batch (the
// map's segment cursor: the begins are ascending) instead of a search per time.
struct MappedCollectives
{
    std::vector<CollectiveEvent> events;
    std::vector<int64_t> begin, end;
};

MappedCollectives mappedCollectives(const Context &c, size_t w, bool ends)
{
    MappedCollectives m;
    m.events = collectivesOf(c, w);
    const size_t n = m.events.size();
    std::vector<int64_t> local(n);
    const sync::ClockMap &map = c.tl.map(w, c.q.mode);
    for (size_t i = 0; i < n; ++i)
        local[i] = m.events[i].localBegin;
    m.begin.resize(n);
    map.toGlobal(local, m.begin);
    if (ends) {
        for (size_t i = 0; i < n; ++i)
            local[i] = m.events[i].localEnd;
        m.end.resize(n);
        map.toGlobal(local, m.end);
    }
    return m;
}

// Pass A: every worker's arrivals → each instance's last and second-last arrival. Workers are
// scanned in batches on the threads, their arrivals merged in worker order on this one (the
// instance index grows as instances are first seen).
void passArrivals(Context &c, std::vector<Instance> &all, InstanceIndex &index)
{
    struct Arrival
    {
        uint32_t nameId;
        int64_t sequence, begin, end, step;
    };
    const size_t W = c.tl.workers.size(), batch = std::max<size_t>(16, 8 * c.threads);
    std::vector<std::vector<Arrival>> lists(batch);
    for (size_t w0 = 0; w0 < W; w0 += batch) {
        const size_t n = std::min(batch, W - w0);
        auto scan = [&](size_t j) {
            const size_t w = w0 + j;
            lists[j].clear();
            size_t cursor = 0;
            const MappedCollectives m = mappedCollectives(c, w, true);
            for (size_t k = 0; k < m.events.size(); ++k)
                lists[j].push_back({m.events[k].nameId, m.events[k].sequence, m.begin[k], m.end[k],
                                    stepAt(c, w, m.events[k].localBegin, cursor)});
        };
        if (c.threads <= 1)
            for (size_t j = 0; j < n; ++j)
                scan(j);
        else
            sync::parallelFor(n, scan);
        for (size_t j = 0; j < n; ++j) {
            const int32_t w = int32_t(w0 + j);
            for (const Arrival &e : lists[j]) {
                Instance &in = all[index.of(e.nameId, e.sequence, all)];
                ++in.participants;
                if (e.begin > in.last || in.lastWorker < 0) {
                    in.second = in.last;
                    in.secondWorker = in.lastWorker;
                    in.last = e.begin;
                    in.lastWorker = w;
                } else if (e.begin > in.second || in.secondWorker < 0) {
                    in.second = e.begin;
                    in.secondWorker = w;
                }
                in.minEnd = std::min(in.minEnd, e.end);
                if (in.step < 0 && e.step >= 0)
                    in.step = int32_t(e.step);
            }
        }
    }
}

// Pass B: waits (per rank, per step cell), the compute gap before each arrival (into `gaps`,
// [instance][worker]), the last arriver's event and gap start.
void passWaits(Context &c, Diagnosis &d, std::vector<Instance> &all, InstanceIndex &index,
               std::vector<float> &gaps)
{
    const size_t W = c.tl.workers.size();
    gaps.assign(all.size() * W, kNaN);
    // Per worker (each thread writes only its workers' entries, its workers' gap and cell
    // columns, and the fields of the instances its worker was last at); summed per rank below.
    std::vector<int64_t> waitNs(W, 0), instances(W, 0);
    c.forEachWorker([&](size_t w) {
        size_t cursor = 0;
        int64_t prevStep = -2, prevEndLocal = 0;
        bool havePrev = false;
        const MappedCollectives m = mappedCollectives(c, w, false);
        for (size_t k = 0; k < m.events.size(); ++k) {
            const CollectiveEvent &e = m.events[k];
            const size_t i = index.find(e.nameId, e.sequence);
            Instance &in = all[i];
            const int64_t a = m.begin[k];
            const int64_t step = stepAt(c, w, e.localBegin, cursor);
            if (step != prevStep) { // a new step: the compute before starts at the step's begin
                havePrev = step >= 0;
                if (havePrev)
                    prevEndLocal = stepBeginLocal(c, w, step);
                prevStep = step;
            }
            if (in.participants >= 2 && in.selected) {
                const int64_t wait = in.last - a;
                addSat(waitNs[w], wait);
                ++instances[w];
                if (step >= 0 && !d.cellWaitNs.empty())
                    d.cellWaitNs[size_t(step) * W + w] += float(wait);
            }
            if (havePrev) {
                gaps[i * W + w] = float(std::max<int64_t>(0, e.localBegin - prevEndLocal));
                if (int32_t(w) == in.lastWorker) {
                    in.lastPrevEndLocal = prevEndLocal;
                    in.lastHasGap = true;
                }
            }
            if (int32_t(w) == in.lastWorker) {
                in.lastTrack = e.track;
                in.lastIndex = e.index;
            }
            prevEndLocal = std::max(prevEndLocal, e.localEnd);
            havePrev = true;
        }
    });
    for (size_t w = 0; w < W; ++w) {
        DiagnosisRank &rank = d.ranks[size_t(c.rankIndex[w])];
        addSat(rank.waitNs, waitNs[w]);
        rank.instances += instances[w];
    }
}

// The two order statistics around the lower median of n − 1 values (see what-if), per instance.
void takeMedians(std::vector<Instance> &all, const std::vector<float> &gaps, size_t W)
{
    std::vector<float> v;
    for (size_t i = 0; i < all.size(); ++i) {
        v.clear();
        for (size_t w = 0; w < W; ++w)
            if (!std::isnan(gaps[i * W + w]))
                v.push_back(gaps[i * W + w]);
        if (v.size() < 2)
            continue;
        const size_t m = (v.size() - 2) / 2;
        std::nth_element(v.begin(), v.begin() + long(m), v.end());
        all[i].medianLo = v[m];
        all[i].medianHi = *std::min_element(v.begin() + long(m) + 1, v.end());
    }
}

void blame(Context &c, Diagnosis &d, std::vector<Instance> &all)
{
    d.lastArrivals.assign(c.tl.workers.size(), {});
    for (const Instance &in : all)
        if (in.participants >= 2 && in.selected)
            ++d.instances;
    for (Instance &in : all) {
        if (in.participants < 2 || !in.selected)
            continue;
        const int64_t lead = in.last - in.second;
        const int64_t bound = c.bound[size_t(in.lastWorker)] + c.bound[size_t(in.secondWorker)];
        if (lead <= bound) {
            ++d.undecidedCount;
            if (d.undecided.size() < Diagnosis::kMaxUndecidedListed)
                d.undecided.push_back({in.nameId, in.sequence, in.lastWorker, in.secondWorker,
                                       in.last, in.second, bound, in.participants});
            continue;
        }
        in.decided = true;
        ++d.decided;
        DiagnosisRank &r = d.ranks[size_t(c.rankIndex[size_t(in.lastWorker)])];
        addSat(r.blameNs, mulSat(int64_t(in.participants - 1), lead));
        ++r.timesLast;
        d.lastArrivals[size_t(in.lastWorker)].push_back(in.last);
    }
}

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
            const Instance &in = all[index.find(e.nameId, e.sequence)];
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

void stepSummary(const Context &c, Diagnosis &d)
{
    std::vector<int64_t> durations;
    for (const DiagnosisStep &s : d.steps)
        if (s.endNs > s.beginNs && inRange(c.q, s.beginNs))
            durations.push_back(s.durationNs());
    if (durations.empty())
        return;
    int64_t sum = 0;
    for (int64_t v : durations)
        addSat(sum, v);
    d.stepMeanNs = sum / int64_t(durations.size());
    d.stepMaxNs = *std::max_element(durations.begin(), durations.end());
    d.stepP50Ns = Stats::percentile(durations, 50);
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
    {
        std::vector<float> gaps;
        passWaits(c, d, all, index, gaps);
        takeMedians(all, gaps, tl.workers.size());
    }
    blame(c, d, all);
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
