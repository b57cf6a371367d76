// Saturating int64 arithmetic for times and offsets that come from files and caches (any value
// a forged input may hold): a + b and a − b held at the int64 range instead of overflowing.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <limits>

namespace syncline::sync {

inline int64_t saturatingAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

inline int64_t saturatingSub(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

} // namespace syncline::sync
