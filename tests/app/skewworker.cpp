// skew_worker — a worker process for tst_skewmultiprocess: records with FileTimerClient (whose
// synthetic clock transform, time sync and identity come from the environment the test sets:
// SYNCLINE_TEST_CLOCK_OFFSET_NS / _DRIFT_PPM, SYNCLINE_HOST / SYNCLINE_BOOT_ID, RANK, ...) and
// stamps instant events "mark-0", "mark-1", ... at shared TRUE instants: round k fires when the
// machine's CLOCK_MONOTONIC_RAW (one clock for every process here, whatever skew the recorder
// applies) reaches start + k·period. It sleeps until 2 ms before and spins the rest, so all
// workers stamp within microseconds of each other unless the scheduler preempts one (the test
// recovers each stamp's true instant from the header's `skew` anyway).
//
// Usage: skew_worker --config PATH --log PATH --start-raw NS --period-ms MS --rounds N
//                    [--tail-ms MS]
// Exit status: 0 ok, 2 bad arguments, 3 no sync estimate within 10 s (no server answering).
#include "../common/monotonicraw.h"
#include "recorder/filetimerclient.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

// True time: the machine's CLOCK_MONOTONIC_RAW, whatever skew the recorder applies.
constexpr auto &trueNow = syncline::test::monotonicRawNs;

void waitUntilTrue(int64_t target)
{
    const int64_t early = target - 2'000'000 - trueNow();
    if (early > 0)
        std::this_thread::sleep_for(std::chrono::nanoseconds(early));
    while (trueNow() < target) {
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::string config, log;
    int64_t startRaw = 0;
    long periodMs = 100, rounds = 0, tailMs = 400;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const char *v = argv[i + 1];
        if (key == "--config")
            config = v;
        else if (key == "--log")
            log = v;
        else if (key == "--start-raw")
            startRaw = std::strtoll(v, nullptr, 10);
        else if (key == "--period-ms")
            periodMs = std::strtol(v, nullptr, 10);
        else if (key == "--rounds")
            rounds = std::strtol(v, nullptr, 10);
        else if (key == "--tail-ms")
            tailMs = std::strtol(v, nullptr, 10);
        else {
            std::fprintf(stderr, "skew_worker: unknown argument %s\n", key.c_str());
            return 2;
        }
    }
    if (config.empty() || log.empty() || startRaw <= 0 || rounds <= 0 || periodMs <= 0) {
        std::fprintf(stderr, "skew_worker: need --config --log --start-raw --period-ms --rounds\n");
        return 2;
    }
    syncline::rec::FileTimerClient timer(config, log);
    // Marks only once the sync client has samples, so they lie inside the sampled span.
    int64_t bound = -1;
    const int64_t giveUp = trueNow() + 10'000'000'000;
    while ((timer.globalTimeNs(&bound), bound < 0) && trueNow() < giveUp)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (bound < 0) {
        std::fprintf(stderr, "skew_worker rank %lld: no time sync estimate within 10 s\n",
                     (long long)timer.rank());
        return 3;
    }
    for (long k = 0; k < rounds; ++k) {
        waitUntilTrue(startRaw + k * periodMs * 1'000'000);
        timer.instant("mark-" + std::to_string(k));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(tailMs)); // more bursts after the marks
    timer.close();
    std::printf("skew_worker rank %lld: %ld marks, live bound %lld ns\n", (long long)timer.rank(),
                rounds, (long long)bound);
    return timer.ok() ? 0 : 1;
}
