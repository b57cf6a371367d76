// Simulator and SimJob::engineInput — see simulator.h and simjob.h.
#include "simulator.h"

#include "syncpath.h"
#include "workload.h"

#include <cstdio>

namespace syncline::sim {

SimJob Simulator::run(const SimConfig &cfg)
{
    SimJob job;
    job.config = cfg;
    SimRandom rng(cfg.seed);
    job.refBase = 1'000'000'000'000 + int64_t(rng.uniform(0.0, 1e12)); // server uptime 17–33 min
    const int perHost = std::max(1, cfg.workersPerHost);
    const int hosts = (cfg.workers + perHost - 1) / perHost;
    for (int h = 0; h < hosts; ++h) {
        job.clocks.emplace_back(cfg, job.refBase, rng);
        job.clocks.back().setAsymmetry((rng.chance(0.5) ? 2.0 : -2.0) * cfg.floorNs);
        char host[32], boot[64];
        std::snprintf(host, sizeof host, "node-%02d", h);
        std::snprintf(boot, sizeof boot, "%08llx-sim-boot-%04d",
                      static_cast<unsigned long long>(rng.next() & 0xffffffffu), h);
        job.hostNames.push_back(host);
        job.bootIds.push_back(boot);
    }
    const double endTau = cfg.durationS * 1e9;
    for (int w = 0; w < cfg.workers; ++w) {
        SimWorker sw;
        sw.rank = w;
        sw.host = w / perHost;
        sw.localRank = w % perHost;
        sw.pid = 40000 + w * 17;
        sw.tidMain = sw.pid;
        sw.tidLoader = sw.pid + 1;
        const TrueClock &clock = job.clocks[size_t(sw.host)];
        sw.startLocal = clock.local(0.0);
        sw.endLocal = clock.local(endTau);
        SyncPath path(cfg, cfg.seed * 1000003u + uint64_t(w) * 7919u + 1u);
        sw.samples = path.run(clock, 0.05e9, endTau - 0.05e9);
        job.workers.push_back(std::move(sw));
    }
    Workload(cfg, cfg.seed * 2654435761u + 12345u).run(job, endTau - 0.1e9);
    return job;
}

sync::SyncEngineInput SimJob::engineInput(bool withSamples) const
{
    sync::SyncEngineInput in;
    for (const SimWorker &w : workers) {
        sync::WorkerClockInput wi;
        wi.workerId = w.rank;
        wi.rank = w.rank;
        wi.host = hostNames[size_t(w.host)];
        wi.bootId = bootIds[size_t(w.host)];
        wi.clockSource = "monotonic_raw";
        wi.refId = refId;
        if (withSamples)
            wi.samples = w.samples;
        wi.firstLocalNs = w.startLocal;
        wi.lastLocalNs = w.endLocal;
        in.workers.push_back(std::move(wi));
    }
    in.collectives = collectives;
    for (const SimMessage &m : messages)
        in.messages.push_back({m.sendWorker, m.sendLocal, m.recvWorker, m.recvLocal});
    in.options.minMessageLatencyNs = 0;
    return in;
}

} // namespace syncline::sim
