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
    SimConfig m_cfg;
    SimRandom m_rng;
};

} // namespace syncline::sim
