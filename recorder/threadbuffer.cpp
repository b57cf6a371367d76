// ThreadBuffer — see threadbuffer.h.
#include "recorder/threadbuffer.h"

#include <algorithm>

namespace syncline::rec {

namespace {
// Counters have a single writer (the producer): a plain load+store avoids a locked RMW.
inline void bump(std::atomic<uint64_t> &c)
{
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

size_t roundUpPow2(size_t n)
{
    size_t p = 64;
    while (p < n)
        p <<= 1;
    return p;
}
} // namespace

ThreadBuffer::ThreadBuffer(int64_t tid, size_t capacity, bool grow)
    : m_tid(tid), m_grow(grow), m_capacity(roundUpPow2(capacity)),
      m_prodRing(new Ring(std::min<size_t>(m_capacity, kInitialCapacity))), m_consRing(m_prodRing)
{
    m_stack.reserve(64);
}

ThreadBuffer::~ThreadBuffer()
{
    Ring *r = m_consRing;
    while (r) {
        const uint64_t t = r->tail.load(std::memory_order_acquire);
        for (uint64_t h = r->head.load(std::memory_order_relaxed); h != t; ++h)
            delete r->slots[h & r->mask].args;
        Ring *next = r->next.load(std::memory_order_acquire);
        delete r;
        r = next;
    }
}

bool ThreadBuffer::push(const Record &r, uint64_t need)
{
    Ring *ring = m_prodRing;
    const uint64_t cap = ring->mask + 1;
    if (m_tail - m_cachedHead + need > cap) {
        m_cachedHead = ring->head.load(std::memory_order_acquire);
        if (m_tail - m_cachedHead + need > cap) {
            if (cap >= m_capacity) {
                bump(bufferFull);
                if (!m_grow)
                    return false;
            }
            Ring *bigger = new Ring(cap * 2);
            ring->next.store(bigger, std::memory_order_release);
            m_prodRing = ring = bigger;
            m_tail = 0;
            m_cachedHead = 0;
        }
    }
    ring->slots[m_tail & ring->mask] = r;
    ring->tail.store(++m_tail, std::memory_order_release);
    bump(accepted);
    return true;
}

bool ThreadBuffer::pushBegin(const Record &r)
{
    if (!push(r, m_reserved + 2))
        return false;
    ++m_reserved;
    return true;
}

void ThreadBuffer::pushEnd(const Record &r)
{
    // The slot was reserved by pushBegin, so this cannot fail.
    --m_reserved;
    push(r, 1);
}

bool ThreadBuffer::pushOther(const Record &r)
{
    return push(r, m_reserved + 1);
}

bool ThreadBuffer::empty() const
{
    Ring *r = m_consRing;
    return r->head.load(std::memory_order_relaxed) == r->tail.load(std::memory_order_acquire) &&
           r->next.load(std::memory_order_acquire) == nullptr;
}

} // namespace syncline::rec
