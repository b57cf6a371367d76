// bench_sync_accuracy — accuracy of the skew-correction engine against the simulator's ground
// truth, next to the common practice (one offset at start, one at the end, a straight line) in the
// same run. 8 workers × 1 hour, 3 seeds, four regimes (issue 4). Prints one table.
// Usage: bench_sync_accuracy [--seeds N] [--duration-s S] [--workers W]
#include "sim/accuracyevaluator.h"
#include "sim/simulator.h"
#include "sync/syncengine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace syncline;

namespace {

struct Row
{
    double p50 = 0, p99 = 0, max = 0, coverage = 1.0;
    int64_t before = 0, after = -1, stamps = 0, gapStamps = 0;
    bool hasBound = true;
    void add(const sim::AccuracyStats &s, int seeds)
    {
        p50 += s.p50Ns / seeds;       // mean over seeds
        p99 = std::max(p99, s.p99Ns); // worst seed
        max = std::max(max, s.maxNs);
        coverage = std::min(coverage, s.coverage);
        stamps += s.stamps;
        gapStamps += s.stampsInStepGaps;
    }
};

void printRow(const char *regime, const char *method, double floorNs, const Row &r)
{
    char cov[32], after[32];
    if (r.hasBound)
        std::snprintf(cov, sizeof cov, "%.4f%%", 100.0 * r.coverage);
    else
        std::snprintf(cov, sizeof cov, "-");
    if (r.after >= 0)
        std::snprintf(after, sizeof after, "%lld", static_cast<long long>(r.after));
    else
        std::snprintf(after, sizeof after, "-");
    std::printf("| %-10s | %-15s | %6.3f | %9.3f | %9.3f | %9.3f | %10.3f | %7lld | %6s | %9s |\n",
                regime, method, floorNs / 1e3, r.p50 / 1e3, r.p99 / 1e3, r.max / 1e3,
                (r.p99 - floorNs) / 1e3, static_cast<long long>(r.before), after, cov);
}

} // namespace

int main(int argc, char **argv)
{
    int seeds = 3, workers = 8;
    double duration = 3600.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seeds"))
            seeds = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--duration-s"))
            duration = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--workers"))
            workers = std::atoi(argv[i + 1]);
    }
    std::printf(
        "sync accuracy: %d workers x %.0f s simulated, %d seeds per regime; |error| of every "
        "event begin/end vs ground truth\n",
        workers, duration, seeds);
    std::printf("p50 = mean over seeds, p99/max = worst seed, excess = p99 - floor, coverage = "
                "stamps within the reported guaranteed bound (worst seed)\n");
    std::printf("stress: p50/p99/max exclude stamps inside flagged step gaps (counted below)\n\n");
    std::printf("| regime     | method          | floor  | p50 [us]  | p99 [us]  | max [us]  | "
                "excess[us] | viol.in | v.out  | coverage  |\n");
    std::printf("|------------|-----------------|--------|-----------|-----------|-----------|-----"
                "-------|---------|--------|-----------|\n");
    const sim::Regime regimes[] = {sim::Regime::Datacenter, sim::Regime::Rdma, sim::Regime::Sparse,
                                   sim::Regime::Stress};
    const auto t0 = std::chrono::steady_clock::now();
    double fitSeconds = 0;
    std::vector<std::string> notes;
    for (sim::Regime regime : regimes) {
        Row ours, common;
        common.hasBound = false;
        double floorNs = 0;
        for (int s = 0; s < seeds; ++s) {
            const sim::SimConfig cfg =
                sim::configFor(regime, uint64_t(1000 + s), workers, duration);
            sim::SimConfig c = cfg;
            c.iterationMs =
                500.0; // fewer events keep the run short; clock error does not depend on it
            const sim::SimJob job = sim::Simulator::run(c);
            floorNs = c.floorNs;
            const auto f0 = std::chrono::steady_clock::now();
            const sync::SyncEngineResult res = sync::runSyncEngine(job.engineInput());
            fitSeconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
            std::vector<sync::ClockMap> maps;
            for (const auto &w : res.workers)
                maps.push_back(w.map);
            const sim::AccuracyStats st = sim::AccuracyEvaluator::evaluate(job, maps);
            ours.add(st, seeds);
            ours.before += res.causality.violationsBefore;
            ours.after = std::max<int64_t>(ours.after, 0) + res.causality.violationsAfter;
            const sim::AccuracyStats cs =
                sim::AccuracyEvaluator::evaluate(job, sim::AccuracyEvaluator::commonPractice(job));
            common.add(cs, seeds);
            common.before += cs.violations;
            for (const std::string &n : res.notes)
                notes.push_back(std::string(sim::regimeName(regime)) + " seed " +
                                std::to_string(1000 + s) + ": " + n);
        }
        printRow(sim::regimeName(regime), "syncline", floorNs, ours);
        printRow(sim::regimeName(regime), "start+end line", floorNs, common);
        if (ours.gapStamps > 0)
            std::printf("|            | (%lld of %lld stamps in flagged step gaps)\n",
                        static_cast<long long>(ours.gapStamps),
                        static_cast<long long>(ours.stamps));
        std::fflush(stdout);
    }
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("\nviol.in = causality violations (messages + collectives) with the fitted maps; "
                "v.out = after CLC repair\n");
    std::printf("engine time %.2f s total (%.1f ms per worker-hour); wall %.1f s\n", fitSeconds,
                1e3 * fitSeconds / (double(seeds) * 4 * workers * duration / 3600.0), total);
    for (const std::string &n : notes)
        std::printf("note: %s\n", n.c_str());
    return 0;
}
