// Workload — see workload.h.
#include "workload.h"

#include <algorithm>
#include <cmath>

namespace syncline::sim {

namespace {
enum Name
{
    Step,
    Forward,
    Backward,
    AllReduce,
    LoadBatch
};
}

int64_t Workload::stamp(const SimJob &job, int w, double tau)
{
    return job.clocks[size_t(job.workers[size_t(w)].host)].local(tau);
}

void Workload::addEvent(SimJob &job, int w, int name, int tid, double b, double e, int64_t step)
{
    SimEvent ev;
    ev.nameId = name;
    ev.tid = tid;
    ev.trueBegin = job.refBase + int64_t(std::llround(b));
    ev.trueEnd = job.refBase + int64_t(std::llround(e));
    ev.localBegin = stamp(job, w, b);
    ev.localEnd = stamp(job, w, e);
    ev.step = step;
    job.workers[size_t(w)].events.push_back(ev);
}

void Workload::addMessage(SimJob &job, int w, double ts, int64_t k)
{
    const int to = (w + 1) % int(job.workers.size());
    const double tr = ts + m_cfg.messageMinLatencyNs + m_rng.exponential(m_cfg.messageQueueNs);
    SimMessage m;
    m.sendWorker = w;
    m.recvWorker = to;
    m.sendTrue = job.refBase + int64_t(std::llround(ts));
    m.recvTrue = job.refBase + int64_t(std::llround(tr));
    m.sendLocal = stamp(job, w, ts);
    m.recvLocal = stamp(job, to, tr);
    m.id = "grad-" + std::to_string(k) + "-" + std::to_string(w);
    job.messages.push_back(m);
}

void Workload::run(SimJob &job, double endTau)
{
    job.names = {"step", "forward", "backward", "allreduce", "load_batch"};
    const double iter = m_cfg.iterationMs * 1e6;
    double base = 0.2e9;
    for (int64_t k = 0; base + 1.2 * iter < endTau; ++k)
        base = runIteration(job, k, base);
}

double Workload::runIteration(SimJob &job, int64_t k, double base)
{
    const int n = int(job.workers.size());
    const double iter = m_cfg.iterationMs * 1e6;
    std::vector<double> start(static_cast<size_t>(n)), arBegin(start), sendAt(start);
    double lastArrival = 0.0;
    for (int w = 0; w < n; ++w) {
        start[size_t(w)] = base + m_rng.uniform(0.0, 200'000.0);
        // (the same draws with or without a slow rank: only its own durations change)
        const double slow = job.workers[size_t(w)].rank == m_cfg.slowRank ? m_cfg.slowFactor : 1.0;
        const double fwd = iter * 0.3 * m_rng.uniform(0.9, 1.1) * slow;
        const double bwd = iter * 0.5 * m_rng.uniform(0.9, 1.1) * slow;
        arBegin[size_t(w)] = start[size_t(w)] + fwd + bwd + 1000.0;
        sendAt[size_t(w)] = start[size_t(w)] + fwd + 0.5 * bwd;
        lastArrival = std::max(lastArrival, arBegin[size_t(w)]);
    }
    const double arEnd = lastArrival + iter * 0.05;
    double stepEndMax = 0.0;
    for (int w = 0; w < n; ++w) {
        SimWorker &sw = job.workers[size_t(w)];
        const double s = start[size_t(w)];
        const double end = arEnd + m_rng.uniform(0.0, m_cfg.collectiveEndJitterNs);
        const double stepEnd = end + 20'000.0;
        stepEndMax = std::max(stepEndMax, stepEnd);
        const double fwdEnd = s + (arBegin[size_t(w)] - s - 1000.0) * 0.375;
        addEvent(job, w, Step, sw.tidMain, s, stepEnd, k);
        addEvent(job, w, Forward, sw.tidMain, s + 1000.0, fwdEnd, k);
        addEvent(job, w, Backward, sw.tidMain, fwdEnd + 1000.0, arBegin[size_t(w)] - 1000.0, k);
        addEvent(job, w, AllReduce, sw.tidMain, arBegin[size_t(w)], end, k);
        const SimEvent &ar = sw.events.back();
        job.collectives.push_back({sw.rank, k, uint32_t(AllReduce), ar.localBegin, ar.localEnd});
        addEvent(job, w, LoadBatch, sw.tidLoader, s + 0.1 * iter, s + 0.25 * iter, k);
        if (n > 1)
            addMessage(job, w, sendAt[size_t(w)], k);
    }
    return stepEndMax + iter * 0.05;
}

} // namespace syncline::sim
