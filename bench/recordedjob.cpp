#include "bench/recordedjob.h"

#include "bench/loaderchild.h"
#include "recorder/filetimerclient.h"
#include "timeline/load/jobloader.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace syncline::bench {

namespace {

double processCpu()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// One worker, in a fork child: records and closes, then writes "RECORD_CPU CLOSE_CPU BYTES" to
// `out`. The step: step{step, phase} > forward, backward, allreduce{bytes} with a message sent
// to the next rank and one received from the previous (ids that pair across the job).
void recordWorker(const std::string &dir, int rank, int workers, long long steps, int out)
{
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(workers).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(rank % 8).c_str(), 1);
    const double t0 = processCpu();
    rec::FileTimerClient c(dir + "/timer_config.json", dir + "/timer_events.{rank}.log");
    const int next = (rank + 1) % workers, prev = (rank + workers - 1) % workers;
    for (long long i = 0; i < steps; ++i) {
        c.startEvent("step", {{"step", int64_t(i)}, {"phase", std::string("train")}});
        c.startEvent("forward");
        c.endEvent("forward");
        c.startEvent("backward");
        c.endEvent("backward");
        c.startEvent("allreduce");
        c.message(true, next, "g" + std::to_string(rank) + "-" + std::to_string(i));
        c.message(false, prev, "g" + std::to_string(prev) + "-" + std::to_string(i));
        c.endEvent("allreduce", {{"bytes", int64_t(1) << 26}});
        c.endEvent("step");
    }
    c.flush();
    const double t1 = processCpu();
    c.close(); // with event_store on: the log's index and event store
    const double t2 = processCpu();
    const std::string line = std::to_string(t1 - t0) + " " + std::to_string(t2 - t1) + " " +
                             std::to_string(c.stats().bytes) + "\n";
    (void)!::write(out, line.data(), line.size());
}

bool dropCaches()
{
    ::sync();
    std::ofstream f("/proc/sys/vm/drop_caches");
    f << "3\n";
    f.flush();
    return bool(f);
}

// The job-level caches a load writes (correction, links) go; the logs' own files stay.
void keepOnlyLogStores(const std::string &dir)
{
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir + "/.syncline-index", ec)) {
        const std::string n = e.path().filename().string();
        const bool logs = n.size() > 9 && (n.ends_with(".log.sidx") || n.ends_with(".log.sevt"));
        if (!logs)
            fs::remove_all(e.path(), ec);
    }
}

} // namespace

void runRecorded(const std::string &base, int workers, long long steps, int threads, int rounds)
{
    const std::string job = base + "/recorded", parsed = base + "/recorded-parsed";
    fs::remove_all(job);
    fs::remove_all(parsed);
    fs::create_directories(job);
    std::ofstream(job + "/timer_config.json")
        << R"({"event_store": true, "buffer_events": 1048576, "overflow": "grow"})";
    // Every worker at once, as a job's processes are.
    int pipeFd[2];
    if (::pipe(pipeFd) != 0)
        return;
    std::vector<pid_t> kids;
    for (int r = 0; r < workers; ++r) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(pipeFd[0]);
            recordWorker(job, r, workers, steps, pipeFd[1]);
            ::_exit(0);
        }
        kids.push_back(pid);
    }
    ::close(pipeFd[1]);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(pipeFd[0], buf, sizeof buf)) > 0;)
        text.append(buf, size_t(n));
    ::close(pipeFd[0]);
    for (pid_t p : kids)
        ::waitpid(p, nullptr, 0);
    double record = 0, close = 0, bytes = 0;
    int reported = 0;
    for (size_t at = 0; at < text.size();) {
        double a = 0, b = 0, c = 0;
        if (std::sscanf(text.c_str() + at, "%lf %lf %lf", &a, &b, &c) == 3) {
            record += a;
            close += b;
            bytes += c;
            ++reported;
        }
        at = text.find('\n', at);
        at = at == std::string::npos ? text.size() : at + 1;
    }
    std::printf("recorded shape: %d recorder processes x %lld steps (10 records a step: step "
                "with args > forward, backward, allreduce with args and 2 messages), "
                "event_store on; %d reported\n",
                workers, steps, reported);
    std::printf("  logs %.1f MB (%.1f MB per worker); per worker: recording %.3f CPU s, close() "
                "%.3f CPU s (its index and event store: %.2f CPU s per GB of log)\n",
                bytes / 1e6, bytes / 1e6 / std::max(1, reported), record / std::max(1, reported),
                close / std::max(1, reported), close / std::max(bytes / 1e9, 1e-9));
    // The same logs without the stores: their first open parses them (and writes the stores).
    fs::create_directories(parsed);
    for (const auto &e : fs::directory_iterator(job))
        if (e.is_regular_file())
            fs::copy_file(e.path(), parsed + "/" + e.path().filename().string());
    uint64_t sevt = 0;
    for (const auto &e : fs::directory_iterator(job + "/.syncline-index"))
        if (e.path().string().ends_with(".sevt"))
            sevt += e.file_size();
    std::printf("  event stores %.1f MB (%.0f%% of the logs)\n", double(sevt) / 1e6,
                100.0 * double(sevt) / std::max(bytes, 1.0));
    std::printf("  %-58s %8s %8s %10s %8s\n", "first open (a child process each, interleaved)",
                "wall s", "CPU s", "read CPU s", "peak MB");
    for (const bool cold : {false, true}) {
        for (int k = 0; k < rounds; ++k) {
            keepOnlyLogStores(job);
            if (cold && !dropCaches()) {
                std::printf("  (page cache not dropped: /proc/sys/vm/drop_caches not writable)\n");
                return;
            }
            const LoaderReport s = loaderInChild(job, threads, {}, true);
            fs::remove_all(parsed + "/.syncline-index");
            if (cold)
                dropCaches();
            const LoaderReport p = loaderInChild(parsed, threads, {}, true);
            char what[96];
            std::snprintf(what, sizeof what, "%s, from the workers' stores (%lld/%d decoded)",
                          cold ? "cold" : "warm", (long long)s.logsFromStores, workers);
            std::printf("  %-58s %8.2f %8.2f %10.2f %8.0f\n", what, s.seconds, s.cpuSeconds,
                        s.stageCpuSeconds[0], double(s.peakKb - s.baseKb) / 1024.0);
            std::snprintf(what, sizeof what, "%s, the JSON parsed (%lld decoded)",
                          cold ? "cold" : "warm", (long long)p.logsFromStores);
            std::printf("  %-58s %8.2f %8.2f %10.2f %8.0f\n", what, p.seconds, p.cpuSeconds,
                        p.stageCpuSeconds[0], double(p.peakKb - p.baseKb) / 1024.0);
            std::printf("  %-58s %8.2f %8.2f %10.2f\n", "  ratio, stores / JSON",
                        s.seconds / p.seconds, s.cpuSeconds / p.cpuSeconds,
                        s.stageCpuSeconds[0] / p.stageCpuSeconds[0]);
        }
    }
}

} // namespace syncline::bench
