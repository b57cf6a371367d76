// Parallel loops over the machine's cores — the one helper the engine (sync/) and the loader's
// message pairing share:
//  - parallelFor(n, fn): fn(i) for every i in [0, n), items handed out one at a time (uneven
//    items balance), at most one thread per item, the calling thread one of them;
//  - runChunks(n, threads, run): run(t, begin, end) for chunk t of `threads` equal chunks of
//    [0, n), chunk 0 on the calling thread (a chunk's results can be joined in order).
// Both return when every item is done. fn / run must only read shared state and write their
// own items' results. An exception thrown by fn / run on any thread stops the remaining items
// and is rethrown on the calling thread once every thread has joined (one escaping a
// std::thread would end the process).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace syncline::sync {

// The first exception of a parallel loop, kept for the calling thread.
class FirstException
{
public:
    template <class G> void guard(G g)
    {
        try {
            g();
        } catch (...) {
            std::lock_guard lock(m_mutex);
            if (!m_first)
                m_first = std::current_exception();
            m_failed = true;
        }
    }
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    void rethrow()
    {
        if (m_first)
            std::rethrow_exception(m_first);
    }

private:
    std::mutex m_mutex;
    std::exception_ptr m_first;
    std::atomic<bool> m_failed{false};
};

template <class F> void parallelFor(size_t n, F fn)
{
    const size_t threads =
        std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(n, 1));
    std::atomic<size_t> next{0};
    FirstException error;
    auto work = [&] {
        error.guard([&] {
            for (size_t i = next++; i < n && !error.failed(); i = next++)
                fn(i);
        });
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
        t.join();
    error.rethrow();
}

template <class R> void runChunks(size_t n, size_t threads, R run)
{
    FirstException error;
    auto chunk = [&](size_t t) {
        error.guard([&] { run(t, t * n / threads, (t + 1) * n / threads); });
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(chunk, t);
    chunk(0);
    for (std::thread &th : pool)
        th.join();
    error.rethrow();
}

} // namespace syncline::sync
