// live_worker — a real worker process for tst_livejob and tst_attach: records with
// FileTimerClient (identity from RANK / WORLD_SIZE / TORCHELASTIC_RESTART_COUNT, config and log
// path from the arguments) a loop of "step" events, each holding "compute" and "comm", plus a
// "loader" thread with "load" events, until --steps are done or SIGTERM/SIGINT arrives; then it
// closes the client (a `close` record) and exits 0. SIGSTOP / SIGKILL are what the tests use to
// make it silent or end it without a closing record. With --messages 1, each "comm" also logs a
// message to the next rank (send, id "s<step>:<rank>") and one from the previous rank (recv,
// id "s<step>:<previous rank>"), so the ranks' logs together hold matching pairs (links).
//
// Usage: live_worker --config PATH --log TEMPLATE [--steps N (0 = until SIGTERM)] [--step-ms MS]
//        [--messages 1]
#include "recorder/filetimerclient.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/prctl.h>
#include <thread>

namespace {

std::atomic<bool> g_stop{false};

void onSignal(int)
{
    g_stop.store(true);
}

void sleepMs(double ms)
{
    std::this_thread::sleep_for(std::chrono::microseconds(int64_t(ms * 1000)));
}

} // namespace

int main(int argc, char **argv)
{
    std::string config, log;
    long steps = 0;
    double stepMs = 10;
    bool messages = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        if (key == "--config")
            config = argv[i + 1];
        else if (key == "--log")
            log = argv[i + 1];
        else if (key == "--steps")
            steps = std::strtol(argv[i + 1], nullptr, 10);
        else if (key == "--step-ms")
            stepMs = std::strtod(argv[i + 1], nullptr);
        else if (key == "--messages")
            messages = std::strtol(argv[i + 1], nullptr, 10) != 0;
        else {
            std::fprintf(stderr, "live_worker: unknown argument %s\n", key.c_str());
            return 2;
        }
    }
    if (config.empty() || log.empty() || stepMs <= 0) {
        std::fprintf(stderr, "live_worker: need --config PATH --log TEMPLATE\n");
        return 2;
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive a crashed test
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    try {
        syncline::rec::FileTimerClient timer(config, log);
        timer.setThreadName("trainer");
        std::thread loader([&] {
            timer.setThreadName("loader");
            while (!g_stop.load()) {
                timer.startEvent("load");
                sleepMs(stepMs / 2);
                timer.endEvent("load");
                sleepMs(stepMs / 2);
            }
        });
        for (long s = 0; (steps == 0 || s < steps) && !g_stop.load(); ++s) {
            timer.startEvent("step", {{"step", int64_t(s)}});
            timer.startEvent("compute");
            sleepMs(stepMs * 0.7);
            timer.endEvent("compute");
            timer.startEvent("comm");
            if (messages) {
                const char *r = std::getenv("RANK"), *w = std::getenv("WORLD_SIZE");
                const long rank = r ? std::strtol(r, nullptr, 10) : 0;
                const long world = std::max(1L, w ? std::strtol(w, nullptr, 10) : 1);
                const long next = (rank + 1) % world, prev = (rank + world - 1) % world;
                timer.message(true, next, "s" + std::to_string(s) + ":" + std::to_string(rank));
                timer.message(false, prev, "s" + std::to_string(s) + ":" + std::to_string(prev));
            }
            sleepMs(stepMs * 0.3);
            timer.endEvent("comm");
            timer.endEvent("step");
        }
        g_stop.store(true);
        loader.join();
        timer.close();
        return timer.ok() ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "live_worker: %s\n", e.what());
        return 1;
    }
}
