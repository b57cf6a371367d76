// equalText — byte equality of two short texts (names, args objects, ids) without a library
// call: the bulk parser compares a few of these per line, where the call to memcmp cost more
// than the compare. Reads only inside both views (overlapping 8-byte words for 8+ bytes).
// Pure function; no threading rules.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace syncline::load {

inline bool equalText(std::string_view a, std::string_view b)
{
    const size_t n = a.size();
    if (n != b.size())
        return false;
    if (n >= 8 && n <= 16) {
        uint64_t a0, a1, b0, b1;
        std::memcpy(&a0, a.data(), 8);
        std::memcpy(&b0, b.data(), 8);
        std::memcpy(&a1, a.data() + n - 8, 8);
        std::memcpy(&b1, b.data() + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n < 8) {
        for (size_t i = 0; i < n; ++i)
            if (a[i] != b[i])
                return false;
        return true;
    }
    return std::memcmp(a.data(), b.data(), n) == 0;
}

} // namespace syncline::load
