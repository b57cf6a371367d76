// BigBuffer — see bigbuffer.h.
#include "timeline/load/parse/bigbuffer.h"

#include <sys/mman.h>

#include <utility>

namespace syncline::load {

namespace {

constexpr size_t kHuge = size_t(2) << 20; // a transparent huge page on x86-64 and arm64

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// `bytes` (a multiple of kHuge) of fresh anonymous memory starting on a kHuge boundary, so every
// 2 MiB of it can be one huge page; nullptr when refused.
char *mapAligned(size_t bytes)
{
    void *p = ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (p == MAP_FAILED)
        return nullptr;
    char *base = static_cast<char *>(p);
    char *aligned = reinterpret_cast<char *>(roundUp(reinterpret_cast<size_t>(base), kHuge));
    if (aligned > base)
        ::munmap(base, size_t(aligned - base));
    const size_t tail = size_t(base + bytes + kHuge - (aligned + bytes));
    if (tail > 0)
        ::munmap(aligned + bytes, tail);
    return aligned;
}

void adviseHuge(char *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    ::madvise(p, bytes, MADV_HUGEPAGE); // advice only: without it the memory is used as is
#else
    (void)p, (void)bytes;
#endif
}

} // namespace

BigBuffer::BigBuffer(BigBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_capacity(std::exchange(other.m_capacity, 0)), m_mapped(std::exchange(other.m_mapped, 0))
{
}

BigBuffer &BigBuffer::operator=(BigBuffer &&other) noexcept
{
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_capacity = std::exchange(other.m_capacity, 0);
        m_mapped = std::exchange(other.m_mapped, 0);
    }
    return *this;
}

BigBuffer::~BigBuffer() { release(); }

void BigBuffer::release()
{
    if (m_data)
        ::munmap(m_data, m_mapped);
    m_data = nullptr;
    m_capacity = m_mapped = 0;
}

bool BigBuffer::reserve(size_t bytes)
{
    if (bytes <= m_capacity && m_data)
        return true;
    if (bytes > (size_t(1) << 62))
        return false;
    const size_t mapped = roundUp(bytes + kPadding, kHuge);
    if (!m_data) {
        char *p = mapAligned(mapped);
        if (!p)
            return false;
        adviseHuge(p, mapped);
        m_data = p;
    } else {
        // Grown in place when the addresses after it are free, else moved by the kernel (page
        // tables, not bytes); the advice goes with the mapping.
        void *p = ::mremap(m_data, m_mapped, mapped, MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
            return false;
        m_data = static_cast<char *>(p);
        adviseHuge(m_data, mapped);
    }
    m_mapped = mapped;
    m_capacity = mapped - kPadding;
    return true;
}

} // namespace syncline::load
