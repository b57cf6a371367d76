// Varints for the loader's binary cache files (EventStore, LinkStore): LEB128 unsigned, zigzag
// for signed values, a bounds-checked reader, and an exact pread.
// Threading: free functions and a value; any thread.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <unistd.h>

namespace syncline::load::varint {

inline void put(std::string &out, uint64_t v)
{
    while (v >= 0x80) {
        out += char(uint8_t(v) | 0x80);
        v >>= 7;
    }
    out += char(uint8_t(v));
}

inline uint64_t zig(int64_t v)
{
    return (uint64_t(v) << 1) ^ uint64_t(v >> 63);
}

inline int64_t unzig(uint64_t v)
{
    return int64_t(v >> 1) ^ -int64_t(v & 1);
}

// Reads varints from [p, end): any overrun or over-long varint sets bad and yields 0.
struct Reader
{
    const uint8_t *p, *end;
    bool bad = false;
    explicit Reader(std::string_view bytes)
        : p(reinterpret_cast<const uint8_t *>(bytes.data())), end(p + bytes.size())
    {
    }
    uint64_t get()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p == end) {
                bad = true;
                return 0;
            }
            const uint8_t b = *p++;
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        bad = true;
        return 0;
    }
    // The same without the end check, for a caller that made sure at least kMaxBytes bytes
    // remain (an over-long varint still sets bad and stops after kMaxBytes).
    static constexpr size_t kMaxBytes = 10;
    size_t left() const { return size_t(end - p); }
    uint64_t getUnchecked()
    {
        uint64_t v = *p++;
        if (v < 0x80) [[likely]]
            return v;
        v &= 0x7f;
        for (int shift = 7; shift < 70; shift += 7) {
            const uint64_t b = *p++;
            v |= (b & 0x7f) << shift;
            if (b < 0x80)
                return v;
        }
        bad = true;
        return 0;
    }
};

// Reads exactly n bytes at offset (false on an error or end of file).
inline bool preadExact(int fd, char *out, size_t n, int64_t offset)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out + got, n - got, off_t(offset + int64_t(got)));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        got += size_t(r);
    }
    return true;
}

} // namespace syncline::load::varint
