// Simulator — builds a SimJob from a SimConfig: host clocks (TrueClock), the sync exchanges of
// every worker (SyncPath) and the training workload (Workload). Deterministic: the same config
// (seed included) gives a bit-identical job. Stateless; thread-safe.
#pragma once

#include "simjob.h"

namespace syncline::sim {

class Simulator
{
public:
    static SimJob run(const SimConfig &config);
};

} // namespace syncline::sim
