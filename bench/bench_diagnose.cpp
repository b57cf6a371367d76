// bench_diagnose — what `syncline diagnose` costs on a loaded job, against a baseline measured
// in the same run on the same timeline: Stats::compute (what `syncline stats` computes after
// the load). The job is a realistic simulated one (syncline-sim: {"step": N} args on every
// event, message records, 8 processes per host, a straggler), or an existing job (--dir, e.g.
// the 1,024-worker job of `make bench-scale`). Also measured: the memory the diagnosis adds to
// the process holding the loaded timeline — the peak resident size during Diagnoser::run (the
// kernel's high-water mark, reset just before it through /proc/self/clear_refs) minus the
// resident size before it — as a share of the resident size with the timeline loaded; for the
// CLI's query and for the viewer's (which adds the heat map's steps × workers cells).
// Each time is the median of --repeat runs, wall and CPU; the machine's load average is printed
// beside them (on a shared machine the CPU time is the work, the wall time what one waited).
// Usage: bench_diagnose [--workers 64] [--duration-s 60] [--seed 3] [--repeat 3] [--dir DIR]
#include "bench/simjob.h"
#include "sim/simconfig.h"
#include "timeline/load/jobloader.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/stats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Timing
{
    double wall = 0, cpu = 0;
};

double cpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

Timing timeIt(int repeat, const std::function<void()> &f)
{
    std::vector<double> walls, cpus;
    for (int i = 0; i < repeat; ++i) {
        const double c0 = cpuNow();
        const auto t0 = std::chrono::steady_clock::now();
        f();
        walls.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpus.push_back(cpuNow() - c0);
    }
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    return {walls[walls.size() / 2], cpus[cpus.size() / 2]};
}

// kB from /proc/self/status ("VmRSS", "VmHWM").
long statusKb(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::atol(line.c_str() + std::strlen(key) + 1);
    return -1;
}

bool resetPeak()
{
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    return bool(out);
}

} // namespace

int main(int argc, char **argv)
{
    int workers = 64, repeat = 3;
    double durationS = 60;
    uint64_t seed = 3;
    std::string dir;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--workers")
            workers = std::atoi(next().c_str());
        else if (a == "--duration-s")
            durationS = std::atof(next().c_str());
        else if (a == "--seed")
            seed = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--repeat")
            repeat = std::max(1, std::atoi(next().c_str()));
        else if (a == "--dir")
            dir = next();
        else {
            std::fprintf(stderr, "usage: bench_diagnose [--workers N] [--duration-s S] [--seed S] "
                                 "[--repeat N] [--dir DIR]\n");
            return 2;
        }
    }
    std::string tmp;
    if (dir.empty()) {
        tmp = (fs::temp_directory_path() / ("bench_diagnose." + std::to_string(getpid()))).string();
        syncline::sim::SimConfig cfg =
            syncline::sim::configFor(syncline::sim::Regime::Datacenter, seed, workers, durationS);
        cfg.workersPerHost = 8;
        cfg.slowRank = workers / 3;
        cfg.slowFactor = 1.3;
        syncline::bench::writeSimJob(cfg, tmp, "bench_diagnose");
        dir = tmp;
    }
    syncline::LoadOptions lo;
    lo.paths = {dir};
    const auto loaded = syncline::JobLoader::load(lo);
    if (!loaded.timeline) {
        std::fprintf(stderr, "bench_diagnose: %s: %s\n", dir.c_str(), loaded.fatalError.c_str());
        return 1;
    }
    const syncline::Timeline &tl = *loaded.timeline;
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    std::printf("bench_diagnose: %zu workers, %zu events (%s); hardware threads %zu, load %.2f\n",
                tl.workers.size(), tl.eventCount(), tmp.empty() ? dir.c_str() : "simulated",
                syncline::Stats::defaultThreads(), load[0]);
    size_t rows = 0;
    const Timing stats = timeIt(repeat, [&] { rows = syncline::Stats::compute(tl).size(); });
    syncline::Diagnosis d;
    syncline::DiagnoseQuery cli; // what `syncline diagnose` asks (no heat-map cells)
    cli.cells = false;
    const Timing diag = timeIt(repeat, [&] { d = syncline::Diagnoser::run(tl, cli); });
    d = syncline::Diagnosis();
    const long before = statusKb("VmRSS");
    const bool peakOk = resetPeak();
    d = syncline::Diagnoser::run(tl, cli);
    const long peak = statusKb("VmHWM");
    d = syncline::Diagnosis();
    const long beforeCells = statusKb("VmRSS");
    resetPeak();
    d = syncline::Diagnoser::run(tl); // the viewer's: with the steps × workers cells
    const long peakCells = statusKb("VmHWM");
    std::printf("  %-44s %9s %9s\n", "", "wall_s", "cpu_s");
    std::printf("  %-44s %9.3f %9.3f  (%zu rows)\n", "baseline: Stats::compute", stats.wall,
                stats.cpu, rows);
    std::printf("  %-44s %9.3f %9.3f  (%zu steps, %lld instances)\n", "Diagnoser::run (CLI)",
                diag.wall, diag.cpu, d.steps.size(), (long long)d.instances);
    std::printf("  diagnose / stats: wall %.2f x, cpu %.2f x\n", diag.wall / stats.wall,
                diag.cpu / stats.cpu);
    if (peakOk && before > 0 && peak > 0) {
        std::printf("  memory: resident with the timeline %.1f MB; peak during diagnose +%.1f MB "
                    "(%.1f %%)\n",
                    before / 1024.0, (peak - before) / 1024.0,
                    100.0 * double(peak - before) / double(before));
        std::printf("  memory with the heat map's cells (the viewer's query): +%.1f MB (%.1f %%)\n",
                    (peakCells - beforeCells) / 1024.0,
                    100.0 * double(peakCells - beforeCells) / double(beforeCells));
    } else
        std::printf("  memory: /proc/self/clear_refs not writable here: not measured\n");
    if (!d.culprits.empty())
        std::printf("  top culprit: rank %d (what-if step p50 %.3f ms, step p50 %.3f ms)\n",
                    d.ranks[d.culprits[0]].rank, d.ranks[d.culprits[0]].whatIfStepP50Ns / 1e6,
                    d.stepP50Ns / 1e6);
    if (!tmp.empty())
        fs::remove_all(tmp);
    return 0;
}
