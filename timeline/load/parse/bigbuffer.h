// BigBuffer — a growable byte buffer for a whole input held in memory (a Chrome trace's text, an
// inflated gzip stream): anonymous memory advised for transparent huge pages, so filling it
// takes one page fault per 2 MiB instead of one per 4 KiB, and grown in place (mremap) without
// copying what it holds. Faults are what filling fresh memory costs: ~15 µs each on a virtual
// machine, 60 ms for the 15 MB of a real Kineto trace's text in 4 KiB pages, under 1 ms in
// 2 MiB ones (where the system gives none, it is the 4 KiB case, never worse).
// Invariant: at least kPadding readable bytes follow capacity() (simdjson reads up to 64 bytes
// past a document's end); memory never written reads as zeros.
// Threading: a plain value (move-only); one thread at a time.
#pragma once

#include <cstddef>

namespace syncline::load {

class BigBuffer
{
public:
    static constexpr size_t kPadding = 64; // ≥ simdjson::SIMDJSON_PADDING

    BigBuffer() = default;
    BigBuffer(const BigBuffer &) = delete;
    BigBuffer &operator=(const BigBuffer &) = delete;
    BigBuffer(BigBuffer &&other) noexcept;
    BigBuffer &operator=(BigBuffer &&other) noexcept;
    ~BigBuffer();

    // Makes capacity() at least `bytes`, keeping the contents; false (and unchanged) when the
    // system refuses the memory.
    bool reserve(size_t bytes);
    char *data() { return m_data; }
    const char *data() const { return m_data; }
    size_t capacity() const { return m_capacity; }

private:
    void release();

    char *m_data = nullptr;
    size_t m_capacity = 0; // usable bytes; the mapping is m_mapped ≥ m_capacity + kPadding
    size_t m_mapped = 0;
};

} // namespace syncline::load
