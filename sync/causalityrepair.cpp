// CausalityRepair — see causalityrepair.h.
#include "causalityrepair.h"

#include "domaingrouper.h"
#include "parallel.h"
#include "piecewiselinear.h"
#include "radixsort.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <tuple>

namespace syncline::sync {

namespace {

using Constraint = CausalityRepair::Constraint;

constexpr double kRoundingNs = 2.0;

// map + adjustment, as a new ClockMap (adjustment rounded to ns at the knots).
ClockMap applyAdjustment(const ClockMap &map, const PiecewiseLinear &up,
                         const PiecewiseLinear &down)
{
    if (up.isZero() && down.isZero())
        return map;
    std::set<int64_t> ts;
    for (const ClockSegment &s : map.segments())
        ts.insert(s.localStart);
    for (const PiecewiseLinear *p : {&up, &down}) {
        const auto &k = p->knots();
        if (k.empty())
            continue;
        for (const auto &kn : k)
            ts.insert(int64_t(std::floor(kn.t)));
        // Anchor the line before the adjustment so extrapolation to the left keeps its slope.
        ts.insert(int64_t(std::floor(k.front().t)) - 1'000'000);
        ts.insert(int64_t(std::ceil(k.back().t)) + 1);
    }
    auto adjValue = [&](double t) { return up.value(t) - down.value(t); };
    std::vector<ClockSegment> out;
    out.reserve(ts.size());
    for (int64_t t : ts) {
        ClockSegment s = map.segmentAt(t);
        s.localStart = t;
        s.globalStart = map.toGlobal(t) + int64_t(std::llround(adjValue(double(t))));
        out.push_back(s);
    }
    for (size_t i = 0; i + 1 < out.size(); ++i) {
        ClockSegment &s = out[i];
        const ClockSegment &n = out[i + 1];
        s.slope = double(n.globalStart - s.globalStart) / double(n.localStart - s.localStart);
        const double bump = std::max(up.maxOver(double(s.localStart), double(n.localStart)),
                                     down.maxOver(double(s.localStart), double(n.localStart)));
        if (bump > 0.0) {
            s.flags |= SegRepaired;
            s.boundNs += int64_t(std::ceil(bump));
            if (s.assumedBoundNs > 0)
                s.assumedBoundNs += int64_t(std::ceil(bump));
        }
    }
    // The last segment keeps the original map's slope (adjustment is 0 there).
    out.back().slope = map.segmentAt(out.back().localStart).slope;
    return ClockMap(std::move(out));
}

// The constraints of one repair, without a copy of the messages (dense jobs have ~10^6–10^7):
// constraint i < messageCount() is message i (in input order, those whose two workers are
// known), the rest are the collectives' (made once, few). Read-only once built; thread-safe.
class ConstraintList
{
public:
    ConstraintList(const SyncEngineInput &input, const std::vector<WorkerClockResult> &res,
                   const DomainGrouper &groups, int64_t minLatencyNs)
        : m_messages(input.messages), m_latency(minLatencyNs)
    {
        // workerId → position, dense when the ids are small (they are positions, usually).
        int top = -1;
        for (const WorkerClockInput &w : input.workers)
            top = std::max(top, w.workerId);
        m_dense = top < int(4 * input.workers.size() + 64);
        if (m_dense) {
            m_indexOf.assign(size_t(top + 1), -1);
            for (int id = 0; id <= top; ++id)
                m_indexOf[size_t(id)] = groups.indexOf(id);
        }
        m_groups = &groups;
        for (size_t i = 0; i < m_messages.size(); ++i) {
            if (indexOf(m_messages[i].sendWorker) < 0 || indexOf(m_messages[i].recvWorker) < 0) {
                m_known.reserve(m_messages.size());
                for (size_t j = 0; j < m_messages.size(); ++j)
                    if (indexOf(m_messages[j].sendWorker) >= 0 &&
                        indexOf(m_messages[j].recvWorker) >= 0)
                        m_known.push_back(j);
                m_someUnknown = true;
                break;
            }
        }
        addCollectives(input, res, groups);
    }

    size_t messageCount() const { return m_someUnknown ? m_known.size() : m_messages.size(); }
    size_t size() const { return messageCount() + m_collective.size(); }
    Constraint operator[](size_t i) const
    {
        if (i >= messageCount())
            return m_collective[i - messageCount()];
        const MessagePair &m = m_messages[m_someUnknown ? m_known[i] : i];
        return {indexOf(m.sendWorker), m.sendLocal, indexOf(m.recvWorker), m.recvLocal, m_latency};
    }

private:
    int indexOf(int workerId) const
    {
        if (!m_dense)
            return m_groups->indexOf(workerId);
        return workerId >= 0 && size_t(workerId) < m_indexOf.size() ? m_indexOf[size_t(workerId)]
                                                                    : -1;
    }
    // Collectives: every rank's end >= the latest begin of that instance (in corrected time).
    // Instances grouped by (name, k) by sorting their indices (dense jobs have ~10^5–10^6).
    void addCollectives(const SyncEngineInput &input, const std::vector<WorkerClockResult> &res,
                        const DomainGrouper &groups)
    {
        const auto &cs = input.collectives;
        std::vector<uint32_t> idx(cs.size());
        for (size_t i = 0; i < idx.size(); ++i)
            idx[i] = uint32_t(i);
        std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
            return std::tie(cs[a].nameId, cs[a].sequence, a) <
                   std::tie(cs[b].nameId, cs[b].sequence, b);
        });
        for (size_t lo = 0; lo < idx.size();) {
            size_t hi = lo + 1;
            while (hi < idx.size() && cs[idx[hi]].nameId == cs[idx[lo]].nameId &&
                   cs[idx[hi]].sequence == cs[idx[lo]].sequence)
                ++hi;
            if (hi - lo >= 2) {
                int last = -1;
                int64_t lastLocal = 0, lastGlobal = INT64_MIN;
                for (size_t j = lo; j < hi; ++j) {
                    const CollectiveInstance &c = cs[idx[j]];
                    const int w = groups.indexOf(c.workerId);
                    if (w < 0)
                        continue;
                    const int64_t g = res[size_t(w)].map.toGlobal(c.localBegin);
                    if (g > lastGlobal) {
                        lastGlobal = g;
                        last = w;
                        lastLocal = c.localBegin;
                    }
                }
                for (size_t j = lo; j < hi; ++j) {
                    const CollectiveInstance &c = cs[idx[j]];
                    const int w = groups.indexOf(c.workerId);
                    if (w >= 0 && w != last && last >= 0)
                        m_collective.push_back({last, lastLocal, w, c.localEnd, 0});
                }
            }
            lo = hi;
        }
    }

    const std::vector<MessagePair> &m_messages;
    int64_t m_latency;
    const DomainGrouper *m_groups = nullptr;
    bool m_dense = false;
    std::vector<int> m_indexOf;
    bool m_someUnknown = false;
    std::vector<size_t> m_known; // only when some message names an unknown worker
    std::vector<Constraint> m_collective;
};

// How many threads a pass over n items uses: the available cores, at most one per 4,096 items.
size_t chunkThreads(size_t n)
{
    return std::clamp<size_t>(std::thread::hardware_concurrency(), 1,
                              std::max<size_t>(n / 4096, 1));
}

// The indices i in [0, n) with pred(i), ascending, tested in parallel (chunks, each thread its
// own list, joined in order).
template <class P> std::vector<size_t> parallelSelect(size_t n, P pred)
{
    const size_t threads = chunkThreads(n);
    std::vector<std::vector<size_t>> part(threads);
    runChunks(n, threads, [&](size_t t, size_t b, size_t e) {
        for (size_t i = b; i < e; ++i)
            if (pred(i))
                part[t].push_back(i);
    });
    std::vector<size_t> out = std::move(part[0]);
    for (size_t t = 1; t < threads; ++t)
        out.insert(out.end(), part[t].begin(), part[t].end());
    return out;
}

// How many i in [0, n) have pred(i), in parallel.
template <class P> int64_t parallelCount(size_t n, P pred)
{
    const size_t threads = chunkThreads(n);
    std::vector<int64_t> part(threads, 0);
    runChunks(n, threads, [&](size_t t, size_t b, size_t e) {
        for (size_t i = b; i < e; ++i)
            part[t] += pred(i) ? 1 : 0;
    });
    int64_t total = 0;
    for (int64_t c : part)
        total += c;
    return total;
}

// The adjustment being built, up − down per clock domain, and the corrected-time queries the
// repair makes through it. Workers of one clock domain read one clock and share one map: they are
// adjusted together, and a constraint inside a domain is already ordered by the shared clock.
// `up` raises receives (CLC's forward jump with forward amortisation); `down` lowers a send whose
// stamp lies in a flagged step gap (where the map is known to be unreliable) instead of pushing
// the trustworthy receiver — it descends slowly before the send and returns right after it, the
// mirror image of `up`, so the map stays increasing.
class Adjustment
{
public:
    Adjustment(const DomainGrouper &groups, std::vector<WorkerClockResult> &results,
               const ConstraintList &cons)
        : m_groups(groups), m_results(results), m_cons(cons), m_up(size_t(groups.domainCount())),
          m_down(size_t(groups.domainCount()))
    {
    }

    double global(int w, int64_t local) const
    {
        return double(m_results[size_t(w)].map.toGlobal(local)) + adjAt(dom(w), double(local));
    }
    bool violated(const Constraint &c) const
    {
        return global(c.dst, c.dstLocal) < global(c.src, c.srcLocal) + double(c.latency) - 0.5;
    }

    // needsRepair(c), for a c that did not need repair before any adjustment: false at once
    // when the adjustment is 0 at both ends (then nothing about c has changed), the two map
    // look-ups made only where it is not.
    bool newlyNeedsRepair(const Constraint &c) const
    {
        const size_t ds = dom(c.src), dd = dom(c.dst);
        if (ds == dd)
            return false;
        const double as = adjAt(ds, double(c.srcLocal)), ad = adjAt(dd, double(c.dstLocal));
        if (as == 0.0 && ad == 0.0)
            return false;
        return double(map(c.src).toGlobal(c.srcLocal)) + as + double(c.latency) + kRoundingNs -
                   (double(map(c.dst).toGlobal(c.dstLocal)) + ad) >
               0.0;
    }

    // enforce() would act on c: it lacks kRoundingNs of clearance (and spans two domains).
    bool needsRepair(const Constraint &c) const
    {
        return dom(c.src) != dom(c.dst) && global(c.src, c.srcLocal) + double(c.latency) +
                                                   kRoundingNs - global(c.dst, c.dstLocal) >
                                               0.0;
    }

    // Makes c hold with kRoundingNs of clearance; false when it already held (or lies inside
    // one domain).
    bool enforce(const Constraint &c, double decay)
    {
        // The maps are rounded to whole ns when the adjustment is applied (and the send's
        // map may be re-cut by its own adjustments): keep kRoundingNs of clearance so a
        // constraint met by a fraction of a ns here is still met after rounding.
        const double need =
            global(c.src, c.srcLocal) + double(c.latency) + kRoundingNs - global(c.dst, c.dstLocal);
        if (need <= 0.0 || dom(c.src) == dom(c.dst))
            return false;
        double rest = need;
        if (inGap(c.src, c.srcLocal) && !inGap(c.dst, c.dstLocal))
            rest = lowerSend(c, need);
        if (rest > 0.0)
            raiseReceive(c, rest, decay);
        return true;
    }

    // Constrained events moved by at least half a ns, and the largest move.
    void countMoves(CausalityReport &rep)
    {
        if (m_events.empty())
            return; // nothing was adjusted
        std::vector<int64_t> moved(m_events.size(), 0), maxShift(m_events.size(), 0);
        perDomain([&](size_t d) {
            for (int64_t t : m_events[d]) {
                const double a = std::fabs(adjAt(d, double(t)));
                if (a >= 0.5) {
                    ++moved[d];
                    maxShift[d] = std::max(maxShift[d], int64_t(std::llround(a)));
                }
            }
        });
        for (size_t d = 0; d < m_events.size(); ++d) {
            rep.eventsMoved += moved[d];
            rep.maxShiftNs = std::max(rep.maxShiftNs, maxShift[d]);
        }
    }

    bool adjusted() const { return !m_events.empty(); }

    // The adjustment grew past what meeting the constraints needs (a few knots per constrained
    // event): raises that keep covering one another, which only contradicting constraints make.
    bool overBudget() const
    {
        for (size_t d = 0; d < m_events.size(); ++d)
            if (m_up[d].knotCount() + m_down[d].knotCount() > 16 * m_events[d].size() + 1024)
                return true;
        return false;
    }

    // Each worker's map re-cut through its domain's adjustment, the workers spread over the
    // available cores one at a time (each is thousands of knots).
    void applyToMaps()
    {
        eachOnCores(m_results.size(), [&](size_t w) {
            m_results[w].map =
                applyAdjustment(m_results[w].map, m_up[dom(int(w))], m_down[dom(int(w))]);
        });
    }

private:
    size_t dom(int w) const { return size_t(m_groups.domainOf(size_t(w))); }
    // fn(d) for every domain, the domains spread over the available cores.
    template <class F> void perDomain(F fn) const { eachOnCores(m_events.size(), fn); }
    // fn(i) for i in [0, n), one item at a time to whichever core is free.
    template <class F> static void eachOnCores(size_t n, F fn) { parallelFor(n, fn); }
    // Constrained event times per domain, to start each ramp after the previous one; built when
    // the first adjustment is made (most dense-message jobs need none).
    const std::vector<int64_t> &events(size_t d)
    {
        if (m_events.empty()) {
            const size_t domains = size_t(m_groups.domainCount());
            std::vector<size_t> n(domains, 0);
            for (size_t i = 0; i < m_cons.size(); ++i) {
                const Constraint c = m_cons[i];
                ++n[dom(c.src)];
                ++n[dom(c.dst)];
            }
            m_events.resize(domains);
            for (size_t e = 0; e < domains; ++e)
                m_events[e].reserve(n[e]);
            for (size_t i = 0; i < m_cons.size(); ++i) {
                const Constraint c = m_cons[i];
                m_events[dom(c.src)].push_back(c.srcLocal);
                m_events[dom(c.dst)].push_back(c.dstLocal);
            }
            perDomain([&](size_t e) {
                auto &ev = m_events[e];
                // (the order of int64 is that of the offset-binary bits)
                radixSort(ev.begin(), ev.end(),
                          [](int64_t t) { return uint64_t(t) ^ (uint64_t(1) << 63); });
                ev.erase(std::unique(ev.begin(), ev.end()), ev.end());
            });
        }
        return m_events[d];
    }
    double adjAt(size_t d, double t) const { return m_up[d].value(t) - m_down[d].value(t); }
    const ClockMap &map(int w) const { return m_results[size_t(w)].map; }
    bool inGap(int w, int64_t local) const
    {
        return (map(w).segmentAt(local).flags & SegStepDetected) != 0;
    }
    double segmentEnd(int w, int64_t local) const
    {
        const auto &segs = map(w).segments();
        auto it =
            std::upper_bound(segs.begin(), segs.end(), local,
                             [](int64_t v, const ClockSegment &s) { return v < s.localStart; });
        return it == segs.end() ? double(INT64_MAX) : double(it->localStart);
    }

    // Lowers the send (in a step gap) by up to its guaranteed bound — the truth is inside it;
    // returns what remains for the receiver. Bounded, so the passes converge.
    double lowerSend(const Constraint &c, double need)
    {
        const size_t ds = dom(c.src);
        const double room =
            double(map(c.src).segmentAt(c.srcLocal).boundNs) + adjAt(ds, double(c.srcLocal));
        const double take = std::max(0.0, std::min(need, room));
        // Descend only inside the gap (after the previous constrained event), never
        // steeper than slope 1/2, and return before the next constrained event.
        const auto &ev = events(ds);
        auto it = std::upper_bound(ev.begin(), ev.end(), c.srcLocal);
        const double peak = double(c.srcLocal);
        const double next = it == ev.end() ? peak + 1e6 : double(*it);
        const double prev = it - 1 == ev.begin() ? peak - 1e9 : double(*(it - 2));
        const double gapStart = double(map(c.src).segmentAt(c.srcLocal).localStart);
        const double depth = std::ceil(m_down[ds].value(peak) + take) + 1.0;
        const double rampStart = std::min(std::max(gapStart, prev), peak - 2.0 * depth);
        if (take > 0.0)
            m_down[ds].maxWithInPlace(PiecewiseLinear::tent(rampStart, peak, depth, 1.0)
                                          .clippedAfter(std::min(next, peak + 1e6), peak));
        return need - take;
    }

    // Raises the receive by `rest`: a ramp from the previous constrained event (at most 1 ms
    // long) and a decay after it.
    void raiseReceive(const Constraint &c, double rest, double decay)
    {
        const size_t dd = dom(c.dst);
        const auto &ev = events(dd);
        auto it = std::lower_bound(ev.begin(), ev.end(), c.dstLocal);
        const double prev = it == ev.begin() ? double(c.dstLocal) - 1e6 : double(*(it - 1));
        const double peak = double(c.dstLocal);
        const double height = std::ceil(m_up[dd].value(peak) + rest) + 1.0;
        const double rampStart = std::max(prev, peak - 1e6);
        // Inside a step gap, let the bump die out before the gap ends so it cannot
        // leak into the trustworthy segments after it.
        if (inGap(c.dst, c.dstLocal)) {
            const double room = segmentEnd(c.dst, c.dstLocal) - peak;
            if (room > 2.0 * height)
                decay = std::max(decay, height / room);
        }
        m_up[dd].maxWithInPlace(PiecewiseLinear::tent(rampStart, peak, height, decay));
    }

    const DomainGrouper &m_groups;
    std::vector<WorkerClockResult> &m_results;
    const ConstraintList &m_cons;
    std::vector<PiecewiseLinear> m_up, m_down;
    std::vector<std::vector<int64_t>> m_events;
};

// Whether the constraints contradict each other: no increasing maps meet them all exactly when
// the graph of constrained instants (each domain's in local-time order, one after the next,
// plus an edge send -> receive per constraint across domains) has a cycle; without one, the
// instants in topological order, spaced by the latencies, are maps that meet every constraint.
// Kahn's algorithm: linear in the instants and constraints. Constraints inside one domain are
// ordered by its shared clock and left out, as the repair leaves them.
bool constraintsContradict(const DomainGrouper &groups, const ConstraintList &cons)
{
    const size_t domains = size_t(groups.domainCount());
    auto dom = [&](int w) { return size_t(groups.domainOf(size_t(w))); };
    std::vector<std::vector<int64_t>> times(domains);
    for (size_t i = 0; i < cons.size(); ++i) {
        const Constraint c = cons[i];
        if (dom(c.src) == dom(c.dst))
            continue;
        times[dom(c.src)].push_back(c.srcLocal);
        times[dom(c.dst)].push_back(c.dstLocal);
    }
    std::vector<size_t> base(domains + 1, 0);
    for (size_t d = 0; d < domains; ++d) {
        std::sort(times[d].begin(), times[d].end());
        times[d].erase(std::unique(times[d].begin(), times[d].end()), times[d].end());
        base[d + 1] = base[d] + times[d].size();
    }
    const size_t n = base[domains];
    auto node = [&](size_t d, int64_t t) {
        return base[d] +
               size_t(std::lower_bound(times[d].begin(), times[d].end(), t) - times[d].begin());
    };
    // Constraint edges as adjacency lists in one array (offsets per node); an instant's
    // successor in its own domain is the next node, unless it is its domain's last.
    std::vector<size_t> first(n + 1, 0), indegree(n, 0);
    std::vector<std::pair<size_t, size_t>> edges;
    edges.reserve(cons.size());
    for (size_t i = 0; i < cons.size(); ++i) {
        const Constraint c = cons[i];
        if (dom(c.src) == dom(c.dst))
            continue;
        edges.emplace_back(node(dom(c.src), c.srcLocal), node(dom(c.dst), c.dstLocal));
        ++first[edges.back().first + 1];
        ++indegree[edges.back().second];
    }
    for (size_t v = 0; v < n; ++v)
        first[v + 1] += first[v];
    std::vector<size_t> to(edges.size()), fill(first.begin(), first.end() - 1);
    for (const auto &[a, b] : edges)
        to[fill[a]++] = b;
    std::vector<bool> last(n, false);
    for (size_t d = 0; d < domains; ++d) {
        if (base[d + 1] > base[d])
            last[base[d + 1] - 1] = true;
        for (size_t v = base[d] + 1; v < base[d + 1]; ++v)
            ++indegree[v];
    }
    std::vector<size_t> ready;
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            ready.push_back(v);
    size_t done = 0;
    auto release = [&](size_t v) {
        if (--indegree[v] == 0)
            ready.push_back(v);
    };
    while (!ready.empty()) {
        const size_t v = ready.back();
        ready.pop_back();
        ++done;
        if (!last[v])
            release(v + 1);
        for (size_t e = first[v]; e < first[v + 1]; ++e)
            release(to[e]);
    }
    return done < n;
}

} // namespace

std::vector<Constraint>
CausalityRepair::constraints(const SyncEngineInput &input,
                             const std::vector<WorkerClockResult> &res) const
{
    const DomainGrouper groups(input.workers);
    const ConstraintList list(input, res, groups, m_minLatencyNs);
    std::vector<Constraint> out;
    out.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i)
        out.push_back(list[i]);
    return out;
}

CausalityReport CausalityRepair::repair(const SyncEngineInput &input,
                                        std::vector<WorkerClockResult> &results)
{
    CausalityReport rep;
    const DomainGrouper groups(input.workers);
    const ConstraintList cons(input, results, groups, m_minLatencyNs);
    rep.constraints = int64_t(cons.size());
    Adjustment adj(groups, results, cons);
    // Visited in order of corrected receive time under the fitted maps (before any adjustment
    // global() is the map itself; the maps change only at the end). With dense messages there
    // are ~10^6 constraints and usually few near violation: they are found in parallel, and
    // only theirs (receive time, index) are kept.
    auto receiveTime = [&](const Constraint &c) {
        return double(results[size_t(c.dst)].map.toGlobal(c.dstLocal));
    };
    auto violatedNow = [&](size_t i) { // before any adjustment
        const Constraint c = cons[i];
        return results[size_t(c.dst)].map.toGlobal(c.dstLocal) <
               results[size_t(c.src)].map.toGlobal(c.srcLocal) + c.latency;
    };
    // One pass: the violations before, those after when nothing is adjusted (the maps are
    // then unchanged), and the constraints near violation (lacking kRoundingNs of clearance,
    // across domains) — each thread its chunk, joined in order.
    const size_t threads = chunkThreads(cons.size());
    std::vector<std::vector<size_t>> nearPart(threads);
    std::vector<int64_t> beforePart(threads, 0), afterPart(threads, 0);
    runChunks(cons.size(), threads, [&](size_t t, size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
            const Constraint c = cons[i];
            const int64_t s = results[size_t(c.src)].map.toGlobal(c.srcLocal);
            const int64_t d = results[size_t(c.dst)].map.toGlobal(c.dstLocal);
            const double gs = double(s), gd = double(d);
            beforePart[t] += gd < gs + double(c.latency) - 0.5 ? 1 : 0;
            afterPart[t] += d < s + c.latency ? 1 : 0;
            if (groups.domainOf(size_t(c.src)) != groups.domainOf(size_t(c.dst)) &&
                gs + double(c.latency) + kRoundingNs - gd > 0.0)
                nearPart[t].push_back(i);
        }
    });
    int64_t afterIfUnadjusted = 0;
    for (size_t t = 0; t < threads; ++t) {
        rep.violationsBefore += beforePart[t];
        afterIfUnadjusted += afterPart[t];
    }
    using Visit = std::pair<double, size_t>; // (corrected receive time, constraint)
    auto byTime = [](const Visit &a, const Visit &b) { return a.first < b.first; };
    std::vector<Visit> order;
    for (const std::vector<size_t> &part : nearPart)
        for (size_t i : part)
            order.emplace_back(receiveTime(cons[i]), i);
    std::vector<std::vector<size_t>>().swap(nearPart);
    std::sort(order.begin(), order.end(), byTime);
    // Only constraints near violation are visited: a repair raises receives (and lowers sends in
    // step gaps) locally; a constraint far from violation may be disturbed by that, so after the
    // passes every constraint is checked again and the loop repeats with the newly violated ones.
    // Bounded: constraints that contradict each other (a cycle: A's receive must follow B's
    // send, which must follow A's later send...) have no fixpoint, and each pass would raise
    // the maps again (and add knots) forever. Every pass counts against one budget across the
    // rounds, and the adjustment's size is capped; reaching either ends the repair as not
    // converged (CausalityReport::converged, a note from the engine).
    const int passBudget = 4 * m_maxPasses;
    bool converged = order.empty();
    m_stopReason = "each of its " + std::to_string(m_maxPasses) +
                   " re-checks found constraints its adjustments had newly violated";
    for (int round = 0; round < m_maxPasses && !order.empty(); ++round) {
        bool changed = true;
        while (changed && rep.passes < passBudget && !adj.overBudget()) {
            changed = false;
            ++rep.passes;
            for (const Visit &v : order)
                changed = adj.enforce(cons[v.second], m_decay) || changed;
        }
        if (changed) { // a budget ran out: not converged
            m_stopReason = adj.overBudget()
                               ? "its adjustment reached the size cap (16 knots per constrained "
                                 "event)"
                               : "its budget of " + std::to_string(passBudget) + " passes ran out";
            break;
        }
        // (a constraint near violation before any adjustment is in `order` already)
        const std::vector<size_t> more =
            parallelSelect(cons.size(), [&](size_t i) { return adj.newlyNeedsRepair(cons[i]); });
        if (more.empty()) {
            converged = true;
            break;
        }
        for (size_t i : more)
            order.emplace_back(receiveTime(cons[i]), i);
        std::sort(order.begin(), order.end(),
                  [](const Visit &a, const Visit &b) { return a.second < b.second; });
        order.erase(
            std::unique(order.begin(), order.end(),
                        [](const Visit &a, const Visit &b) { return a.second == b.second; }),
            order.end());
        std::sort(order.begin(), order.end(), byTime);
    }
    rep.converged = converged;
    if (converged)
        m_stopReason.clear();
    // Why it did not converge: constraints that no clock meets, or a repair that stopped short
    // of maps that exist.
    m_contradictory = !converged && constraintsContradict(groups, cons);
    adj.countMoves(rep);
    if (adj.adjusted()) {
        adj.applyToMaps();
        rep.violationsAfter = parallelCount(cons.size(), violatedNow);
    } else {
        rep.violationsAfter = afterIfUnadjusted;
    }
    return rep;
}

} // namespace syncline::sync
