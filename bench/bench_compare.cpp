// bench_compare — the delta table of `syncline compare` / the viewer's Compare panel on two
// realistic runs (what syncline-sim writes: {"step": N} args on every event, message records,
// 8 processes per host, 2 ms steps), against a baseline measured in the same run on the same
// loaded timelines: Stats::compute of run A alone (the statistics of one run, what `syncline
// stats` computes). Compare::compute is a Stats pass per run plus the join by name and rank, so
// the ratio says what the comparison adds. Also timed: the anchor search (the 3rd "step" per
// rank) in both runs, CompareTimeline::combine (the viewer's A + B timeline copy), and what a
// user of the CLI waits for: `syncline compare A B` (and `--json`) end to end as a child process
// (loading both runs, correcting their clocks, the table, the output), wall and CPU.
// Loading is not part of the delta-table figure; it is timed once per run and printed beside it
// (wall and CPU), with the machine's hardware threads and load average, so every figure is
// checkable: on a shared machine the wall time is what one waited, the CPU time the work.
// Run B is run A's job with another seed, 10 % longer steps (and 10 % longer, so both runs have
// the same number of steps) and a straggler (rank 5's forward and backward 1.3× as long, so the
// others wait for it in every all-reduce): the names match and the deltas are real, per name and
// per rank. The defaults make two 10M-event runs (about 1 GB of logs each, written to a
// temporary directory and removed). Each figure is the median of --repeat runs; every run of the
// delta table is printed too.
// Usage: bench_compare [--workers 64] [--duration-s 76] [--seed 3] [--repeat 3]
//        [--dir-a DIR --dir-b DIR (existing jobs instead)] [--keep DIR]
//        [--syncline PATH (default: beside this binary; "none": skip the CLI runs)]
// (`make bench` runs it with the defaults.)
#include "bench/simjob.h"
#include "sim/joblogwriter.h"
#include "sim/simconfig.h"
#include "sim/simulator.h"
#include "timeline/load/jobloader.h"
#include "timeline/report/compare.h"
#include "timeline/report/compareanchor.h"
#include "timeline/report/comparetimeline.h"
#include "timeline/report/stats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options
{
    int workers = 64;
    double durationS = 76; // 64 workers x 76 s x ~2,075 events/s = 10.1M events per run
    uint64_t seed = 3;
    int repeat = 3;
    std::string dirA, dirB, keep, syncline;
};

void generate(const std::string &dir, const Options &o, uint64_t seed, double iterationMs,
              int slowRank)
{
    syncline::sim::SimConfig cfg = syncline::sim::configFor(
        syncline::sim::Regime::Datacenter, seed, o.workers, o.durationS * iterationMs / 2.0);
    cfg.workersPerHost = 8;
    cfg.iterationMs = iterationMs;
    cfg.slowRank = slowRank;
    cfg.slowFactor = 1.3;
    syncline::bench::writeSimJob(cfg, dir, "bench_compare");
}

std::shared_ptr<syncline::Timeline> load(const std::string &dir)
{
    syncline::LoadOptions lo;
    lo.paths = {dir};
    auto r = syncline::JobLoader::load(lo);
    if (!r.timeline) {
        std::fprintf(stderr, "bench_compare: %s: %s\n", dir.c_str(), r.fatalError.c_str());
        std::exit(1);
    }
    return r.timeline;
}

double cpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

struct Timing
{
    double wall = 0;                 // median wall seconds
    double cpu = 0;                  // median CPU seconds of the process (all its threads)
    std::vector<double> walls, cpus; // every run, in order
};

// Median wall and CPU time of `repeat` calls. On a shared, loaded machine the wall time is
// what one waited; the CPU time is the work, independent of how much of a core one got.
Timing timeIt(int repeat, const std::function<void()> &f)
{
    Timing t;
    for (int i = 0; i < repeat; ++i) {
        const auto a = Clock::now();
        const double c = cpuSeconds();
        f();
        t.cpus.push_back(cpuSeconds() - c);
        t.walls.push_back(std::chrono::duration<double>(Clock::now() - a).count());
    }
    std::vector<double> wall = t.walls, cpu = t.cpus;
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    t.wall = wall[wall.size() / 2];
    t.cpu = cpu[cpu.size() / 2];
    return t;
}

// Runs `args` as a child process, its stdout to /dev/null: wall seconds, and its CPU seconds
// (user + system of the child and its threads, from wait4). Exits when the child fails.
Timing runChild(const std::vector<std::string> &args)
{
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    const auto a = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (FILE *null = std::freopen("/dev/null", "w", stdout); !null)
            ::_exit(126);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    rusage ru{};
    if (pid < 0 || ::wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "bench_compare: %s failed (status %d)\n", args[0].c_str(), status);
        std::exit(1);
    }
    Timing t;
    t.wall = std::chrono::duration<double>(Clock::now() - a).count();
    t.cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return t;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_compare: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--workers")
            o.workers = std::atoi(next());
        else if (a == "--duration-s")
            o.durationS = std::atof(next());
        else if (a == "--seed")
            o.seed = std::strtoull(next(), nullptr, 10);
        else if (a == "--repeat")
            o.repeat = std::max(1, std::atoi(next()));
        else if (a == "--dir-a")
            o.dirA = next();
        else if (a == "--dir-b")
            o.dirB = next();
        else if (a == "--keep")
            o.keep = next();
        else if (a == "--syncline")
            o.syncline = next();
        else {
            std::fprintf(stderr, "usage: bench_compare [--workers 64] [--duration-s 76] [--seed 3] "
                                 "[--repeat 3] [--dir-a DIR --dir-b DIR] [--keep DIR] "
                                 "[--syncline PATH|none]\n");
            return 2;
        }
    }
    std::string tmp;
    if (o.dirA.empty() || o.dirB.empty()) {
        tmp = o.keep.empty()
                  ? (fs::temp_directory_path() / ("bench_compare." + std::to_string(::getpid())))
                        .string()
                  : o.keep;
        o.dirA = tmp + "/a";
        o.dirB = tmp + "/b";
        fs::create_directories(o.dirA);
        fs::create_directories(o.dirB);
        std::fprintf(stderr, "generating two runs: %d workers x %.0f s, 2 ms and 2.2 ms steps\n",
                     o.workers, o.durationS);
        generate(o.dirA, o, o.seed, 2.0, -1);
        generate(o.dirB, o, o.seed + 1, 2.2, std::min(5, o.workers - 1));
    }
    std::shared_ptr<syncline::Timeline> a, b;
    const Timing loadA = timeIt(1, [&] { a = load(o.dirA); });
    const Timing loadB = timeIt(1, [&] { b = load(o.dirB); });
    double loadAvg[3] = {0, 0, 0};
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf %lf %lf", &loadAvg[0], &loadAvg[1], &loadAvg[2]) != 3)
            loadAvg[0] = loadAvg[1] = loadAvg[2] = 0;
        std::fclose(f);
    }
    std::printf("bench_compare: run A %zu workers, %zu events; run B %zu workers, %zu events\n",
                a->workers.size(), a->eventCount(), b->workers.size(), b->eventCount());
    std::printf("  machine: %zu hardware threads, load average %.2f %.2f %.2f\n",
                syncline::Stats::defaultThreads(), loadAvg[0], loadAvg[1], loadAvg[2]);
    size_t rowsStats = 0, rowsCompare = 0, rowsSerial = 0;
    syncline::StatsQuery serial;
    serial.threads = 1;
    const Timing stats1 =
        timeIt(o.repeat, [&] { rowsSerial = syncline::Stats::compute(*a, serial).size(); });
    const Timing stats = timeIt(o.repeat, [&] { rowsStats = syncline::Stats::compute(*a).size(); });
    syncline::CompareResult result;
    const Timing compare = timeIt(o.repeat, [&] { result = syncline::Compare::compute(*a, *b); });
    rowsCompare = result.rows.size();
    const syncline::CompareAnchor anchor{"step", 3};
    int64_t shift = 0;
    const Timing anchorS = timeIt(o.repeat, [&] {
        const auto ta = anchor.find(*a, syncline::ClockMode::Corrected, nullptr);
        const auto tb = anchor.find(*b, syncline::ClockMode::Corrected, nullptr);
        shift = ta && tb ? *ta - *tb : 0;
    });
    size_t combinedEvents = 0;
    const Timing combine = timeIt(o.repeat, [&] {
        combinedEvents = syncline::CompareTimeline::combine(*a, *b, {shift, shift},
                                                            syncline::CompareLayout::Interleaved)
                             ->eventCount();
    });
    std::printf("  %-48s %9s %9s %9s\n", "", "wall_s", "cpu_s", "rows");
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "load run A (not in the delta table)", loadA.wall,
                loadA.cpu, a->eventCount());
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "load run B (not in the delta table)", loadB.wall,
                loadB.cpu, b->eventCount());
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "Stats::compute of run A, 1 thread", stats1.wall,
                stats1.cpu, rowsSerial);
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "baseline: Stats::compute of run A", stats.wall,
                stats.cpu, rowsStats);
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "Compare::compute A vs B (the delta table)",
                compare.wall, compare.cpu, rowsCompare);
    std::printf("  %-48s %9.3f %9.3f\n", "CompareAnchor step:3 in both runs", anchorS.wall,
                anchorS.cpu);
    std::printf("  %-48s %9.3f %9.3f %9zu\n", "CompareTimeline::combine (viewer copy; events)",
                combine.wall, combine.cpu, combinedEvents);
    std::printf("  delta table / one run's stats: %.2fx wall, %.2fx cpu\n  %s\n",
                compare.wall / stats.wall, compare.cpu / stats.cpu, result.summaryLine().c_str());
    std::printf("  delta table, every run (wall / cpu s):");
    for (size_t i = 0; i < compare.walls.size(); ++i)
        std::printf(" %.3f/%.3f", compare.walls[i], compare.cpus[i]);
    std::printf("\n");
    // What a user of the CLI waits for: both loads, the correction, the table, the output.
    if (o.syncline.empty())
        o.syncline = (fs::path(argv[0]).parent_path() / "syncline").string();
    if (o.syncline != "none" && fs::exists(o.syncline)) {
        const Timing cli = runChild({o.syncline, "compare", o.dirA, o.dirB, "--quiet"});
        std::printf("  %-48s %9.3f %9.3f\n", "`syncline compare A B` end to end (process)",
                    cli.wall, cli.cpu);
        const Timing json = runChild({o.syncline, "compare", o.dirA, o.dirB, "--json", "--quiet"});
        std::printf("  %-48s %9.3f %9.3f\n", "`syncline compare A B --json` end to end", json.wall,
                    json.cpu);
    } else if (o.syncline != "none") {
        std::printf("  (no %s: the CLI runs are skipped)\n", o.syncline.c_str());
    }
    std::printf("goal: delta table of two ~10M-event runs <= 2 s wall: %.3f s (%s), %.3f CPU s\n",
                compare.wall, compare.wall <= 2.0 ? "MET" : "NOT MET", compare.cpu);
    if (!tmp.empty() && o.keep.empty())
        fs::remove_all(tmp);
    return 0;
}
