// bench_load's loader measurement — see loaderchild.h.
#include "bench/loaderchild.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace syncline::bench {

namespace {

int64_t statusKb(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::atoll(line.c_str() + std::strlen(key));
    return 0;
}

Breakdown structureBytes(const syncline::Timeline &tl)
{
    Breakdown b;
    for (const auto &w : tl.workers) {
        b.samples += int64_t(w.samples.capacity() * sizeof(w.samples[0]));
        b.other += int64_t(sizeof(w) + w.tracks.capacity() * sizeof(syncline::EventTrack));
        for (const auto &t : w.tracks) {
            b.times += int64_t(t.localStart.capacity() * 8 + t.localEnd.capacity() * 8);
            b.names += int64_t(t.nameId.capacity() * 4);
            b.nesting += int64_t(t.parent.capacity() * 4 + t.depth.capacity() * 2);
            b.flags += int64_t(t.flags.capacity() * 2);
            b.argRefs += int64_t(t.argRefs.capacity() * 8 + t.argDense.capacity() * 4);
        }
    }
    b.argStore = int64_t(tl.args.bytes());
    b.links = int64_t(tl.links.bytes()); // LinkTable: 16 bytes a link plus its groups
    for (size_t i = 0; i < tl.names.size(); ++i)
        b.other += int64_t(sizeof(std::string) + 48 + tl.names.name(uint32_t(i)).size());
    return b;
}

double processCpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

} // namespace

namespace {

// The child's work: the load of `dir`, its report written to `fd`.
void loadAndReport(int fd, const std::string &dir, int threads, LoadWindow window, bool writeIndex)
{
    LoaderReport r;
    ::malloc_trim(0);
    r.baseKb = statusKb("VmRSS:");
    syncline::LoadOptions o;
    o.paths = {dir};
    o.threads = threads;
    o.window = window;
    o.writeIndex = writeIndex;
    // Resident and peak at each stage's start (what the progress line names first).
    int stage = -1;
    const auto st0 = std::chrono::steady_clock::now();
    const double cpu0 = processCpuSeconds();
    o.progress = [&](double, const std::string &what) {
        static const char *names[] = {"merging", "correcting", "indexing", "done"};
        for (int k = 0; k < 4; ++k)
            if (k > stage && what.rfind(names[k], 0) == 0) {
                stage = k;
                r.stageRssKb[k] = statusKb("VmRSS:");
                r.stageHwmKb[k] = statusKb("VmHWM:");
                r.stageSeconds[k] =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - st0).count();
                r.stageCpuSeconds[k] = processCpuSeconds() - cpu0;
            }
    };
    const auto t0 = std::chrono::steady_clock::now();
    syncline::LoadResult res = syncline::JobLoader::load(o);
    r.logsFromStores = int64_t(res.logsFromStores);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cpuSeconds = processCpuSeconds() - cpu0;
    ::malloc_trim(0);
    r.peakKb = statusKb("VmHWM:");
    r.afterKb = statusKb("VmRSS:");
    if (res.timeline) {
        r.events = int64_t(res.timeline->eventCount());
        r.problems = int64_t(res.timeline->problems.size());
        r.structure = structureBytes(*res.timeline);
        r.readOnlyWindow = res.timeline->window.readOnlyWindow;
        r.fromEventStore = res.timeline->window.fromEventStore;
        r.bytesRead = res.timeline->window.bytesRead;
    }
    (void)!::write(fd, &r, sizeof r);
}

constexpr const char *kChildFlag = "--loader-child";

} // namespace

int loaderChildMain(int argc, char **argv)
{
    if (argc != 10 || std::strcmp(argv[1], kChildFlag) != 0)
        return -1;
    LoadWindow w;
    w.use = std::atoi(argv[5]) != 0;
    w.mode = syncline::ClockMode(std::atoi(argv[6]));
    w.beginNs = std::atoll(argv[7]);
    w.endNs = std::atoll(argv[8]);
    loadAndReport(std::atoi(argv[2]), argv[3], std::atoi(argv[4]), w, std::atoi(argv[9]) != 0);
    return 0;
}

LoaderReport loaderInChild(const std::string &dir, int threads, LoadWindow window, bool writeIndex)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        // A new image, not the fork: the parent's heap (the generated job, the baselines'
        // buffers) would otherwise be the child's too, and its reuse would blur the peak
        // (a forked child read 1.52 x where a fresh process reads 1.29 x).
        const std::string args[] = {
            std::to_string(fds[1]),           dir,
            std::to_string(threads),          std::to_string(int(window.use)),
            std::to_string(int(window.mode)), std::to_string(window.beginNs),
            std::to_string(window.endNs),     std::to_string(int(writeIndex))};
        std::vector<char *> argv = {const_cast<char *>("bench_load"),
                                    const_cast<char *>(kChildFlag)};
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        ::execv("/proc/self/exe", argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    LoaderReport r;
    const bool got = ::read(fds[0], &r, sizeof r) == ssize_t(sizeof r);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!got)
        std::fprintf(stderr, "bench_load: the loader child reported nothing (status %d)\n", status);
    return got ? r : LoaderReport{};
}

} // namespace syncline::bench
