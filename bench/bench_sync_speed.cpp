// bench_sync_speed — speed of the skew-correction engine (Google Benchmark).
//  * BM_FitWorkerHour: runSyncEngine on one worker-hour of 1 Hz bursts of 8 exchanges (simulated
//    datacenter path); goal ≤ 10 ms. Baseline in the same run: BM_ReduceOnly (burst reduction
//    alone, the least any fit must do).
//  * BM_MapBatch: ClockMap::toGlobal on 10 M sorted stamps through a fitted map (one segment per
//    burst); goal ≥ 50 M events/s. Baseline in the same run: BM_PlainOffset (out = x + offset).
#include "sim/simulator.h"
#include "sim/syncpath.h"
#include "sync/burstreducer.h"
#include "sync/syncengine.h"

#include <benchmark/benchmark.h>

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

} // namespace

BENCHMARK_MAIN();
