// bench_attach — live attach (LiveJob + LiveFollower) against baselines measured in the same run.
//
//  1. Ingest rate: 64 real log files (B/E records, nested step ▸ compute, comm) read by LiveJob
//     (a) in one catch-up pass and (b) in 20 rounds of appends cut at arbitrary bytes (torn
//     lines at every cut), versus raw pread() of the same bytes and JobLoader (1 thread).
//  2. Latency: 64 writer threads append 10k events/s each (a batch every 10 ms, every record
//     stamped with CLOCK_MONOTONIC_RAW just before its write()) while a LiveFollower (inotify)
//     follows; latency = time the event is in the Timeline after commit() − its stamp.
//  3. Idle watching: 64 quiet workers (one heartbeat per second each); CPU of the watching
//     thread over a window (getrusage RUSAGE_THREAD), LiveFollower with inotify and with 250 ms
//     polling, versus a bare inotify loop that only read()s the appended bytes.
// Usage: bench_attach [--dir D] [--workers N] [--rate EV_PER_S] [--seconds S]
//                     [--events-per-file N] [--idle-seconds S]
#include "timeline/load/jobloader.h"
#include "timeline/live/livefollower.h"
#include "timeline/live/livejob.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <string>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace syncline;
namespace fs = std::filesystem;

namespace {

struct Args
{
    std::string dir = "/tmp/syncline-bench-attach";
    int workers = 64;
    int rate = 10000;
    double seconds = 3;
    int eventsPerFile = 16000;
    double idleSeconds = 10;
};

int64_t rawNow()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double threadCpuS()
{
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string header(int rank)
{
    return "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" +
           std::to_string(rank) +
           ",\"local_rank\":0,\"world_size\":64,\"group_rank\":0,\"role\":\"trainer\",\"restart\":"
           "0,"
           "\"run_id\":\"bench\",\"host\":\"bench-host\",\"boot_id\":\"bench-boot\",\"pid\":" +
           std::to_string(100000 + rank) +
           ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":0,\"wall_ns\":1700000000000000000,"
           "\"spread_ns\":40},\"config\":null,\"start_ns\":0}\n";
}

void record(std::string &out, char type, int64_t ts, const char *name)
{
    char num[24];
    const auto r = std::to_chars(num, num + sizeof num, ts);
    out += "{\"t\":\"";
    out += type;
    out += "\",\"ts\":";
    out.append(num, r.ptr);
    out += ",\"tid\":7,\"name\":\"";
    out += name;
    out += "\"}\n";
}

// Three events (step ▸ compute, comm) as six records starting at ts, 1 ns apart.
void steps(std::string &out, int64_t ts, int count)
{
    for (int i = 0; i < count; ++i, ts += 6) {
        record(out, 'B', ts, "step");
        record(out, 'B', ts + 1, "compute");
        record(out, 'E', ts + 2, "compute");
        record(out, 'B', ts + 3, "comm");
        record(out, 'E', ts + 4, "comm");
        record(out, 'E', ts + 5, "step");
    }
}

void writeAll(int fd, const std::string &s)
{
    for (size_t off = 0; off < s.size();) {
        const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n <= 0)
            return;
        off += size_t(n);
    }
}

std::string freshDir(const Args &a, const char *name)
{
    const std::string d = a.dir + "/" + name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string logPath(const std::string &dir, int r)
{
    return dir + "/rank" + std::to_string(r) + ".log";
}

// The baseline: every byte of every file through pread(), 4 MiB at a time.
int64_t rawReadAll(const std::vector<std::string> &paths)
{
    std::vector<char> buf(4 << 20);
    int64_t total = 0;
    for (const std::string &p : paths) {
        const int fd = ::open(p.c_str(), O_RDONLY);
        int64_t off = 0;
        for (ssize_t n; (n = ::pread(fd, buf.data(), buf.size(), off)) > 0;)
            off += n;
        total += off;
        ::close(fd);
    }
    return total;
}

// The same texts appended in 20 rounds cut at arbitrary bytes, ingest + commit after each.
struct Rounds
{
    double seconds = 0, firstMs = 0, lastMs = 0;
    size_t events = 0;
};

Rounds appendRounds(const Args &a, const std::vector<std::string> &texts)
{
    const std::string d = freshDir(a, "rounds");
    LiveOptions o;
    o.path = d;
    constexpr int kRounds = 20;
    std::vector<int> fds;
    for (int r = 0; r < a.workers; ++r)
        fds.push_back(::open(logPath(d, r).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
    LiveJob live(o);
    Rounds out;
    for (int k = 0; k < kRounds; ++k) {
        for (int r = 0; r < a.workers; ++r) {
            const std::string &s = texts[size_t(r)];
            const size_t from = s.size() * size_t(k) / kRounds;
            const size_t to = s.size() * size_t(k + 1) / kRounds;
            writeAll(fds[size_t(r)], s.substr(from, to - from));
        }
        const auto t = std::chrono::steady_clock::now();
        live.ingest(k == 0);
        live.commit(k == kRounds - 1);
        const double secs = since(t);
        out.seconds += secs;
        (k == 0 ? out.firstMs : out.lastMs) = secs * 1e3;
    }
    for (int fd : fds)
        ::close(fd);
    out.events = live.timeline()->eventCount();
    return out;
}

void ingestBench(const Args &a)
{
    const std::string d = freshDir(a, "ingest");
    std::vector<std::string> texts(size_t(a.workers)), paths;
    int64_t bytes = 0;
    for (int r = 0; r < a.workers; ++r) {
        texts[size_t(r)] = header(r);
        steps(texts[size_t(r)], 1000, a.eventsPerFile / 3);
        bytes += int64_t(texts[size_t(r)].size());
        paths.push_back(logPath(d, r));
        const int fd = ::open(paths.back().c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        writeAll(fd, texts[size_t(r)]);
        ::close(fd);
    }
    const double events = double(a.workers) * (a.eventsPerFile / 3) * 3;
    auto t = std::chrono::steady_clock::now();
    const int64_t readBytes = rawReadAll(paths);
    const double rawS = since(t);
    if (readBytes != bytes)
        std::printf("warning: read %lld of %lld bytes\n", static_cast<long long>(readBytes),
                    static_cast<long long>(bytes));

    LoadOptions lo;
    lo.paths = {d};
    lo.threads = 1;
    t = std::chrono::steady_clock::now();
    const LoadResult full = JobLoader::load(lo);
    const double loadS = since(t);

    LiveOptions o;
    o.path = d;
    LiveJob job(o);
    t = std::chrono::steady_clock::now();
    job.ingest(true);
    const double ingestS = since(t);
    t = std::chrono::steady_clock::now();
    job.commit(true);
    const double commitS = since(t);
    const size_t got = job.timeline()->eventCount();

    const Rounds rounds = appendRounds(a, texts);

    std::printf("== 1. ingest: %d files, %.0f events, %.1f MB ==\n", a.workers, events,
                double(bytes) / 1e6);
    std::printf("%-44s %10s %12s %8s\n", "path", "seconds", "events/s", "MB/s");
    auto row = [&](const char *what, double s, double ev) {
        std::printf("%-44s %10.3f %12.0f %8.0f\n", what, s, ev / s, double(bytes) / 1e6 / s);
    };
    row("baseline: raw pread() of the bytes", rawS, events);
    row("baseline: JobLoader::load (1 thread)", loadS,
        double(full.timeline ? full.timeline->eventCount() : 0));
    row("LiveJob catch-up: ingest (read + parse)", ingestS, events);
    row("LiveJob catch-up: commit (merge + nest)", commitS, events);
    row("LiveJob catch-up: ingest + commit", ingestS + commitS, double(got));
    row("LiveJob 20 append rounds (torn cuts)", rounds.seconds, double(rounds.events));
    std::printf(
        "append rounds: first %.1f ms, last %.1f ms (cost per round stays flat: amortised)\n",
        rounds.firstMs, rounds.lastMs);
    std::printf(
        "events in the model: catch-up %zu, rounds %zu (expected %.0f); ratio live/raw read %.1fx "
        "slower, live/JobLoader %.2fx\n\n",
        got, rounds.events, events, (ingestS + commitS) / rawS, (ingestS + commitS) / loadS);
}

double percentile(std::vector<int64_t> &v, double p)
{
    if (v.empty())
        return 0;
    const size_t k = std::min(v.size() - 1, size_t(p * double(v.size())));
    std::nth_element(v.begin(), v.begin() + ptrdiff_t(k), v.end());
    return double(v[k]) / 1e6;
}

// One writer: every 10 ms a batch of whole steps (3 events each) averaging `perBatch` events,
// every record stamped with CLOCK_MONOTONIC_RAW just before the write().
void writeAtRate(int fd, double perBatch, std::atomic<bool> &stop, std::atomic<int64_t> &written)
{
    std::string buf;
    auto next = std::chrono::steady_clock::now();
    double owed = 0;
    while (!stop.load(std::memory_order_relaxed)) {
        owed += perBatch;
        const int n = int(owed / 3);
        owed -= 3.0 * n;
        buf.clear();
        steps(buf, rawNow(), n);
        writeAll(fd, buf);
        written.fetch_add(n * 3, std::memory_order_relaxed);
        next += std::chrono::milliseconds(10);
        std::this_thread::sleep_until(next);
    }
}

void latencyBench(const Args &a)
{
    const std::string d = freshDir(a, "latency");
    std::vector<int> fds;
    for (int r = 0; r < a.workers; ++r) {
        fds.push_back(::open(logPath(d, r).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
        writeAll(fds.back(), header(r));
    }
    LiveOptions o;
    o.path = d;
    LiveJob job(o);
    LiveFollower follower(job, {});
    follower.step();
    std::atomic<bool> stop{false};
    std::atomic<int64_t> written{0};
    const double perBatch = a.rate / 100.0; // events per 10 ms batch, written as whole steps
    std::vector<std::thread> writers;
    for (int r = 0; r < a.workers; ++r)
        writers.emplace_back(writeAtRate, fds[size_t(r)], perBatch, std::ref(stop),
                             std::ref(written));
    std::vector<int64_t> lat;
    lat.reserve(size_t(a.workers) * size_t(a.rate) * size_t(a.seconds + 2));
    std::vector<size_t> seen(size_t(a.workers), 0);
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuS();
    size_t commits = 0;
    auto collect = [&] {
        const int64_t now = rawNow();
        const Timeline &tl = *job.timeline();
        for (size_t w = 0; w < tl.workers.size() && w < seen.size(); ++w)
            for (const EventTrack &t : tl.workers[w].tracks)
                for (size_t i = seen[w]; i < t.count(); ++i)
                    lat.push_back(now - t.localStart[i]);
        for (size_t w = 0; w < tl.workers.size() && w < seen.size(); ++w)
            seen[w] = tl.workers[w].tracks.empty() ? 0 : tl.workers[w].tracks[0].count();
    };
    while (since(t0) < a.seconds) {
        follower.step();
        ++commits;
        collect();
    }
    stop = true;
    for (auto &t : writers)
        t.join();
    const double writeS = since(t0);
    const auto drainStart = std::chrono::steady_clock::now();
    while (int64_t(lat.size()) < written.load() && since(drainStart) < 10) {
        follower.step();
        collect();
    }
    const double cpu = threadCpuS() - cpu0, wall = since(t0);
    for (int fd : fds)
        ::close(fd);
    const double p50 = percentile(lat, 0.50), p90 = percentile(lat, 0.90),
                 p99 = percentile(lat, 0.99);
    std::printf("== 2. latency: %d writers × %d events/s for %.1f s (inotify) ==\n", a.workers,
                a.rate, a.seconds);
    std::printf("written %lld events (%.0f events/s achieved), in model %zu, %zu follower steps\n",
                static_cast<long long>(written.load()), double(written.load()) / writeS, lat.size(),
                commits);
    std::printf("write→model latency: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms (goal p50 ≤ 250 ms)\n",
                p50, p90, p99);
    std::printf("follower thread CPU: %.2f s over %.2f s = %.0f %% of a core\n\n", cpu, wall,
                100 * cpu / wall);
}

// Quiet workers: one heartbeat a second each, staggered.
struct QuietWriters
{
    QuietWriters(const std::vector<int> &fds) : m_fds(fds)
    {
        m_thread = std::thread([this] {
            size_t k = 0;
            while (!m_stop.load()) {
                const std::string hb =
                    "{\"t\":\"hb\",\"ts\":" + std::to_string(rawNow()) +
                    ",\"events\":0,\"dropped\":0,\"buffer_full\":0,\"bytes\":0}\n";
                writeAll(m_fds[k++ % m_fds.size()], hb);
                std::this_thread::sleep_for(std::chrono::microseconds(1000000 / m_fds.size()));
            }
        });
    }
    ~QuietWriters()
    {
        m_stop = true;
        m_thread.join();
    }
    std::vector<int> m_fds;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

double watchLive(const std::string &d, DirWatcher::Mode mode, double seconds)
{
    LiveOptions o;
    o.path = d;
    LiveJob job(o);
    LiveFollower::Options fo;
    fo.mode = mode;
    LiveFollower follower(job, fo);
    follower.step();
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuS();
    while (since(t0) < seconds)
        follower.step();
    return (threadCpuS() - cpu0) / since(t0);
}

double watchBare(const std::string &d, int workers, double seconds)
{
    const int in = inotify_init1(IN_NONBLOCK);
    inotify_add_watch(in, d.c_str(), IN_MODIFY);
    std::vector<int> fds;
    std::vector<int64_t> off(size_t(workers), 0);
    for (int r = 0; r < workers; ++r)
        fds.push_back(::open(logPath(d, r).c_str(), O_RDONLY));
    char buf[65536];
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuS();
    while (since(t0) < seconds) {
        pollfd p{in, POLLIN, 0};
        if (::poll(&p, 1, 250) <= 0)
            continue;
        while (::read(in, buf, sizeof buf) > 0) {
        }
        for (int r = 0; r < workers; ++r)
            for (ssize_t n; (n = ::pread(fds[size_t(r)], buf, sizeof buf, off[size_t(r)])) > 0;)
                off[size_t(r)] += n;
    }
    const double cpu = (threadCpuS() - cpu0) / since(t0);
    for (int fd : fds)
        ::close(fd);
    ::close(in);
    return cpu;
}

void idleBench(const Args &a)
{
    const std::string d = freshDir(a, "idle");
    std::vector<int> fds;
    for (int r = 0; r < a.workers; ++r) {
        fds.push_back(::open(logPath(d, r).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
        std::string s = header(r);
        steps(s, 1000, 100);
        writeAll(fds.back(), s);
    }
    QuietWriters quiet(fds);
    double cpu[3];
    std::thread([&] { cpu[0] = watchBare(d, a.workers, a.idleSeconds); }).join();
    std::thread([&] { cpu[1] = watchLive(d, DirWatcher::Mode::Inotify, a.idleSeconds); }).join();
    std::thread([&] { cpu[2] = watchLive(d, DirWatcher::Mode::Polling, a.idleSeconds); }).join();
    std::printf("== 3. idle watching: %d quiet workers (1 heartbeat/s each), %.0f s windows ==\n",
                a.workers, a.idleSeconds);
    std::printf("%-52s %10s\n", "watcher", "% of a core");
    std::printf("%-52s %10.3f\n", "baseline: bare inotify loop + pread of new bytes", 100 * cpu[0]);
    std::printf("%-52s %10.3f\n", "LiveFollower, inotify (goal ≤ 2 %)", 100 * cpu[1]);
    std::printf("%-52s %10.3f\n", "LiveFollower, polling every 250 ms", 100 * cpu[2]);
    for (int fd : fds)
        ::close(fd);
}

} // namespace

int main(int argc, char **argv)
{
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char *v = argv[i + 1];
        if (k == "--dir")
            a.dir = v;
        else if (k == "--workers")
            a.workers = std::max(1, std::atoi(v));
        else if (k == "--rate")
            a.rate = std::max(300, std::atoi(v));
        else if (k == "--seconds")
            a.seconds = std::atof(v);
        else if (k == "--events-per-file")
            a.eventsPerFile = std::max(3, std::atoi(v));
        else if (k == "--idle-seconds")
            a.idleSeconds = std::atof(v);
        else {
            std::fprintf(stderr, "bench_attach: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    std::printf("bench_attach: %u hardware threads; files under %s\n\n",
                std::thread::hardware_concurrency(), a.dir.c_str());
    ingestBench(a);
    latencyBench(a);
    idleBench(a);
    fs::remove_all(a.dir);
    return 0;
}
