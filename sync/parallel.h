// Parallel loops over the machine's cores — the one helper the engine (sync/) and the loader's
// message pairing share:
//  - parallelFor(n, fn): fn(i) for every i in [0, n), items handed out one at a time (uneven
//    items balance), at most one thread per item, the calling thread one of them;
//  - runChunks(n, threads, run): run(t, begin, end) for chunk t of `threads` equal chunks of
//    [0, n), chunk 0 on the calling thread (a chunk's results can be joined in order).
// Both return when every item is done. fn / run must only read shared state and write their
// own items' results.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace syncline::sync {

template <class F> void parallelFor(size_t n, F fn)
{
    const size_t threads =
        std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(n, 1));
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < n; i = next++)
            fn(i);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
}

template <class R> void runChunks(size_t n, size_t threads, R run)
{
    auto chunk = [&](size_t t) { run(t, t * n / threads, (t + 1) * n / threads); };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(chunk, t);
    chunk(0);
    for (std::thread &th : pool)
        th.join();
}

} // namespace syncline::sync
