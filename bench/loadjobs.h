// bench_load's two job shapes, written as logs into a directory: the realistic one (what
// syncline-sim writes: {"step": N} args on every event, message records, 8 processes
// per host, sync bursts, heartbeats) and the original synthetic one (nested B/E steps with
// layers, X kernels, args on every 5th step, sync bursts and heartbeats, no messages).
// Threading: plain functions; generateWorker may run on several threads for different files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace syncline::bench {

// The realistic shape: `workers` workers × `durationS` seconds at 2 ms steps (datacenter
// regime, seed `seed`), into `dir`; exits the process on a write error.
void generateRealistic(const std::string &dir, uint64_t seed, int workers, double durationS);
// One worker's log of the synthetic shape, `events` events, into `path`.
void generateWorker(const std::string &path, int rank, int workers, int64_t events);
// The .log files in `dir`, sorted.
std::vector<std::string> logsIn(const std::string &dir);

} // namespace syncline::bench
