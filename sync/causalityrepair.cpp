// CausalityRepair — see causalityrepair.h.
#include "causalityrepair.h"

#include "domaingrouper.h"
#include "piecewiselinear.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace syncline::sync {

namespace {

using Constraint = CausalityRepair::Constraint;

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
        }
    }
    // The last segment keeps the original map's slope (adjustment is 0 there).
    out.back().slope = map.segmentAt(out.back().localStart).slope;
    return ClockMap(std::move(out));
}

} // namespace

std::vector<Constraint> CausalityRepair::constraints(const SyncEngineInput &input,
                                                     const std::vector<WorkerClockResult> &res) const
{
    const DomainGrouper groups(input.workers);
    std::vector<Constraint> out;
    for (const MessagePair &m : input.messages) {
        const int s = groups.indexOf(m.sendWorker), d = groups.indexOf(m.recvWorker);
        if (s >= 0 && d >= 0)
            out.push_back({s, m.sendLocal, d, m.recvLocal, m_minLatencyNs});
    }
    // Collectives: every rank's end >= the latest begin of that instance (in corrected time).
    std::map<std::pair<uint32_t, int64_t>, std::vector<const CollectiveInstance *>> inst;
    for (const CollectiveInstance &c : input.collectives)
        inst[{c.nameId, c.sequence}].push_back(&c);
    for (const auto &[key, list] : inst) {
        if (list.size() < 2)
            continue;
        int last = -1;
        int64_t lastLocal = 0, lastGlobal = INT64_MIN;
        for (const CollectiveInstance *c : list) {
            const int w = groups.indexOf(c->workerId);
            if (w < 0)
                continue;
            const int64_t g = res[size_t(w)].map.toGlobal(c->localBegin);
            if (g > lastGlobal) {
                lastGlobal = g;
                last = w;
                lastLocal = c->localBegin;
            }
        }
        for (const CollectiveInstance *c : list) {
            const int w = groups.indexOf(c->workerId);
            if (w >= 0 && w != last && last >= 0)
                out.push_back({last, lastLocal, w, c->localEnd, 0});
        }
    }
    return out;
}

CausalityReport CausalityRepair::repair(const SyncEngineInput &input,
                                        std::vector<WorkerClockResult> &results)
{
    CausalityReport rep;
    const std::vector<Constraint> cons = constraints(input, results);
    rep.constraints = int64_t(cons.size());
    const size_t nw = results.size();
    // Adjustment = up − down: `up` raises receives (CLC's forward jump with forward amortisation);
    // `down` lowers a send whose stamp lies in a flagged step gap (where the map is known to be
    // unreliable) instead of pushing the trustworthy receiver — it descends slowly before the send
    // and returns right after it, the mirror image of `up`, so the map stays increasing.
    std::vector<PiecewiseLinear> up(nw), down(nw);
    auto adjAt = [&](size_t w, double t) { return up[w].value(t) - down[w].value(t); };
    auto global = [&](int w, int64_t local) {
        return double(results[size_t(w)].map.toGlobal(local)) + adjAt(size_t(w), double(local));
    };
    auto inGap = [&](int w, int64_t local) {
        return (results[size_t(w)].map.segmentAt(local).flags & SegStepDetected) != 0;
    };
    auto violated = [&](const Constraint &c) {
        return global(c.dst, c.dstLocal) < global(c.src, c.srcLocal) + double(c.latency) - 0.5;
    };
    for (const Constraint &c : cons)
        rep.violationsBefore += violated(c) ? 1 : 0;

    // Constrained event times per worker, to start each ramp after the previous one.
    std::vector<std::vector<int64_t>> events(nw);
    for (const Constraint &c : cons) {
        events[size_t(c.src)].push_back(c.srcLocal);
        events[size_t(c.dst)].push_back(c.dstLocal);
    }
    for (auto &e : events) {
        std::sort(e.begin(), e.end());
        e.erase(std::unique(e.begin(), e.end()), e.end());
    }
    std::vector<size_t> order(cons.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return global(cons[a].dst, cons[a].dstLocal) < global(cons[b].dst, cons[b].dstLocal);
    });
    for (int pass = 0; pass < m_maxPasses; ++pass) {
        bool changed = false;
        for (size_t i : order) {
            const Constraint &c = cons[i];
            const double need = global(c.src, c.srcLocal) + double(c.latency) -
                                global(c.dst, c.dstLocal);
            if (need <= 0.0)
                continue;
            if (inGap(c.src, c.srcLocal) && !inGap(c.dst, c.dstLocal)) {
                // Descend only inside the gap (after the previous constrained event), never
                // steeper than slope 1/2, and return before the next constrained event.
                const auto &ev = events[size_t(c.src)];
                auto it = std::upper_bound(ev.begin(), ev.end(), c.srcLocal);
                const double peak = double(c.srcLocal);
                const double next = it == ev.end() ? peak + 1e6 : double(*it);
                const double prev = it - 1 == ev.begin() ? peak - 1e9 : double(*(it - 2));
                const double gapStart =
                    double(results[size_t(c.src)].map.segmentAt(c.srcLocal).localStart);
                const double depth = std::ceil(down[size_t(c.src)].value(peak) + need) + 1.0;
                const double rampStart = std::min(std::max(gapStart, prev), peak - 2.0 * depth);
                down[size_t(c.src)] = down[size_t(c.src)].maxWith(
                    PiecewiseLinear::tent(rampStart, peak, depth, 1.0)
                        .clippedAfter(std::min(next, peak + 1e6), peak));
            } else {
                const auto &ev = events[size_t(c.dst)];
                auto it = std::lower_bound(ev.begin(), ev.end(), c.dstLocal);
                const double prev = it == ev.begin() ? double(c.dstLocal) - 1e6 : double(*(it - 1));
                const double peak = double(c.dstLocal);
                const double height = std::ceil(up[size_t(c.dst)].value(peak) + need) + 1.0;
                const double rampStart = std::max(prev, peak - 1e6);
                up[size_t(c.dst)] = up[size_t(c.dst)].maxWith(
                    PiecewiseLinear::tent(rampStart, peak, height, m_decay));
            }
            changed = true;
        }
        if (!changed)
            break;
    }
    for (size_t w = 0; w < nw; ++w) {
        for (int64_t t : events[w]) {
            const double a = std::fabs(adjAt(w, double(t)));
            if (a >= 0.5) {
                ++rep.eventsMoved;
                rep.maxShiftNs = std::max(rep.maxShiftNs, int64_t(std::llround(a)));
            }
        }
        results[w].map = applyAdjustment(results[w].map, up[w], down[w]);
    }
    for (const Constraint &c : cons) {
        const int64_t gs = results[size_t(c.src)].map.toGlobal(c.srcLocal);
        const int64_t gd = results[size_t(c.dst)].map.toGlobal(c.dstLocal);
        rep.violationsAfter += gd < gs + c.latency ? 1 : 0;
    }
    return rep;
}

} // namespace syncline::sync
