// The range of times a syncline log may carry (docs/log-format.md, "Reliability"): every ts,
// t1..t4 and an X record's end (ts + dur) lie within ±2^62 ns (146 years either side of the
// clock's zero). The recorder refuses to write a time outside it (recordInterval throws), the
// time-server client refuses a reply implying one, and the loaders drop a record outside it with
// a problem naming its line. Inside it every difference, origin shift and clock-map offset the
// timeline takes fits in int64 (no overflow is possible, which is why the bound exists).
// Plain constants and pure functions; no threading rules.
#pragma once

#include <cstdint>

namespace syncline::rec {

constexpr int64_t kMaxLogTimeNs = int64_t(1) << 62;

inline bool logTimeInRange(int64_t t)
{
    return t >= -kMaxLogTimeNs && t <= kMaxLogTimeNs;
}

// start + dur (dur >= 0) into *end; false when the end would be past the range.
inline bool logEndInRange(int64_t start, int64_t dur, int64_t *end)
{
    return !__builtin_add_overflow(start, dur, end) && logTimeInRange(*end);
}

} // namespace syncline::rec
