// SyncPath — simulates the NTP-style exchanges of one worker with the time server: one-way
// minimum delays that differ by the host's asymmetry, exponential queueing in each direction,
// rare large outliers (log-uniform), server processing time and clock-read noise on all four
// stamps. Bursts of K exchanges every P seconds, plus one burst at the end (as the recorder does).
// Not thread-safe (owns a random source).
#pragma once

#include "simconfig.h"
#include "simrandom.h"
#include "trueclock.h"

#include "sync/clocksample.h"

#include <vector>

namespace syncline::sim {

class SyncPath
{
public:
    SyncPath(const SimConfig &cfg, uint64_t seed) : m_cfg(cfg), m_rng(seed) {}

    sync::ClockSample exchange(const TrueClock &clock, double tau, int burst, int seq);
    std::vector<sync::ClockSample> run(const TrueClock &clock, double firstTau, double lastTau);

private:
    double delay(double minimum);
    SimConfig m_cfg;
    SimRandom m_rng;
};

} // namespace syncline::sim
