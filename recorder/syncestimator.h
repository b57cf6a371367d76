// SyncEstimator — the recorder's live estimate of reference time from its recent sync bursts
// (for FileTimerClient::globalTimeNs()). The post-hoc engine (sync/) does the real correction;
// this is the cheap running version a worker can ask while it runs.
//
// Per burst it keeps the tightest bound in each direction separately: with θ = reference − local,
//     lower = max over the burst of (t3 − t4)  <=  θ  <=  upper = min over the burst of (t2 − t1)
// at the burst's local time x (the mean of its exchanges' midpoints). Over the last kWindow
// bursts it fits θ(x) = a + b·(x − x_last) by least squares on the interval centres, weighted by
// 1/(half-width + 50 ns)², slope b clamped to ±500 ppm. Each burst's interval is then carried
// to the query time x along the fitted slope and widened by |x − x_i| × slope uncertainty:
//     [lower_i + b·(x − x_i) − u·|x − x_i|,  upper_i + b·(x − x_i) + u·|x − x_i|]
// with u = (width_first + width_last) / (x_last − x_first) for two or more bursts and 100 ppm
// (the largest drift assumed) for one. θ(x) is the fit clamped into the intersection of these
// intervals, and the bound is its distance to the farther end. (If they do not intersect, the
// slope error was underestimated: the bound falls back to max |residual| + half-width + spread.)
//
// Worked example: bursts at x = 0 s and 1 s with intervals [990, 1010] ns and [1090, 1110] ns
// give b = 100 ns/s (0.1 ppm) and u = 40 ns/s. At x = 2 s they carry to [1110, 1290] and
// [1150, 1250]: θ = 1200 ns, bound 50 ns. At x = 0.5 s both carry to [1020, 1080]: θ = 1050 ns,
// bound 30 ns.
//
// Units: ns. Threading: not thread-safe; SyncClient guards it with its mutex.
#pragma once

#include <cstdint>
#include <deque>

namespace syncline::rec {

class SyncEstimator
{
public:
    static constexpr int kWindow = 16;

    void clear() { m_bursts.clear(); }
    // Adds one burst's tightest bounds. Ignores an inconsistent burst (lower > upper).
    void addBurst(int64_t localNs, int64_t lowerNs, int64_t upperNs);
    int burstCount() const { return static_cast<int>(m_bursts.size()); }
    // Reference time at local time localNs and its bound; false before the first burst.
    bool estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const;

private:
    struct Burst
    {
        int64_t local;
        int64_t lower;
        int64_t upper;
    };
    std::deque<Burst> m_bursts; // by local time, oldest first
};

} // namespace syncline::rec
