// Diagnoser's stages (report/diagnosis.h): the state they share and the functions of each
// stage — the steps (diagnosissteps.cpp), the collective instances and their waits
// (diagnosiswaits.cpp); the what-if, the critical path and the run itself are in
// diagnosis.cpp. Internal to the report stage: nothing outside Diagnoser includes it.
// Threading: as Diagnoser — a Context is read by the threads of one run, each writing only its
// own workers' results.
#pragma once

#include "timeline/model/collectiveinstances.h"
#include "timeline/report/diagnosis.h"

#include "sync/parallel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncline::diagnosis_detail {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Sums of times held at the int64 limits: times are within ±2^62 ns (the parser's rule), but
// sums and (n − 1) × a lead of hostile ones are not.
inline void addSat(int64_t &sum, int64_t v)
{
    if (__builtin_add_overflow(sum, v, &sum))
        sum = v > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t mulSat(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        return (a > 0) == (b > 0) ? std::numeric_limits<int64_t>::max()
                                  : std::numeric_limits<int64_t>::min();
    return out;
}

// A float sum of times as int64 (clamped: a float past 2^63 does not convert).
inline int64_t toNs(double v)
{
    if (!(v < 9.2e18))
        return std::numeric_limits<int64_t>::max();
    return v > -9.2e18 ? int64_t(v) : std::numeric_limits<int64_t>::min();
}
inline constexpr double kMinSavedShare = 0.01; // a culprit's what-if saves ≥ 1 % of the step time

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
    uint32_t key = 0; // CollectiveEvent::key
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

inline bool inRange(const DiagnoseQuery &q, int64_t t)
{
    return !q.useRange || (t >= q.beginNs && t <= q.endNs);
}

inline bool complete(const EventTrack &t, size_t i)
{
    return !(t.flags[i] & (EventOpen | EventInstant));
}

// The collective instances' dense indices, per instance key (CollectiveEvent::key, sequence):
// by name, (generation, k) in a dense list; by process group, a hash (sequence numbers may start
// anywhere and need not be dense).
class InstanceIndex
{
public:
    // The instance of (key, sequence), added when new (named `nameId`).
    size_t of(uint32_t key, int64_t sequence, uint32_t nameId, std::vector<Instance> &all)
    {
        int64_t *slot = nullptr;
        if (key & CollectiveInstances::kGroupKey) {
            slot = &m_groups.try_emplace({key, sequence}, -1).first->second;
        } else {
            std::vector<int64_t> &slots =
                m_slots[{key, sequence >> CollectiveInstances::kGenerationShift}];
            const size_t k = size_t(sequence & CollectiveInstances::kIndexMask);
            if (k >= slots.size())
                slots.resize(k + 1, -1);
            slot = &slots[k];
        }
        if (*slot < 0) {
            *slot = int64_t(all.size());
            Instance inst;
            inst.nameId = nameId;
            inst.sequence = sequence;
            inst.key = key;
            all.push_back(inst);
        }
        return size_t(*slot);
    }

    // The instance of (key, sequence), which must exist.
    size_t find(uint32_t key, int64_t sequence) const
    {
        if (key & CollectiveInstances::kGroupKey)
            return size_t(m_groups.at({key, sequence}));
        const std::vector<int64_t> &slots =
            m_slots.at({key, sequence >> CollectiveInstances::kGenerationShift});
        return size_t(slots[size_t(sequence & CollectiveInstances::kIndexMask)]);
    }

private:
    struct KeyHash
    {
        size_t operator()(const std::pair<uint32_t, int64_t> &k) const
        {
            return std::hash<int64_t>()(k.second * 1000003 + k.first);
        }
    };
    std::map<std::pair<uint32_t, int64_t>, std::vector<int64_t>> m_slots;
    std::unordered_map<std::pair<uint32_t, int64_t>, int64_t, KeyHash> m_groups;
};

// Worker w's collective events with their global begins (and ends), mapped in one batch (the
// map's segment cursor: the begins are ascending) instead of a search per time.
struct MappedCollectives
{
    std::vector<CollectiveEvent> events;
    std::vector<int64_t> begin, end;
};

// --- steps (diagnosissteps.cpp) ---

// Per name id, the step key id it folds to (-1: never a step); keys gets the keys' text.
std::vector<int> stepKeys(const Context &c, std::vector<std::string> &keys);
// The step key: the query's, the config's step kind, or the detected one (-1 when none).
int chooseStep(const Context &c, const std::vector<int> &keyOf,
               const std::vector<std::string> &keys);
void collectSteps(Context &c, const std::vector<int> &keyOf, int key);
void buildSteps(Context &c, Diagnosis &d);
void stepSummary(const Context &c, Diagnosis &d);
int64_t stepAt(const Context &c, size_t w, int64_t localT, size_t &cursor);
int64_t stepBeginLocal(const Context &c, size_t w, int64_t step);

// --- collective instances and waits (diagnosiswaits.cpp) ---

std::vector<CollectiveEvent> collectivesOf(const Context &c, size_t w);
MappedCollectives mappedCollectives(const Context &c, size_t w, bool ends);
void passArrivals(Context &c, std::vector<Instance> &all, InstanceIndex &index);
// rows: with DiagnoseQuery::arrivals, per worker its arrivals at the selected instances of two
// or more participants (Arrival::instance indexes `all` until listArrivals).
void passWaits(Context &c, Diagnosis &d, std::vector<Instance> &all, InstanceIndex &index,
               std::vector<float> &gaps, std::vector<std::vector<Diagnosis::Arrival>> &rows);
void takeMedians(std::vector<Instance> &all, const std::vector<float> &gaps, size_t W);
void blame(Context &c, Diagnosis &d, std::vector<Instance> &all);
// After blame: Diagnosis::instanceList and ::arrivals from the rows of passWaits (freed).
void listArrivals(const Context &c, Diagnosis &d, const std::vector<Instance> &all,
                  std::vector<std::vector<Diagnosis::Arrival>> &rows);

} // namespace syncline::diagnosis_detail
