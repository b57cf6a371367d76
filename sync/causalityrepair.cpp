// CausalityRepair — see causalityrepair.h.
#include "causalityrepair.h"
#include "causalityconstraints.h"

#include "domaingrouper.h"
#include "parallel.h"
#include "piecewiselinear.h"
#include "radixsort.h"
#include "saturating.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <tuple>

namespace syncline::sync {

namespace {

constexpr double kRoundingNs = 2.0;

// Whether a receive at global time d comes too early for a send at s plus the latency: exact,
// and defined for any int64 times (a log or cache may hold any).
// Knots and adjustments come from event times, which a forged cache can push past the int64
// range: every double is held at ±2^62 ns (the times' own limit) before it becomes an integer.
int64_t held(double x)
{
    constexpr double kLimit = 4611686018427387904.0; // 2^62
    return int64_t(std::isnan(x) ? 0.0 : std::clamp(x, -kLimit, kLimit));
}

bool receivesTooEarly(int64_t d, int64_t s, int64_t latency)
{
    int64_t earliest = 0;
    if (__builtin_add_overflow(s, latency, &earliest))
        return latency > 0; // past INT64_MAX: no receive is late enough; below INT64_MIN: all are
    return d < earliest;
}

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
            ts.insert(held(std::floor(kn.t)));
        // Anchor the line before the adjustment so extrapolation to the left keeps its slope.
        ts.insert(held(std::floor(k.front().t)) - 1'000'000);
        ts.insert(held(std::ceil(k.back().t)) + 1);
    }
    auto adjValue = [&](double t) { return up.value(t) - down.value(t); };
    std::vector<ClockSegment> out;
    out.reserve(ts.size());
    for (int64_t t : ts) {
        ClockSegment s = map.segmentAt(t);
        s.localStart = t;
        s.globalStart = saturatingAdd(map.toGlobal(t), held(std::round(adjValue(double(t)))));
        out.push_back(s);
    }
    for (size_t i = 0; i + 1 < out.size(); ++i) {
        ClockSegment &s = out[i];
        const ClockSegment &n = out[i + 1];
        s.slope = (double(n.globalStart) - double(s.globalStart)) /
                  (double(n.localStart) - double(s.localStart));
        const double bump = std::max(up.maxOver(double(s.localStart), double(n.localStart)),
                                     down.maxOver(double(s.localStart), double(n.localStart)));
        if (bump > 0.0) {
            s.flags |= SegRepaired;
            s.boundNs = saturatingAdd(s.boundNs, held(std::ceil(bump)));
            if (s.assumedBoundNs > 0)
                s.assumedBoundNs = saturatingAdd(s.assumedBoundNs, held(std::ceil(bump)));
        }
    }
    // The last segment keeps the original map's slope (adjustment is 0 there).
    out.back().slope = map.segmentAt(out.back().localStart).slope;
    return ClockMap(std::move(out));
}

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
                    maxShift[d] = std::max(maxShift[d], held(std::round(a)));
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
        return receivesTooEarly(results[size_t(c.dst)].map.toGlobal(c.dstLocal),
                                results[size_t(c.src)].map.toGlobal(c.srcLocal), c.latency);
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
            afterPart[t] += receivesTooEarly(d, s, c.latency) ? 1 : 0;
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
