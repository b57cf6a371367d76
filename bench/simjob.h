// simjob.h — the benchmarks' one way to write a simulated job directory: run the simulator on
// `cfg` and write its logs into `dir`, or print why not (prefixed with the benchmark's name) and
// exit 1. Shared by bench_load (the realistic shape) and bench_compare (its two runs).
#pragma once

#include "sim/joblogwriter.h"
#include "sim/simulator.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace syncline::bench {

inline void writeSimJob(const syncline::sim::SimConfig &cfg, const std::string &dir,
                        const char *who)
{
    const syncline::sim::SimJob job = syncline::sim::Simulator::run(cfg);
    const std::string err = syncline::sim::JobLogWriter::write(job, dir);
    if (!err.empty()) {
        std::fprintf(stderr, "%s: %s\n", who, err.c_str());
        std::exit(1);
    }
}

} // namespace syncline::bench
