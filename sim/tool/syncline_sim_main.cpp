// syncline-sim — writes a simulated job directory (logs in format v1 + ground truth).
// usage: syncline-sim --out DIR [--seed S] [--workers N] [--duration-s D]
//                     [--regime datacenter|rdma|sparse|stress] [--per-host K] [--iteration-ms M]
//                     [--slow-rank R [--slow-factor F]]  (rank R's forward/backward F× as long)
// Defaults: seed 1, 8 workers, 60 s, datacenter, 1 per host, the regime's step time, factor 1.5.
#include "sim/joblogwriter.h"
#include "sim/simulator.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace syncline::sim;

namespace {

int usage(const char *why)
{
    std::fprintf(stderr,
                 "syncline-sim: %s\nusage: syncline-sim --out DIR [--seed S] [--workers N] "
                 "[--duration-s D] [--regime datacenter|rdma|sparse|stress] [--per-host K] "
                 "[--iteration-ms M] [--slow-rank R [--slow-factor F]]\n"
                 "defaults: --seed 1 --workers 8 --duration-s 60 --regime datacenter "
                 "--per-host 1, the regime's step time, --slow-factor 1.5\n",
                 why);
    return 2;
}

bool number(const std::string &s, double &out)
{
    char *end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0';
}

} // namespace

int main(int argc, char **argv)
{
    double seed = 1, workers = 8, duration = 60, perHost = 1, iterMs = -1, slowRank = -1,
           slowFactor = 1.5;
    std::string regime = "datacenter", out;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h")
            return usage("help") == 2 ? 0 : 0;
        if (i + 1 >= argc)
            return usage(("missing value for " + a).c_str());
        const std::string v = argv[++i];
        bool ok = true;
        if (a == "--seed")
            ok = number(v, seed) && seed >= 0;
        else if (a == "--workers")
            ok = number(v, workers) && workers >= 1 && workers <= 4096;
        else if (a == "--duration-s")
            ok = number(v, duration) && duration >= 1;
        else if (a == "--per-host")
            ok = number(v, perHost) && perHost >= 1;
        else if (a == "--iteration-ms")
            ok = number(v, iterMs) && iterMs >= 1;
        else if (a == "--slow-rank")
            ok = number(v, slowRank) && slowRank >= 0 && slowRank == double(int(slowRank));
        else if (a == "--slow-factor")
            ok = number(v, slowFactor) && slowFactor > 0 && slowFactor <= 100;
        else if (a == "--regime")
            regime = v;
        else if (a == "--out")
            out = v;
        else
            return usage(("unknown option " + a).c_str());
        if (!ok)
            return usage(("bad value for " + a + ": " + v).c_str());
    }
    const auto r = parseRegime(regime);
    if (!r)
        return usage(("unknown regime " + regime).c_str());
    if (out.empty())
        return usage("--out DIR is required");
    SimConfig cfg = configFor(*r, uint64_t(seed), int(workers), duration);
    cfg.workersPerHost = int(perHost);
    if (iterMs > 0)
        cfg.iterationMs = iterMs;
    if (slowRank >= 0) {
        cfg.slowRank = int(slowRank);
        cfg.slowFactor = slowFactor;
    }
    const SimJob job = Simulator::run(cfg);
    const std::string err = JobLogWriter::write(job, out);
    if (!err.empty()) {
        std::fprintf(stderr, "syncline-sim: %s\n", err.c_str());
        return 1;
    }
    size_t events = 0, samples = 0;
    for (const SimWorker &w : job.workers) {
        events += w.events.size();
        samples += w.samples.size();
    }
    std::printf("wrote %s: %d workers, %zu events, %zu sync exchanges, %zu messages (regime %s, "
                "seed %llu)\n",
                out.c_str(), cfg.workers, events, samples, job.messages.size(), regime.c_str(),
                static_cast<unsigned long long>(cfg.seed));
    return 0;
}
