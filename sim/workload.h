// Workload — the simulated training loop, in true time, stamped with each worker's local clock.
//
// Every iteration each rank runs step ⊃ {forward, backward, allreduce} on its main thread and a
// load_batch on a data-loader thread. Ranks start an iteration with up to 200 µs of skew, compute
// for ~30 % + ~50 % of the period (±10 %), then enter an all-reduce: it ends on every rank within
// collectiveEndJitter of one instant after the last rank arrives (stragglers wait; ends line up).
// During backward each rank sends one message to the next rank (latency ≥ messageMinLatency).
// Not thread-safe (owns a random source).
#pragma once

#include "simjob.h"
#include "simrandom.h"

namespace syncline::sim {

class Workload
{
public:
    Workload(const SimConfig &cfg, uint64_t seed) : m_cfg(cfg), m_rng(seed) {}

    // Fills job.workers[*].events, job.messages, job.collectives, job.names for τ in [0, endTau).
    void run(SimJob &job, double endTau);

private:
    // One iteration of every rank from about true time `base` (ns); returns the next one's base.
    double runIteration(SimJob &job, int64_t k, double base);
    // One event of worker w between true times b and e, stamped with its host's clock.
    static void addEvent(SimJob &job, int w, int name, int tid, double b, double e, int64_t step);
    // The message w sends to the next rank at true time ts of iteration k.
    void addMessage(SimJob &job, int w, double ts, int64_t k);
    static int64_t stamp(const SimJob &job, int w, double tau);

    SimConfig m_cfg;
    SimRandom m_rng;
};

} // namespace syncline::sim
