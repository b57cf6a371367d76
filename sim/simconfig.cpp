// SimConfig — see simconfig.h.
#include "simconfig.h"

namespace syncline::sim {

std::optional<Regime> parseRegime(const std::string &name)
{
    if (name == "datacenter")
        return Regime::Datacenter;
    if (name == "rdma")
        return Regime::Rdma;
    if (name == "sparse")
        return Regime::Sparse;
    if (name == "stress")
        return Regime::Stress;
    return std::nullopt;
}

const char *regimeName(Regime r)
{
    switch (r) {
    case Regime::Datacenter:
        return "datacenter";
    case Regime::Rdma:
        return "rdma";
    case Regime::Sparse:
        return "sparse";
    case Regime::Stress:
        return "stress";
    }
    return "datacenter";
}

SimConfig configFor(Regime r, uint64_t seed, int workers, double durationS)
{
    SimConfig c;
    c.seed = seed;
    c.workers = workers;
    c.durationS = durationS;
    c.regimeName = regimeName(r);
    switch (r) {
    case Regime::Datacenter: // Ethernet, user-space server: 1 µs floor, 8 exchanges every second
        break;
    case Regime::Rdma: // kernel-bypass path: 0.1 µs floor, tiny jitter
        c.floorNs = 100.0;
        c.minDelayNs = 1'500.0;
        c.queueMeanNs = 300.0;
        c.outlierRate = 0.005;
        c.readNoiseNs = 10.0;
        c.serverProcNs = 300.0;
        c.exchangeGapNs = 10'000.0;
        break;
    case Regime::Sparse: // one burst a minute
        c.burstIntervalS = 60.0;
        break;
    case Regime::Stress: // 10 % outliers, 1 ppm wander, clock steps
        c.outlierRate = 0.10;
        c.wanderPpm = 1.0;
        c.stepsPerHour = 3.0;
        break;
    }
    return c;
}

} // namespace syncline::sim
