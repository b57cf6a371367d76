// bench_load — load throughput and memory of the timeline loader on a synthetic job, against
// two baselines measured in the same run on the same files:
//   (a) simdjson on-demand iterate_many over each file, touching every field of every record
//       (the practical parsing limit), and
//   (b) line-by-line nlohmann::json::parse (the naive DOM way; run on a subset of the files
//       and reported as a rate, which is what the ratio uses).
// All three use the same number of threads, one file per thread at a time.
// Two shapes, each a row: "realistic" — what syncline-sim writes ({"step": N} args on
// every event, message records, 8 processes per host, 2 ms steps; W workers × D seconds) — and
// "synthetic", the original job: W workers × N events (nested B/E steps with layers, X kernels,
// args on every 5th step, sync bursts and heartbeats, no messages). A third baseline, pread of
// the same files (page cache warm), is the I/O bound the loader is compared with.
// --dir loads an existing job directory instead (make bench-scale uses it).
// The loader row parses every log (LoadOptions::writeIndex false: no index or event store read
// or written); "loaded again" is the same job reopened, its unchanged logs decoded from the
// event stores a load wrote (written first when there are none).
// Memory: the loader runs in a child process (bench_load exec'd again, --loader-child); it
// reports VmHWM (peak) and VmRSS after load and malloc_trim, each minus the child's RSS before
// loading, divided by the events loaded.
// Usage: bench_load [--shape both|realistic|synthetic] [--workers 64] [--duration-s 42]
//        [--seed 3] [--events 150000] [--threads 0=all cores] [--keep DIR] [--dir JOB]
//        [--baselines 0|1] [--window A:B]
// --window A:B with --dir: instead of the full load, the windowed open of seconds [A, B] of the
// job (JobLoader with LoadOptions::window, in a child): time, events, peak and resident RSS, and
// whether it was decoded from the event stores.
// --shape recorded (not part of "both"): --workers recorder processes (FileTimerClient, the
// config's event_store on) record --steps realistic steps each and close, writing their logs'
// event stores; then the job's first open from those stores against the first open of the same
// logs without them, page cache warm and dropped (bench/recordedjob.h).
// --shape gzip (also part of "both"): the gzip row (bench/gzipload.h) on the real gzip'd Kineto
// trace of tests/data, or on --gz FILE: its load against the same trace inflated and `zcat`.
#include "bench/gzipload.h"
#include "bench/loadbaselines.h"
#include "bench/loaderchild.h"
#include "bench/loadjobs.h"
#include "bench/recordedjob.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <malloc.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace syncline::bench;

namespace {

struct Options
{
    int workers = 64;
    int64_t events = 150000;
    int threads = 0;
    std::string keep;
    std::string shape = "both";
    double durationS = 42;
    uint64_t seed = 3;
    std::string dir;
    bool baselines = true;
    std::string gz = std::string(SYNCLINE_SOURCE_DIR) +
                     "/tests/data/hta_ns_resolution_1rank/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    std::string window; // --window A:B
    double windowA = 0, windowB = 0;
    long long steps = 20000; // --shape recorded
};

int threadCount(const Options &o)
{
    return o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

void row(const char *what, double seconds, double mb, int64_t events)
{
    std::printf("  %-44s %9.2f %9.0f %12.3g\n", what, seconds, mb / seconds,
                double(events) / seconds);
}

// One shape: baselines, the loader in a child, and the memory figures.
void runShape(const char *shape, const std::string &dir, int threads, bool baselines)
{
    const std::vector<std::string> files = logsIn(dir);
    uint64_t bytes = 0;
    for (const auto &f : files)
        bytes += fs::file_size(f);
    const double mb = double(bytes) / 1e6;
    ::malloc_trim(0);
    preadAll(files, threads); // warm the page cache (when it fits)
    const double tRead = preadAll(files, threads);
    std::atomic<uint64_t> docs{0};
    const double tRaw = baselines ? simdjsonRaw(files, threads, docs) : 0.0;
    ::malloc_trim(0);
    // The logs parsed (nothing read from or written to the indexes and event stores), then
    // the same job loaded again as a user reopens it: every log unchanged since a load wrote
    // its store is decoded from it (a first such load writes the stores; then once more).
    const LoaderReport load = loaderInChild(dir, threads, {}, false);
    LoaderReport again = loaderInChild(dir, threads, {}, true);
    if (again.logsFromStores == 0)
        again = loaderInChild(dir, threads, {}, true);
    const int64_t ev = std::max<int64_t>(1, load.events);
    std::printf("\n%s: %zu files, %.1f MB, %.2f M events (%.0f B of log per event), %d threads\n",
                shape, files.size(), mb, double(load.events) / 1e6, double(bytes) / double(ev),
                threads);
    std::printf("  %-44s %9s %9s %12s\n", "", "seconds", "MB/s", "events/s");
    row("syncline loader (parse+nest+correct)", load.seconds, mb, load.events);
    row("pread, 4 MiB buffer (page cache warm)", tRead, mb, load.events);
    char againWhat[64];
    std::snprintf(againWhat, sizeof againWhat, "loaded again, %lld/%zu from event stores",
                  (long long)again.logsFromStores, files.size());
    row(againWhat, again.seconds, mb, again.events);
    double naiveRate = 0;
    size_t subset = 0;
    if (baselines) {
        row("(a) simdjson iterate_many, every field", tRaw, mb, load.events);
        subset = std::max<size_t>(1, std::min<size_t>(files.size(), size_t(threads) * 2));
        std::vector<std::string> some(files.begin(), files.begin() + ptrdiff_t(subset));
        uint64_t someBytes = 0;
        for (const auto &f : some)
            someBytes += fs::file_size(f);
        std::atomic<uint64_t> lines{0};
        const double tNaive = nlohmannLines(some, threads, lines);
        naiveRate = double(someBytes) / 1e6 / tNaive;
        std::printf("  %-44s %9.2f %9.0f %12s  (%zu of %zu files, rate extrapolated)\n",
                    "(b) nlohmann::json::parse per line", tNaive, naiveRate, "", subset,
                    files.size());
    }
    const double loadRate = mb / load.seconds;
    std::printf("  loader / pread              = %.2f   (goal >= 0.70)\n", loadRate / (mb / tRead));
    std::printf("  loaded again / pread        = %.2f   (CPU by stage: parse or decode %.2f s, "
                "correct %.2f s; %.2f CPU s in all)\n",
                mb / again.seconds / (mb / tRead), again.stageCpuSeconds[0],
                again.stageCpuSeconds[2] - again.stageCpuSeconds[1], again.cpuSeconds);
    if (baselines) {
        std::printf("  loader / (a) simdjson raw   = %.2f   (goal >= 0.50)\n",
                    loadRate / (mb / tRaw));
        std::printf("  loader / (b) nlohmann lines = %.1f   (goal >= 10)\n", loadRate / naiveRate);
    }
    const double peak = double(load.peakKb - load.baseKb) * 1024.0 / double(ev);
    const double after = double(load.afterKb - load.baseKb) * 1024.0 / double(ev);
    std::printf("  events loaded %lld (%lld problems)\n", (long long)load.events,
                (long long)load.problems);
    std::printf("  memory: resident after load %.1f B/event (goal <= 40), peak %.1f B/event "
                "(peak/resident %.2f, goal <= 1.30)\n",
                after, peak, peak / std::max(after, 1e-9));
    static const char *stageNames[] = {"parsed", "merged", "corrected", "indexed"};
    std::printf("  by stage (end of):");
    for (int k = 0; k < 4; ++k)
        std::printf(" %s %.2f s, resident %.1f / peak %.1f B/event;", stageNames[k],
                    load.stageSeconds[k],
                    double(load.stageRssKb[k] - load.baseKb) * 1024.0 / double(ev),
                    double(load.stageHwmKb[k] - load.baseKb) * 1024.0 / double(ev));
    std::printf("\n");
    // Where the time goes, in CPU seconds of the loading process (all its threads): on a shared
    // machine these move far less than the wall-clock stage times.
    const double *c = load.stageCpuSeconds;
    std::printf("  CPU by stage: parse %.2f s, merge %.2f s, correct %.2f s, index %.2f s; "
                "%.2f CPU s in all (%.0f ns an event)\n",
                c[0], c[1] - c[0], c[2] - c[1], c[3] - c[2], load.cpuSeconds,
                load.cpuSeconds * 1e9 / double(ev));
    // The correction stage (message pairing, collectives, the sync engine, the maps)
    // against the load of the same logs, in this run.
    const double correction = load.stageSeconds[2] - load.stageSeconds[1];
    std::printf("  correction / load           = %.3f   (correction stage %.3f s of the %.2f s "
                "load; / the rest of the load = %.3f; goal <= 0.25)\n",
                correction / load.seconds, correction, load.seconds,
                correction / std::max(load.seconds - correction, 1e-9));
    // The same in CPU time of the loading process (all its threads): on a shared machine the
    // wall-clock stage times depend on the other processes; the CPU the work took much less.
    const double correctionCpu = load.stageCpuSeconds[2] - load.stageCpuSeconds[1];
    std::printf("  correction / load, CPU      = %.3f   (correction stage %.3f CPU s of the %.2f "
                "CPU s load)\n",
                correctionCpu / std::max(load.cpuSeconds, 1e-9), correctionCpu, load.cpuSeconds);
    const Breakdown &b = load.structure;
    auto per = [ev](int64_t x) { return double(x) / double(ev); };
    std::printf(
        "  structures (capacities) %.1f B/event: times %.1f, name ids %.1f, nesting %.1f, "
        "flags %.1f, args %.1f, arg store %.2f, sync samples %.2f, links %.2f, other %.2f\n",
        per(b.total()), per(b.times), per(b.names), per(b.nesting), per(b.flags), per(b.argRefs),
        per(b.argStore), per(b.samples), per(b.links), per(b.other));
}

// --window A:B (seconds from the job's start): the windowed open, the loader in a child.
void runWindow(const std::string &dir, int threads, double a, double b)
{
    syncline::LoadWindow w;
    w.use = true;
    w.beginNs = int64_t(a * 1e9);
    w.endNs = int64_t(b * 1e9);
    const LoaderReport r = loaderInChild(dir, threads, w);
    std::printf("  window %g s to %g s of %s: %.2f s, %lld events, peak %.0f MB (%.0f MB above "
                "the process's start), resident after %.0f MB; %s, %.0f MB read\n",
                a, b, dir.c_str(), r.seconds, (long long)r.events, double(r.peakKb) / 1024.0,
                double(r.peakKb - r.baseKb) / 1024.0, double(r.afterKb) / 1024.0,
                r.fromEventStore   ? "decoded from the event stores"
                : r.readOnlyWindow ? "logs parsed for the window (no valid event store)"
                                   : "cut from a full load (no valid index or correction cache)",
                double(r.bytesRead) / 1e6);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::string(argv[1]) == "--loader-child")
        return loaderChildMain(argc, argv) == 0 ? 0 : 2;
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--workers")
            o.workers = std::atoi(argv[i + 1]);
        else if (a == "--events")
            o.events = std::atoll(argv[i + 1]);
        else if (a == "--threads")
            o.threads = std::atoi(argv[i + 1]);
        else if (a == "--keep")
            o.keep = argv[i + 1];
        else if (a == "--shape")
            o.shape = argv[i + 1];
        else if (a == "--duration-s")
            o.durationS = std::atof(argv[i + 1]);
        else if (a == "--seed")
            o.seed = uint64_t(std::atoll(argv[i + 1]));
        else if (a == "--dir")
            o.dir = argv[i + 1];
        else if (a == "--steps")
            o.steps = std::atoll(argv[i + 1]);
        else if (a == "--gz")
            o.gz = argv[i + 1];
        else if (a == "--baselines")
            o.baselines = std::string(argv[i + 1]) != "0";
        else if (a == "--window") {
            o.window = argv[i + 1];
            if (std::sscanf(argv[i + 1], "%lf:%lf", &o.windowA, &o.windowB) != 2)
                o.window = "?";
        } else {
            std::fprintf(stderr,
                         "usage: bench_load [--shape both|realistic|synthetic|recorded|gzip] [--workers N] "
                         "[--duration-s S] [--seed S] [--events N] [--threads T] [--keep DIR] "
                         "[--dir EXISTING_JOB] [--baselines 0|1] [--window A:B (s, with --dir)] "
                         "[--gz TRACE.json.gz] [--steps N (recorded)]\n");
            return 2;
        }
    }
    const int threads = threadCount(o);
    if (!o.window.empty()) {
        if (o.dir.empty() || o.window == "?") {
            std::fprintf(stderr, "bench_load: --window A:B (seconds) needs --dir JOB\n");
            return 2;
        }
        runWindow(o.dir, threads, o.windowA, o.windowB);
        return 0;
    }
    if (!o.dir.empty()) {
        runShape(o.dir.c_str(), o.dir, threads, o.baselines);
        return 0;
    }
    if (o.shape == "gzip")
        return runGzipRow(o.gz, 5) ? 0 : 1;
    std::string base = o.keep;
    if (base.empty()) {
        char tmpl[] = "/tmp/bench_load_XXXXXX";
        base = ::mkdtemp(tmpl);
    }
    if (o.shape == "recorded") {
        syncline::JobLoader::installLogStoreWriter(); // what the workers' close() runs
        runRecorded(base, o.workers, o.steps, threads, 2);
        if (o.keep.empty())
            fs::remove_all(base);
        return 0;
    }
    if (o.shape == "both" || o.shape == "realistic") {
        const std::string dir = base + "/realistic";
        fs::create_directories(dir);
        const auto g0 = Clock::now();
        generateRealistic(dir, o.seed, o.workers, o.durationS);
        std::printf("realistic shape: syncline-sim datacenter, seed %llu, %d workers x %.0f s at 2 "
                    "ms/step, 8 per host, {\"step\":N} on every event, messages (generated in "
                    "%.1f s)\n",
                    (unsigned long long)o.seed, o.workers, o.durationS,
                    std::chrono::duration<double>(Clock::now() - g0).count());
        runShape("realistic", dir, threads, o.baselines);
        if (o.keep.empty())
            fs::remove_all(dir);
    }
    if (o.shape == "both" || o.shape == "synthetic") {
        const std::string dir = base + "/synthetic";
        fs::create_directories(dir);
        std::vector<std::string> files;
        for (int w = 0; w < o.workers; ++w)
            files.push_back(dir + "/timer_events." + std::to_string(w) + ".log");
        const auto g0 = Clock::now();
        forFiles(files, threads, [&](const std::string &p) {
            const int rank = std::atoi(p.c_str() + p.find("events.") + 7);
            generateWorker(p, rank, o.workers, o.events);
        });
        std::printf("\nsynthetic shape (the old bench_load job): %d workers x %lld events, args on "
                    "every 5th step, no messages (generated in %.1f s)\n",
                    o.workers, (long long)o.events,
                    std::chrono::duration<double>(Clock::now() - g0).count());
        runShape("synthetic", dir, threads, o.baselines);
    }
    if (o.shape == "both")
        runGzipRow(o.gz, 5);
    if (o.keep.empty())
        fs::remove_all(base);
    return 0;
}
