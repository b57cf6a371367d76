// SimConfig — every parameter of one simulated job (clocks, sync path, workload), and the four
// named regimes of the accuracy benchmark. Units: ns unless the name says otherwise (_s, _ppm).
// Plain value type; no threading rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace syncline::sim {

enum class Regime
{
    Datacenter,
    Rdma,
    Sparse,
    Stress
};

struct SimConfig
{
    uint64_t seed = 1;
    int workers = 8;
    int workersPerHost = 1; // >1: several processes share one host clock (one clock domain)
    double durationS = 60.0;
    std::string regimeName = "datacenter";

    // Clocks (per host): θ(T) = offset + drift·T + wander + thermal sinusoid + steps.
    double maxOffsetNs = 1e9;   // offset uniform in ±this
    double maxDriftPpm = 100.0; // drift uniform in ±this
    double wanderPpm = 0.02;    // std of the frequency random walk after one hour
    double thermalPpmMin = 0.1, thermalPpmMax = 0.5; // sinusoid amplitude (frequency, ppm)
    double thermalPeriodMinS = 1200, thermalPeriodMaxS = 3600;
    double stepsPerHour = 0.0; // Poisson rate of clock steps (local jumps forward)
    double stepMinNs = 50'000, stepMaxNs = 2'000'000;

    // Sync path.
    double floorNs = 1000.0;      // = |asymmetry| / 2; asymmetry sign random per host
    double minDelayNs = 10'000.0; // smaller one-way minimum delay
    double queueMeanNs = 5'000.0; // exponential queueing, each direction
    double outlierRate = 0.01;    // probability an exchange is delayed by an outlier
    double outlierMinNs = 10'000.0, outlierMaxNs = 20'000'000.0; // log-uniform
    double readNoiseNs = 20.0;     // std of clock-read noise on t1..t4
    double serverProcNs = 2'000.0; // server time between t2 and t3 (plus exponential)
    int burstSize = 8;
    double burstIntervalS = 1.0;
    double exchangeGapNs = 100'000.0; // between exchanges of one burst

    // Workload.
    double iterationMs = 100.0; // training-step period
    double messageMinLatencyNs = 2'000.0;
    double messageQueueNs = 3'000.0;
    double collectiveEndJitterNs = 1'000.0; // ends on different ranks within this
    int slowRank = -1;       // >= 0: this rank's forward and backward take slowFactor × as long
    double slowFactor = 1.0; // (a straggler: the others wait for it in every all-reduce)
    bool writeHeartbeats = true;
};

std::optional<Regime> parseRegime(const std::string &name);
const char *regimeName(Regime r);
// The benchmark regimes: datacenter, rdma, sparse, stress.
SimConfig configFor(Regime r, uint64_t seed, int workers, double durationS);

} // namespace syncline::sim
