// Diagnoser's collective instances: each worker's arrivals, each instance's last and second
// last arriver, waits, the compute gaps and their medians, blame (diagnosisdetail.h).
#include "timeline/report/diagnosisdetail.h"

#include <cmath>

namespace syncline::diagnosis_detail {

std::vector<CollectiveEvent> collectivesOf(const Context &c, size_t w)
{
    // A failed instance (a peer crashed during it) waited for nobody: not an instance here.
    std::vector<CollectiveEvent> v = CollectiveInstances::of(c.tl, w, c.generation[w], c.collective);
    std::erase_if(v, [](const CollectiveEvent &e) { return e.failed; });
    return v;
}

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
        uint32_t key, nameId;
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
                lists[j].push_back({m.events[k].key, m.events[k].nameId, m.events[k].sequence, m.begin[k], m.end[k],
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
                Instance &in = all[index.of(e.key, e.sequence, e.nameId, all)];
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
               std::vector<float> &gaps, std::vector<std::vector<Diagnosis::Arrival>> &rows)
{
    const size_t W = c.tl.workers.size();
    gaps.assign(all.size() * W, kNaN);
    rows.assign(c.q.arrivals ? W : 0, {});
    // Per worker (each thread writes only its workers' entries, its workers' gap and cell
    // columns, and the fields of the instances its worker was last at); summed per rank below.
    std::vector<int64_t> waitNs(W, 0), instances(W, 0);
    c.forEachWorker([&](size_t w) {
        size_t cursor = 0;
        int64_t prevStep = -2, prevEndLocal = 0;
        bool havePrev = false;
        const MappedCollectives m = mappedCollectives(c, w, c.q.arrivals);
        for (size_t k = 0; k < m.events.size(); ++k) {
            const CollectiveEvent &e = m.events[k];
            const size_t i = index.find(e.key, e.sequence);
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
                if (c.q.arrivals) // instance: `all`'s index until listArrivals
                    rows[w].push_back({uint32_t(i), uint32_t(w), e.track, e.index, a, m.end[k],
                                       wait});
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
                d.undecided.push_back({in.nameId, in.sequence, in.key, false, in.lastWorker,
                                       in.secondWorker, in.last, in.second, bound,
                                       in.participants});
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

void listArrivals(const Context &c, Diagnosis &d, const std::vector<Instance> &all,
                  std::vector<std::vector<Diagnosis::Arrival>> &rows)
{
    if (rows.empty())
        return;
    std::vector<uint32_t> listed(all.size(), UINT32_MAX);
    size_t n = 0;
    for (const std::vector<Diagnosis::Arrival> &r : rows)
        n += r.size();
    d.arrivals.reserve(n);
    // Instances in the order first seen (workers in order, each by begin): `all`'s order.
    for (size_t i = 0; i < all.size(); ++i) {
        const Instance &in = all[i];
        if (in.participants < 2 || !in.selected)
            continue;
        listed[i] = uint32_t(d.instanceList.size());
        const int64_t bound = c.bound[size_t(in.lastWorker)] + c.bound[size_t(in.secondWorker)];
        d.instanceList.push_back({in.nameId, in.sequence, in.key, in.decided, in.lastWorker,
                                  in.secondWorker, in.last, in.second, bound, in.participants});
    }
    for (std::vector<Diagnosis::Arrival> &r : rows) {
        for (Diagnosis::Arrival &a : r) {
            a.instance = listed[a.instance];
            d.arrivals.push_back(a);
        }
        std::vector<Diagnosis::Arrival>().swap(r);
    }
    std::stable_sort(d.arrivals.begin(), d.arrivals.end(),
                     [](const Diagnosis::Arrival &a, const Diagnosis::Arrival &b) {
                         return a.instance < b.instance;
                     });
}

} // namespace syncline::diagnosis_detail
