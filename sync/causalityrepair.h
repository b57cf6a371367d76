// CausalityRepair — the Controlled Logical Clock (Rabenseifner 1997; Becker, Rabenseifner & Wolf
// 2009) applied to the engine's clock maps instead of to timestamps.
//
// Constraints: a message is received at least minLatency after it was sent; a blocking
// collective's end on any rank cannot precede the latest begin across ranks. Constraints are
// visited in order of corrected receive time; when one is violated, the receiving worker's map is
// raised by exactly the missing amount at the receive, with a linear ramp up from the worker's
// previous constrained event (so that event and everything before it stay put) and a forward
// amortisation that lets the adjustment decay at `decay` ns per ns (the clock runs slightly slow
// until it is back on its fitted line) — a local piecewise-linear bump. Bumps combine by pointwise
// maximum, so the adjusted map stays continuous and strictly increasing. Passes repeat until no
// constraint is violated, within one budget: the passes share 4 x maxPasses and the adjustment's
// size is capped (16 knots per constrained event), so the repair always ends, in time linear in
// the constraints times the passes, also on constraints that contradict each other (a cycle: no
// fixpoint). It then reports converged = false, and contradictory() tells such a contradiction
// from a repair that stopped short of maps that exist. Original timestamps are never touched:
// the repair is an adjustment of the ClockMap, and the segments it touches carry SegRepaired
// (their guaranteed bound grows by the adjustment, since the repair is not itself a proof).
// Threading: one instance per call; pure.
#pragma once

#include "syncengine.h"

#include <string>
#include <vector>

namespace syncline::sync {

class CausalityRepair
{
public:
    explicit CausalityRepair(int64_t minLatencyNs = 0, double decay = 0.01, int maxPasses = 32)
        : m_minLatencyNs(minLatencyNs), m_decay(decay), m_maxPasses(maxPasses)
    {
    }

    // Adjusts results[i].map in place (results in the order of input.workers).
    CausalityReport repair(const SyncEngineInput &input, std::vector<WorkerClockResult> &results);
    // After a repair that did not converge: whether its constraints contradict each other (a
    // cycle among them: no increasing maps meet them all), checked in linear time. False when
    // maps meeting them exist and the repair stopped short of them.
    bool contradictory() const { return m_contradictory; }
    // After a repair that did not converge: which bound ended it, in words ("" after one that
    // converged) — the pass budget, the adjustment's size cap, or the rounds (each re-check
    // found constraints its own adjustments had newly violated).
    const std::string &stopReason() const { return m_stopReason; }

    struct Constraint
    {
        int src = 0; // worker index (position in input.workers)
        int64_t srcLocal = 0;
        int dst = 0;
        int64_t dstLocal = 0;
        int64_t latency = 0;
    };
    // The constraints implied by messages and collectives under the current maps.
    std::vector<Constraint> constraints(const SyncEngineInput &input,
                                        const std::vector<WorkerClockResult> &results) const;

private:
    int64_t m_minLatencyNs;
    double m_decay;
    int m_maxPasses;
    bool m_contradictory = false;
    std::string m_stopReason;
};

} // namespace syncline::sync
