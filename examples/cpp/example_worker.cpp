// example_worker — a stand-in for one distributed-training worker, recording with
// FileTimerClient: per step, data_wait → forward (layer0..N-1) → loss → backward (layers in
// reverse) → all_reduce → optimizer, with a data-loader thread producing batches, args on
// events and a checkpoint instant every 10 steps.
//
// The all_reduce is a blocking collective. Under a launcher (examples/demo/run_demo.py,
// examples/launch_job.py) it is a real cross-process barrier: env SYNCLINE_DEMO_BARRIER=host:port
// names the launcher's rendezvous server (examples/demo/demobarrier.py; client: DemoBarrier) and
// the event lasts from entering the barrier until the server releases every rank at once — so
// every rank waits for the slowest one and all ranks' all_reduce ends coincide in true time
// (within a few hundred µs on loopback). After --barrier-timeout-ms without a release the rank
// goes on and records an instant "barrier_timeout"; a lost connection records "barrier_lost"
// and the rank falls back to the standalone behaviour. Standalone (no SYNCLINE_DEMO_BARRIER)
// the all_reduce ends at the next multiple of --sync-ms of the machine's true
// CLOCK_MONOTONIC_RAW (shared by all processes on one machine, whatever synthetic skew the
// recorder applies).
// Rank --straggler (default: the last rank) computes 30 % slower.
//
// Usage: example_worker [--steps N] [--layers L] [--config PATH] [--log TEMPLATE]
//                       [--straggler RANK] [--sync-ms MS] [--start-at RAW_NS]
//                       [--barrier-dir DIR] [--barrier-timeout-ms MS]
// Identity comes from the torchrun environment (RANK, WORLD_SIZE, …); see launch_job.py.
#include "recorder/filetimerclient.h"
#include "recorder/timermacros.h"

#include "demobarrier.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <time.h>
#include <unistd.h>

using syncline::demo::DemoBarrier;
using syncline::rec::FileTimerClient;
using syncline::rec::ScopedEvent;

namespace {

struct Options
{
    int steps = 20;
    int layers = 4;
    std::string config = "timer_config.json";
    std::string log;
    int straggler = -1;
    int syncMs = 25;
    int64_t startAt = 0;    // CLOCK_MONOTONIC_RAW ns at which every rank starts training
    std::string barrierDir; // rank 0 keeps its time server up until every rank wrote done.<r>
    int barrierTimeoutMs = 10000;
};

int64_t trueNowNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void sleepNs(int64_t ns)
{
    if (ns <= 0)
        return;
    const timespec t{time_t(ns / 1000000000), long(ns % 1000000000)};
    nanosleep(&t, nullptr);
}

bool parse(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--steps" && hasValue)
            o->steps = std::atoi(argv[++i]);
        else if (a == "--layers" && hasValue)
            o->layers = std::atoi(argv[++i]);
        else if (a == "--config" && hasValue)
            o->config = argv[++i];
        else if (a == "--log" && hasValue)
            o->log = argv[++i];
        else if (a == "--straggler" && hasValue)
            o->straggler = std::atoi(argv[++i]);
        else if (a == "--sync-ms" && hasValue)
            o->syncMs = std::atoi(argv[++i]);
        else if (a == "--start-at" && hasValue)
            o->startAt = std::atoll(argv[++i]);
        else if (a == "--barrier-dir" && hasValue)
            o->barrierDir = argv[++i];
        else if (a == "--barrier-timeout-ms" && hasValue)
            o->barrierTimeoutMs = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "example_worker: unknown or incomplete argument '%s'\n",
                         a.c_str());
            return false;
        }
    }
    return o->steps > 0 && o->layers > 0 && o->syncMs > 0 && o->barrierTimeoutMs > 0;
}

// A bounded batch queue between the data-loader thread and the trainer.
class BatchQueue
{
public:
    void push(int batch)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_notFull.wait(lock, [&] { return m_items.size() < 2; });
        m_items.push_back(batch);
        m_notEmpty.notify_one();
    }
    int pop()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return !m_items.empty(); });
        const int b = m_items.front();
        m_items.pop_front();
        m_notFull.notify_one();
        return b;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_notEmpty, m_notFull;
    std::deque<int> m_items;
};

void dataLoader(FileTimerClient &timer, BatchQueue &queue, int steps)
{
    timer.setThreadName("data_loader");
    for (int b = 0; b < steps; ++b) {
        timer.startEvent("load_batch", {{"batch", int64_t(b)}, {"source", std::string("disk")}});
        sleepNs(4000000 + (b % 3) * 1500000);
        timer.endEvent("load_batch");
        queue.push(b);
    }
}

// The step's all_reduce: the demo barrier when there is one, else the next period boundary.
void allReduce(FileTimerClient &timer, std::unique_ptr<DemoBarrier> &barrier, const Options &o)
{
    ScopedEvent reduce(timer, "all_reduce", {{"bytes", int64_t(64) << 20}});
    if (barrier) {
        const int64_t instance = barrier->instancesEntered();
        switch (barrier->arrive()) {
        case DemoBarrier::Result::Released:
            return;
        case DemoBarrier::Result::TimedOut:
            timer.instant("barrier_timeout",
                          {{"instance", instance}, {"timeout_ms", int64_t(barrier->timeoutMs())}});
            return;
        case DemoBarrier::Result::Lost:
            std::fprintf(stderr,
                         "example_worker: rank %lld: demo barrier at %s lost (%s); "
                         "all_reduce falls back to the %d ms period\n",
                         static_cast<long long>(timer.rank()), barrier->address().c_str(),
                         barrier->lastError().c_str(), o.syncMs);
            timer.instant("barrier_lost",
                          {{"instance", instance}, {"error", barrier->lastError()}});
            barrier.reset();
            break;
        }
    }
    const int64_t period = int64_t(o.syncMs) * 1000000;
    const int64_t now = trueNowNs();
    sleepNs((now / period + 1) * period - trueNowNs());
}

void trainStep(FileTimerClient &timer, BatchQueue &queue, std::unique_ptr<DemoBarrier> &barrier,
               const Options &o, int step, double slow)
{
    ScopedEvent stepEvent(timer, "step", {{"step", int64_t(step)}});
    timer.startEvent("data_wait");
    const int batch = queue.pop();
    timer.endEvent("data_wait", {{"batch", int64_t(batch)}});
    {
        SYNCLINE_SCOPE(timer, forward, "forward");
        for (int l = 0; l < o.layers; ++l) {
            const std::string name = "layer" + std::to_string(l);
            timer.startEvent(name, {{"pass", std::string("fwd")}});
            sleepNs(int64_t(1500000 * slow));
            timer.endEvent(name);
        }
    }
    timer.startEvent("loss");
    sleepNs(int64_t(500000 * slow));
    timer.endEvent("loss", {{"loss", 2.5 / (1.0 + step)}});
    {
        SYNCLINE_SCOPE(timer, backward, "backward");
        for (int l = o.layers - 1; l >= 0; --l) {
            const std::string name = "layer" + std::to_string(l) + "_grad";
            timer.startEvent(name, {{"pass", std::string("bwd")}});
            sleepNs(int64_t(3000000 * slow));
            timer.endEvent(name);
        }
    }
    allReduce(timer, barrier, o);
    timer.startEvent("optimizer");
    sleepNs(int64_t(1000000 * slow));
    timer.endEvent("optimizer", {{"lr", 0.001}, {"clipped", step % 4 == 0}});
    if (step % 10 == 9)
        timer.instant("checkpoint", {{"step", int64_t(step)}});
}

// Every rank writes <dir>/done.<rank>; rank 0 (which hosts the time server) waits up to 30 s
// for all of them so that the others' final sync bursts find the server alive.
void finishBarrier(const std::string &dir, int64_t rank, int64_t world)
{
    if (dir.empty())
        return;
    const std::string mine = dir + "/done." + std::to_string(rank);
    if (FILE *f = std::fopen(mine.c_str(), "w"))
        std::fclose(f);
    if (rank != 0)
        return;
    for (int waited = 0; waited < 3000; ++waited) {
        int64_t done = 0;
        for (int64_t r = 0; r < world; ++r)
            done += access((dir + "/done." + std::to_string(r)).c_str(), F_OK) == 0;
        if (done == world)
            return;
        sleepNs(10000000);
    }
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (!parse(argc, argv, &o))
        return 2;
    try {
        FileTimerClient timer(o.config, o.log);
        const int64_t world = timer.identity().worldSize;
        const int straggler = o.straggler >= 0 ? o.straggler : int(world - 1);
        const double slow = (world > 1 && timer.rank() == straggler) ? 1.3 : 1.0;
        timer.setThreadName("trainer");
        sleepNs(o.startAt - trueNowNs()); // a common start, like a rendezvous
        std::unique_ptr<DemoBarrier> barrier;
        if (const char *address = std::getenv("SYNCLINE_DEMO_BARRIER"); address && *address)
            barrier = std::make_unique<DemoBarrier>(address, timer.rank(), o.barrierTimeoutMs);
        BatchQueue queue;
        std::thread loader(dataLoader, std::ref(timer), std::ref(queue), o.steps);
        for (int step = 0; step < o.steps; ++step)
            trainStep(timer, queue, barrier, o, step, slow);
        if (barrier)
            barrier->leave();
        loader.join();
        finishBarrier(o.barrierDir, timer.rank(), world);
        timer.close();
        const auto s = timer.stats();
        std::printf(
            "rank %lld: %llu events, %llu dropped -> %s%s\n", static_cast<long long>(timer.rank()),
            static_cast<unsigned long long>(s.written), static_cast<unsigned long long>(s.dropped),
            timer.logPath().c_str(), timer.ok() ? "" : (" (" + timer.lastError() + ")").c_str());
        return timer.ok() ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "example_worker: %s\n", e.what());
        return 1;
    }
}
