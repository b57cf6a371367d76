// bench_killloss — how much a SIGKILL loses: the age, at the kill, of the
// oldest event the recorder had accepted but not yet written.
//
// A child process records `tick` instants with FileTimerClient at a low rate (one every
// --interval-us, default 2000 µs) and, before each call, stores its CLOCK_MONOTONIC_RAW time in a
// shared page (a count published after the call). The parent kills it with SIGKILL at a random
// moment, reads the log (ticks 0..m-1 are in it: the writer keeps order) and reports
// loss = killedAt - time[m] when tick m was accepted (m < count) and 0 otherwise. The bound the
// docs promise is loss <= flush_interval_ms; the baseline in the same run is the flush interval
// itself (ratio max loss / interval). "child CPU" is the recording process's CPU time over its
// life (at this rate almost all of it the writer thread's timer wake-ups). --load N spins N busy processes (nice 0) during the run, so
// every core is loaded, as in the probe.
//
// Usage: bench_killloss [--flush-ms 1,10] [--kills 40] [--interval-us 2000] [--load N]
#include "recorder/filetimerclient.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <signal.h>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

int64_t rawNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

constexpr size_t kMaxTicks = 1 << 20;

struct Shared
{
    std::atomic<int64_t> count;
    int64_t time[kMaxTicks];
};

// Ticks in the log: `"name":"tick"` lines.
size_t ticksInLog(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line))
        if (line.find("\"name\":\"tick\"") != std::string::npos && line.back() == '}')
            ++n;
    return n;
}

// The first file in `dir` named like the log (the recorder may pick an incarnation name).
std::string findLog(const std::string &dir)
{
    for (const auto &e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".log")
            return e.path().string();
    return {};
}

struct Result
{
    std::vector<double> losses; // ms
    double cpuShare = 0;        // the child's CPU time / its wall time (mostly the writer)
};

Result run(int flushMs, int kills, int intervalUs, std::mt19937 &rng)
{
    Result result;
    std::vector<double> &losses = result.losses;
    double cpu = 0, wall = 0;
    auto *shared = static_cast<Shared *>(
        ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    for (int k = 0; k < kills; ++k) {
        const auto dir = std::filesystem::temp_directory_path() /
                         ("syncline-killloss-" + std::to_string(::getpid()) + "-" +
                          std::to_string(flushMs) + "-" + std::to_string(k));
        std::filesystem::create_directories(dir);
        const std::string config = (dir / "timer_config.json").string();
        std::ofstream(config) << "{\"flush_interval_ms\":" << flushMs
                              << ",\"heartbeat_interval_ms\":1000,\"sync\":{\"enabled\":false}}";
        shared->count.store(0);
        const pid_t pid = ::fork();
        if (pid == 0) {
            syncline::rec::FileTimerClient timer(config, (dir / "w.log").string());
            for (int64_t i = 0; i < int64_t(kMaxTicks); ++i) {
                shared->time[i] = rawNs();
                timer.instant("tick");
                shared->count.store(i + 1, std::memory_order_release);
                const timespec pause{0, long(intervalUs) * 1000};
                ::nanosleep(&pause, nullptr);
            }
            ::_exit(0);
        }
        // Kill at a random moment 200..400 ms in (well after start-up).
        const int64_t startedAt = rawNs();
        std::this_thread::sleep_for(
            std::chrono::microseconds(200000 + std::uniform_int_distribution<int>(0, 200000)(rng)));
        const int64_t killedAt = rawNs();
        ::kill(pid, SIGKILL);
        rusage ru{};
        ::wait4(pid, nullptr, 0, &ru);
        cpu += double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
        wall += double(killedAt - startedAt) / 1e9;
        const int64_t count = shared->count.load(std::memory_order_acquire);
        const size_t inLog = ticksInLog(findLog(dir.string()));
        double loss = 0;
        if (int64_t(inLog) < count)
            loss = double(killedAt - shared->time[inLog]) / 1e6;
        losses.push_back(loss);
        std::filesystem::remove_all(dir);
    }
    ::munmap(shared, sizeof(Shared));
    result.cpuShare = wall > 0 ? cpu / wall : 0;
    return result;
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<int> flushes{1, 10};
    int kills = 40, intervalUs = 2000, load = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--flush-ms") {
            flushes.clear();
            for (size_t p = 0; p < value.size();) {
                const size_t q = value.find(',', p);
                flushes.push_back(std::atoi(value.substr(p, q - p).c_str()));
                p = q == std::string::npos ? value.size() : q + 1;
            }
        } else if (key == "--kills") {
            kills = std::atoi(value.c_str());
        } else if (key == "--interval-us") {
            intervalUs = std::atoi(value.c_str());
        } else if (key == "--load") {
            load = std::atoi(value.c_str());
        } else {
            std::fprintf(stderr, "bench_killloss: unknown option %s\n", key.c_str());
            return 2;
        }
    }
    std::vector<pid_t> spinners;
    for (int i = 0; i < load; ++i) {
        const pid_t p = ::fork();
        if (p == 0) {
            volatile uint64_t x = 0;
            for (;;)
                x = x + 1;
        }
        spinners.push_back(p);
    }
    std::mt19937 rng(15);
    std::printf("SIGKILL loss: one tick every %d us, %d kills per flush interval, %d spinning "
                "processes, %u cores\n",
                intervalUs, kills, load, std::thread::hardware_concurrency());
    std::printf("%-10s %10s %10s %10s %10s %12s %10s\n", "flush ms", "p50 ms", "p90 ms", "max ms",
                "over bound", "max/flush", "child CPU");
    for (const int f : flushes) {
        const Result r = run(f, kills, intervalUs, rng);
        const std::vector<double> &losses = r.losses;
        const auto over =
            std::count_if(losses.begin(), losses.end(), [&](double l) { return l > double(f); });
        const double max = *std::max_element(losses.begin(), losses.end());
        std::printf("%-10d %10.3f %10.3f %10.3f %7td/%-3d %12.2f %9.1f%%\n", f,
                    percentile(losses, 0.5), percentile(losses, 0.9), max, over, kills,
                    max / double(f), 100 * r.cpuShare);
    }
    for (const pid_t p : spinners) {
        ::kill(p, SIGKILL);
        ::waitpid(p, nullptr, 0);
    }
    return 0;
}
