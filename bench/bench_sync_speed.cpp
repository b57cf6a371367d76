// bench_sync_speed — speed of the skew-correction engine (Google Benchmark).
//  * BM_FitWorkerHour: runSyncEngine on one worker-hour of 1 Hz bursts of 8 exchanges (simulated
//    datacenter path); goal ≤ 10 ms. Baseline in the same run: BM_ReduceOnly (burst reduction
//    alone, the least any fit must do).
//  * BM_MapBatch: ClockMap::toGlobal on 10 M sorted stamps through a fitted map (one segment per
//    burst); goal ≥ 50 M events/s. Baseline in the same run: BM_PlainOffset (out = x + offset).
//  * BM_DenseCorrectionVsLoad: a simulated datacenter job with dense messages (16 workers, 42 s,
//    2 ms training steps: ~1,000 message records per second per worker, 8 processes per host) is
//    written as real logs; each iteration loads them with JobLoader without clock correction
//    (the load time) and runs the engine on the same job's input (the correction cost), in the
//    same process one after the other. Counter `ratio` = engine / load; goal ≤ 0.25. The same
//    load with correction is timed too, and its "correcting clocks" stage from the progress
//    reports: `stage_ratio` = that stage / the rest of the same load (parse, merge, index) — the
//    whole correction (message pairing, collectives, engine, maps) against the loading.
#include "sim/joblogwriter.h"
#include "sim/simulator.h"
#include "sim/syncpath.h"
#include "sync/burstreducer.h"
#include "sync/syncengine.h"

#include "timeline/load/jobloader.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <unistd.h>

#include <vector>

using namespace syncline;

namespace {

const sync::SyncEngineInput &hourInput()
{
    static const sync::SyncEngineInput in = [] {
        sim::SimConfig cfg = sim::configFor(sim::Regime::Datacenter, 7, 1, 3600.0);
        sim::SimRandom rng(7);
        sim::TrueClock clock(cfg, 1'000'000'000'000, rng);
        clock.setAsymmetry(2000);
        sim::SyncPath path(cfg, 9);
        sync::SyncEngineInput input;
        sync::WorkerClockInput w;
        w.host = "node";
        w.bootId = "boot";
        w.refId = "ref";
        w.samples = path.run(clock, 0.05e9, 3599.9e9);
        w.firstLocalNs = clock.local(0);
        w.lastLocalNs = clock.local(3600e9);
        input.workers.push_back(std::move(w));
        return input;
    }();
    return in;
}

void BM_FitWorkerHour(benchmark::State &state)
{
    const sync::SyncEngineInput &in = hourInput();
    for (auto _ : state) {
        sync::SyncEngineResult r = sync::runSyncEngine(in);
        benchmark::DoNotOptimize(r.workers[0].map.segments().data());
    }
    state.counters["samples"] = double(in.workers[0].samples.size());
    state.counters["segments"] = double(sync::runSyncEngine(in).workers[0].map.segments().size());
}
BENCHMARK(BM_FitWorkerHour)->Unit(benchmark::kMillisecond);

void BM_ReduceOnly(benchmark::State &state)
{
    const sync::SyncEngineInput &in = hourInput();
    for (auto _ : state) {
        sync::BurstReducer r;
        auto b = r.reduce(in.workers[0].samples);
        benchmark::DoNotOptimize(b.data());
    }
}
BENCHMARK(BM_ReduceOnly)->Unit(benchmark::kMillisecond);

struct MapFixture
{
    sync::ClockMap map;
    std::vector<int64_t> in, out;
    MapFixture()
    {
        map = sync::runSyncEngine(hourInput()).workers[0].map;
        const int64_t a = hourInput().workers[0].firstLocalNs,
                      b = hourInput().workers[0].lastLocalNs;
        const size_t n = 10'000'000;
        in.resize(n);
        out.resize(n);
        for (size_t i = 0; i < n; ++i)
            in[i] = a + int64_t(double(b - a) * double(i) / double(n));
    }
};

MapFixture &fixture()
{
    static MapFixture f;
    return f;
}

void BM_MapBatch(benchmark::State &state)
{
    MapFixture &f = fixture();
    for (auto _ : state) {
        f.map.toGlobal(f.in, f.out);
        benchmark::DoNotOptimize(f.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(f.in.size()));
    state.counters["segments"] = double(f.map.segments().size());
}
BENCHMARK(BM_MapBatch)->Unit(benchmark::kMillisecond);

void BM_PlainOffset(benchmark::State &state)
{
    MapFixture &f = fixture();
    const int64_t offset = f.map.toGlobal(f.in[0]) - f.in[0];
    for (auto _ : state) {
        const size_t n = f.in.size();
        for (size_t i = 0; i < n; ++i)
            f.out[i] = f.in[i] + offset;
        benchmark::DoNotOptimize(f.out.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(f.in.size()));
}
BENCHMARK(BM_PlainOffset)->Unit(benchmark::kMillisecond);

struct DenseJob
{
    sim::SimJob job;
    std::string dir;
    size_t messages = 0;
    DenseJob()
    {
        sim::SimConfig cfg = sim::configFor(sim::Regime::Datacenter, 5, 16, 42.0);
        cfg.workersPerHost = 8;
        cfg.iterationMs = 2.0;
        job = sim::Simulator::run(cfg);
        messages = job.messages.size();
        dir = (std::filesystem::temp_directory_path() /
               ("bench_sync_dense." + std::to_string(::getpid())))
                  .string();
        std::filesystem::remove_all(dir);
        const std::string err = sim::JobLogWriter::write(job, dir);
        if (!err.empty())
            std::fprintf(stderr, "bench_sync_speed: %s\n", err.c_str());
    }
    ~DenseJob() { std::filesystem::remove_all(dir); }
};

DenseJob &denseJob()
{
    static DenseJob d;
    return d;
}

void BM_DenseCorrectionVsLoad(benchmark::State &state)
{
    DenseJob &d = denseJob();
    const sync::SyncEngineInput in = d.job.engineInput();
    double loadS = 0, engineS = 0, correctedS = 0, stageS = 0;
    for (auto _ : state) {
        syncline::LoadOptions o;
        o.paths = {d.dir};
        o.correctClocks = false;
        const auto t0 = std::chrono::steady_clock::now();
        syncline::LoadResult res = syncline::JobLoader::load(o);
        const auto t1 = std::chrono::steady_clock::now();
        sync::SyncEngineResult r = sync::runSyncEngine(in);
        const auto t2 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(res.timeline.get());
        benchmark::DoNotOptimize(r.workers.data());
        res = {};
        // The whole correction stage as the loader runs it (message pairing, collectives,
        // engine, maps): the same load with correction, minus the load without.
        o.correctClocks = true;
        std::chrono::steady_clock::time_point cs{}, ce{};
        o.progress = [&](double, const std::string &what) {
            if (cs == decltype(cs){} && what.rfind("correcting", 0) == 0)
                cs = std::chrono::steady_clock::now();
            if (ce == decltype(ce){} && what.rfind("indexing", 0) == 0)
                ce = std::chrono::steady_clock::now();
        };
        const auto t3 = std::chrono::steady_clock::now();
        syncline::LoadResult full = syncline::JobLoader::load(o);
        const auto t4 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(full.timeline.get());
        loadS += std::chrono::duration<double>(t1 - t0).count();
        engineS += std::chrono::duration<double>(t2 - t1).count();
        correctedS += std::chrono::duration<double>(t4 - t3).count();
        stageS += std::chrono::duration<double>(ce - cs).count();
    }
    const double n = double(state.iterations());
    state.counters["load_ms"] = 1e3 * loadS / n;
    state.counters["engine_ms"] = 1e3 * engineS / n;
    state.counters["ratio"] = engineS / std::max(loadS, 1e-9);
    state.counters["load_corrected_ms"] = 1e3 * correctedS / n;
    state.counters["correct_stage_ms"] = 1e3 * stageS / n;
    state.counters["stage_ratio"] = stageS / std::max(correctedS - stageS, 1e-9);
    state.counters["msg_records_per_s_worker"] = 2.0 * double(d.messages) / 16.0 / 42.0;
}
BENCHMARK(BM_DenseCorrectionVsLoad)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
