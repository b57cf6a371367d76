// OrderStats — exact k-th smallest values of a span of int64 (Stats' nearest-rank percentiles),
// without reordering or copying the span.
//
// A span of kDirect values or more is read twice: once to count its values per bucket of a
// log-linear histogram (summing them and taking the maximum on the way), once to copy out only
// the values of the buckets that hold the wanted ranks; nth_element then orders those few.
// Buckets: bucketOf(x) = 0 for x < 0, 1 + x for 0 <= x < 64, else 64 buckets per power of two
// (a bucket 1/64 of its power wide: its values lie within 1.6 % of each other), kBuckets in all.
// bucketOf never decreases as x grows, so the k-th smallest value lies in the bucket where the
// running count first exceeds k: the result is exact, the same as sorting and indexing.
// Example: 1,000 durations around 2 ms (2^20.9 ns, buckets 16 µs wide): the p99 bucket holds the
// handful of values within 16 µs of it; only those are copied and ordered.
// The copied part is small unless most values lie within 1.6 % of one another (then it is as
// large as the span, and the cost is one nth_element as without the histogram).
// A span under kDirect values is copied into the scratch buffer and selected directly.
// Threading: no state; a Scratch per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace syncline {

class OrderStats
{
public:
    static constexpr int kBuckets = 3713;
    static constexpr size_t kDirect = 4096;

    static int bucketOf(int64_t x)
    {
        if (x < 64)
            return x < 0 ? 0 : int(x) + 1;
        const int msb = 63 - __builtin_clzll(uint64_t(x)); // >= 6
        return 1 + ((msb - 5) << 6) + int((uint64_t(x) >> (msb - 6)) & 63);
    }

    struct Scratch
    {
        std::vector<uint32_t> hist;
        std::vector<int64_t> values;
    };
    struct Summary
    {
        int64_t total = 0; // sum of all values
        int64_t max = 0;   // 0 for an empty span
    };
    // out[i] = the ks[i]-th smallest value of v (0-based); ks ascending, each < v.size(),
    // out.size() == ks.size(). v is only read.
    static Summary select(std::span<const int64_t> v, std::span<const size_t> ks,
                          std::span<int64_t> out, Scratch &scratch);
};

} // namespace syncline
