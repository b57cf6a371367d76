// monotonicRawNs() — CLOCK_MONOTONIC_RAW in ns, for tests and benchmarks: the clock the recorder
// stamps with (recorder/clock.h) and the one every process on this machine shares, so a test can
// compare stamps written by other processes with its own reads. Header-only; thread-safe.
#pragma once

#include <cstdint>
#include <ctime>

namespace syncline::test {

inline int64_t monotonicRawNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace syncline::test
