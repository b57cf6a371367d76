// scaling — complexity checks that hold on a loaded machine: the CPU time of an input of size 2N
// against size N, measured in the same run, each the least of a few repetitions (a busy
// neighbour only ever adds time). A linear or N·log N reader takes about 2× (less when fixed
// costs count); a quadratic one 4×. No wall-clock limit is involved.
// Threading: measures the calling thread's CPU time; the measured work must run on it.
#pragma once

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <limits>
#include <string>

namespace scaling {

// CPU seconds this thread has used so far.
inline double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Result
{
    double n = 0;     // seconds for size N (least of the repetitions)
    double twoN = 0;  // seconds for size 2N
    double ratio() const { return twoN / std::max(n, 1e-9); }
    std::string describe() const
    {
        return "N: " + std::to_string(n * 1e3) + " ms, 2N: " + std::to_string(twoN * 1e3) +
               " ms, ratio " + std::to_string(ratio());
    }
};

// Makes the allocator keep what is freed (no returning pages to the system, big blocks from the
// heap), so a repetition does not pay page faults the previous one's frees caused: on a virtual
// machine those cost more than the work measured, and vary from run to run. Call once, first.
inline void keepFreedMemory()
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20); // the most glibc allows
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

// The bound the tests use: 2N within 2.5× N.
constexpr double kMaxRatio = 2.5;

// `run(k)` does the work for size k·N (k = 1 or 2) and returns the CPU seconds of the part to
// be measured (so set-up such as writing files stays outside); alternated, least of `reps`,
// after one unmeasured run of 2N (which leaves the memory the runs need allocated). While the
// ratio of the least times is above kMaxRatio, up to `maxReps` more alternations are taken: a
// neighbour's cache or page-fault noise only ever adds time, so more samples can only bring
// each least time closer to the true cost; a quadratic reader stays near 4× however many.
template <class Run>
Result measure(Run &&run, int reps = 3, int maxReps = 12)
{
    run(2);
    Result r;
    r.n = r.twoN = std::numeric_limits<double>::infinity();
    for (int i = 0; i < maxReps && (i < reps || r.ratio() >= kMaxRatio); ++i) {
        r.n = std::min(r.n, double(run(1)));
        r.twoN = std::min(r.twoN, double(run(2)));
    }
    return r;
}

// Sanitizers change what a reader costs per byte and per allocation (ASan's allocator ignores
// keepFreedMemory, TSan serialises): complexity is measured in the plain build only.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// First statement of a complexity test (the behaviour tests beside it run everywhere).
#define SCALING_SKIP_IF_SANITIZED()                                                                \
    do {                                                                                           \
        if (scaling::kSanitized)                                                                   \
            QSKIP("complexity is measured in the plain build (sanitizers change the cost model)"); \
    } while (0)

} // namespace scaling
