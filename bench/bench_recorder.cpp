// bench_recorder — the recorder's hot path and writer, against baselines from the same run.
//
//  1. TwoClockReads: two Clock::now() (CLOCK_MONOTONIC_RAW through the vDSO) — the floor any
//     start+end pair pays.
//  2. StartEndPair: FileTimerClient::startEvent("forward") + endEvent("forward") on the hot
//     path (string-view name → id cache, 32-byte record, one release store each). Both are timed
//     in batches of 1000 with flush() between batches outside the timed region, so the buffer
//     never overflows (drops would flatter the figure; the run checks dropped == 0).
//  3. Instant, Message: instant("checkpoint") and message(true, 3, "grad-bucket-17"), timed the
//     same way (a message allocates its id's text: it is not the cheapest record).
//  4. WriterThroughput: N records pre-filled into a ThreadBuffer, then a LogWriter started on
//     them; time until flush() returns = formatting + write() of N records by the one writer
//     thread, to a real file. Reported as events/s of writer CPU time (and of wall time).
// Times are CPU times (see cpuSeconds) so that other load on a shared machine does not count.
//  5. StartEndPairWithEventStore: the pair with the config's event_store on (the store is
//     written at close, outside the timed region). RecordAndClose: a process's whole recording
//     of 100,000 realistic steps and its close, event_store off and on (process CPU; with it on,
//     close() parses the log once and writes its index and event store).
// Goals: pair <= 4x two clock reads; writer >= 5M events/s on one core; the pair with
// event_store on <= 1.1x the pair without.
#include "recorder/clock.h"
#include "recorder/filetimerclient.h"
#include "recorder/logwriter.h"
#include "recorder/nametable.h"
#include "recorder/threadbuffer.h"
#include "timeline/load/jobloader.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace syncline::rec;

namespace {

constexpr int kBatch = 1000;

std::string benchDir()
{
    static const std::string dir = [] {
        auto d =
            std::filesystem::temp_directory_path() / ("syncline-bench-" + std::to_string(getpid()));
        std::filesystem::create_directories(d);
        std::ofstream(d / "timer_config.json") << R"({"buffer_events": 65536})";
        return d.string();
    }();
    return dir;
}

// CPU time, not wall time: the machine is shared, and preemption would otherwise be billed to
// whatever ran when it happened. Thread CPU time for the hot path (the recording thread's own
// cost); process CPU time for the writer run (the main thread sleeps in flush() meanwhile, so it
// is the writer thread's CPU).
double cpuSeconds(clockid_t id)
{
    timespec ts;
    clock_gettime(id, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void TwoClockReads(benchmark::State &state)
{
    const Clock clock;
    for (auto _ : state) {
        const double t0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < kBatch; ++i) {
            benchmark::DoNotOptimize(clock.now());
            benchmark::DoNotOptimize(clock.now());
        }
        state.SetIterationTime(cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - t0);
    }
    state.counters["per_op"] = benchmark::Counter(
        kBatch, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(TwoClockReads)->UseManualTime()->MinTime(1.0);

// The pair's timed loop on a client of the config at `config` writing `log`.
void pairLoop(benchmark::State &state, const std::string &config, const std::string &log)
{
    FileTimerClient client(config, log);
    for (auto _ : state) {
        const double t0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < kBatch; ++i) {
            client.startEvent("forward");
            client.endEvent("forward");
        }
        state.SetIterationTime(cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - t0);
        client.flush();
    }
    client.close();
    state.counters["dropped"] = double(client.stats().dropped);
    state.counters["per_op"] = benchmark::Counter(
        kBatch, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void StartEndPair(benchmark::State &state)
{
    pairLoop(state, benchDir() + "/timer_config.json", benchDir() + "/pair.log");
}
BENCHMARK(StartEndPair)->UseManualTime()->MinTime(1.0);

// The two point records, instant("checkpoint") and message(send, peer, id), timed like the pair.
void Instant(benchmark::State &state)
{
    FileTimerClient client(benchDir() + "/timer_config.json", benchDir() + "/instant.log");
    for (auto _ : state) {
        const double t0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < kBatch; ++i)
            client.instant("checkpoint");
        state.SetIterationTime(cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - t0);
        client.flush();
    }
    client.close();
    state.counters["dropped"] = double(client.stats().dropped);
    state.counters["per_op"] = benchmark::Counter(
        kBatch, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(Instant)->UseManualTime()->MinTime(1.0);

void Message(benchmark::State &state)
{
    FileTimerClient client(benchDir() + "/timer_config.json", benchDir() + "/message.log");
    for (auto _ : state) {
        const double t0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < kBatch; ++i)
            client.message(true, 3, "grad-bucket-17");
        state.SetIterationTime(cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - t0);
        client.flush();
    }
    client.close();
    state.counters["dropped"] = double(client.stats().dropped);
    state.counters["per_op"] = benchmark::Counter(
        kBatch, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(Message)->UseManualTime()->MinTime(1.0);

void WriterThroughput(benchmark::State &state)
{
    const size_t n = size_t(state.range(0));
    const bool withArgs = state.range(1) != 0;
    const uint32_t names[] = {NameTable::instance().intern("forward"),
                              NameTable::instance().intern("layer3_grad"),
                              NameTable::instance().intern("all_reduce")};
    const std::string path = benchDir() + "/writer.log";
    uint64_t bytes = 0;
    double wall = 0;
    for (auto _ : state) {
        auto buffer = std::make_shared<ThreadBuffer>(4242, n, false);
        int64_t ts = 1234567890123;
        for (size_t i = 0; i < n; i += 2) {
            Record b;
            b.type = RecordType::Begin;
            b.nameId = names[i % 3];
            b.ts = ts;
            if (withArgs)
                b.args = new std::string(R"({"step":12,"phase":"train"})");
            buffer->pushBegin(b);
            Record e = b;
            e.type = RecordType::End;
            e.ts = ts + 1500;
            e.args = nullptr;
            buffer->pushEnd(e);
            ts += 2000;
        }
        LogWriter writer(Clock(), path, 50, 1000);
        writer.open("{\"t\":\"header\"}\n");
        writer.addBuffer(buffer);
        const double t0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        const auto w0 = std::chrono::steady_clock::now();
        writer.start();
        writer.flush();
        state.SetIterationTime(cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - t0);
        wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        writer.close();
        if (writer.stats().written != n)
            state.SkipWithError("writer lost records");
        bytes = writer.stats().bytes;
    }
    state.counters["events/s"] =
        benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["bytes/event"] = double(bytes) / double(n);
    state.counters["wall_events/s"] = double(n) * double(state.iterations()) / wall;
}
BENCHMARK(WriterThroughput)->Args({2000000, 0})->Args({2000000, 1})->UseManualTime()->Iterations(3);

// The pair again, with the config's event_store on: the log's index and event store are
// written when the client closes (outside the timed region); the hot path must not change.
void StartEndPairWithEventStore(benchmark::State &state)
{
    const std::string dir = benchDir() + "/store";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/timer_config.json") << R"({"buffer_events": 65536, "event_store": true})";
    pairLoop(state, dir + "/timer_config.json", dir + "/pair.log");
}
BENCHMARK(StartEndPairWithEventStore)->UseManualTime()->MinTime(1.0);

// A training process's whole recording, event_store off (0) and on (1): `steps` steps of the
// realistic shape (step with args > forward, backward, allreduce with args and a message sent
// and one received: 10 records a step), then close(). Timed: the process's CPU for recording,
// writing and closing — with the store on, close() also parses the log once and writes its
// index and event store. Counters: the log's size and close()'s own CPU.
void RecordAndClose(benchmark::State &state)
{
    const bool store = state.range(1) != 0;
    const int64_t steps = state.range(0);
    const std::string dir = benchDir() + (store ? "/close-store" : "/close-plain");
    double closeCpu = 0;
    uint64_t bytes = 0;
    for (auto _ : state) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        std::ofstream(dir + "/timer_config.json")
            << (store ? R"({"buffer_events": 1048576, "overflow": "grow", "event_store": true})"
                      : R"({"buffer_events": 1048576, "overflow": "grow"})");
        const double t0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        FileTimerClient client(dir + "/timer_config.json", dir + "/rank.log");
        for (int64_t i = 0; i < steps; ++i) {
            client.startEvent("step", {{"step", i}, {"phase", std::string("train")}});
            client.startEvent("forward");
            client.endEvent("forward");
            client.startEvent("backward");
            client.endEvent("backward");
            client.startEvent("allreduce");
            client.message(true, 1, "grad-" + std::to_string(i));
            client.message(false, 7, "grad-" + std::to_string(i));
            client.endEvent("allreduce", {{"bytes", int64_t(1) << 26}});
            client.endEvent("step");
        }
        client.flush();
        const double c0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        client.close();
        const double t1 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
        state.SetIterationTime(t1 - t0);
        closeCpu += t1 - c0;
        bytes = client.stats().bytes;
        if (client.stats().dropped != 0)
            state.SkipWithError("records dropped");
    }
    state.counters["log_MB"] = double(bytes) / 1e6;
    state.counters["close_cpu_s"] = closeCpu / double(state.iterations());
}
BENCHMARK(RecordAndClose)->Args({100000, 0})->Args({100000, 1})->UseManualTime()->Iterations(3);

// Console output plus the per-run mean times (per batch of kBatch), for the ratio printed at the
// end.
class RatioReporter : public benchmark::ConsoleReporter
{
public:
    void ReportRuns(const std::vector<Run> &runs) override
    {
        ConsoleReporter::ReportRuns(runs);
        for (const Run &r : runs)
            if (r.run_type == Run::RT_Iteration)
                m_ns[r.benchmark_name()] = r.GetAdjustedRealTime();
    }
    std::map<std::string, double> m_ns;
};

} // namespace

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    syncline::JobLoader::installLogStoreWriter(); // event_store: the log's store at close
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    const auto clock = reporter.m_ns.find("TwoClockReads/min_time:1.000/manual_time");
    const auto pair = reporter.m_ns.find("StartEndPair/min_time:1.000/manual_time");
    if (clock != reporter.m_ns.end() && pair != reporter.m_ns.end())
        std::printf("\nstart+end pair: %.1f ns, two clock reads: %.1f ns, ratio %.2fx "
                    "(goal <= 4x)\n",
                    pair->second / kBatch, clock->second / kBatch, pair->second / clock->second);
    const auto stored = reporter.m_ns.find("StartEndPairWithEventStore/min_time:1.000/manual_time");
    if (pair != reporter.m_ns.end() && stored != reporter.m_ns.end())
        std::printf("start+end pair with event_store on: %.1f ns, ratio to the pair without "
                    "%.2fx (goal <= 1.1x)\n",
                    stored->second / kBatch, stored->second / pair->second);
    const auto plain = reporter.m_ns.find("RecordAndClose/100000/0/iterations:3/manual_time");
    const auto withStore = reporter.m_ns.find("RecordAndClose/100000/1/iterations:3/manual_time");
    if (plain != reporter.m_ns.end() && withStore != reporter.m_ns.end())
        std::printf("recording 100000 steps and closing: %.3f CPU s, %.3f with event_store on "
                    "(%.2fx; the difference is close()'s parse and store writing)\n",
                    plain->second * 1e-9, withStore->second * 1e-9,
                    withStore->second / plain->second);
    for (const char *name : {"Instant", "Message"}) {
        const auto it = reporter.m_ns.find(std::string(name) + "/min_time:1.000/manual_time");
        if (clock != reporter.m_ns.end() && it != reporter.m_ns.end())
            std::printf("%s: %.1f ns, ratio to two clock reads %.2fx\n", name, it->second / kBatch,
                        it->second / clock->second);
    }
    std::filesystem::remove_all(benchDir());
    benchmark::Shutdown();
    return 0;
}
