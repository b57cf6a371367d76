// radixSort — a stable least-significant-digit radix sort of a range by an unsigned 64-bit key
// (what the clock correction sorts by: local times, ~10^6–10^7 of them per job, where a
// comparison sort was a tenth of the correction stage). Only the bits in which the keys differ
// are sorted (keys are taken relative to the smallest one), 11 bits a pass, through one scratch
// buffer of the range's size. Stable: elements with equal keys keep their order.
// Threading: pure; sorts one range on the calling thread.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace syncline::sync {

template <typename It, typename KeyOf> void radixSort(It first, It last, KeyOf keyOf)
{
    using T = typename std::iterator_traits<It>::value_type;
    const size_t n = size_t(last - first);
    if (n < 2)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (It it = first; it != last; ++it) {
        const uint64_t k = keyOf(*it);
        lo = std::min(lo, k);
        hi = std::max(hi, k);
    }
    const int bits = std::bit_width(hi - lo);
    if (bits == 0)
        return;
    if (n < 256) { // small ranges: a comparison sort is cheaper than the passes
        std::stable_sort(first, last, [&](const T &a, const T &b) { return keyOf(a) < keyOf(b); });
        return;
    }
    constexpr int kDigit = 11;
    constexpr size_t kRadix = size_t(1) << kDigit;
    std::vector<T> scratch(n);
    T *src = &*first, *dst = scratch.data();
    bool inScratch = false;
    for (int shift = 0; shift < bits; shift += kDigit) {
        std::array<size_t, kRadix + 1> count{};
        for (size_t i = 0; i < n; ++i)
            ++count[((keyOf(src[i]) - lo) >> shift & (kRadix - 1)) + 1];
        for (size_t d = 0; d < kRadix; ++d)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; ++i)
            dst[count[(keyOf(src[i]) - lo) >> shift & (kRadix - 1)]++] = std::move(src[i]);
        std::swap(src, dst);
        inScratch = !inScratch;
    }
    if (inScratch)
        std::move(scratch.begin(), scratch.end(), first);
}

} // namespace syncline::sync
