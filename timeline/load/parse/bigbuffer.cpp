// BigBuffer — see bigbuffer.h.
#include "timeline/load/parse/bigbuffer.h"

#include "timeline/model/hugepages.h"

#include <sys/mman.h>

#include <utility>

namespace syncline::load {

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
    hugepages::unmap(m_data, m_mapped);
    m_data = nullptr;
    m_capacity = m_mapped = 0;
}

bool BigBuffer::reserve(size_t bytes)
{
    if (bytes <= m_capacity && m_data)
        return true;
    if (bytes > (size_t(1) << 62))
        return false;
    const size_t mapped = hugepages::roundUp(bytes + kPadding);
    if (!m_data) {
        char *p = hugepages::map(mapped);
        if (!p)
            return false;
        m_data = p;
    } else {
        // Grown in place when the addresses after it are free, else moved by the kernel (page
        // tables, not bytes); the advice goes with the mapping.
        void *p = ::mremap(m_data, m_mapped, mapped, MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
            return false;
        m_data = static_cast<char *>(p);
        hugepages::advise(m_data, mapped);
    }
    m_mapped = mapped;
    m_capacity = mapped - kPadding;
    return true;
}

} // namespace syncline::load
