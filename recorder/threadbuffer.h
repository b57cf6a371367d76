// ThreadBuffer — one recording thread's single-producer/single-consumer record queue.
//
// The producer (the recording thread) writes a 32-byte Record into a power-of-two ring and
// publishes it with one release store of the tail; the consumer (the writer thread) reads up
// to the tail and releases slots with one store of the head per batch. Neither side ever
// blocks or takes a lock.
//
// Memory: a ring starts small (kInitialCapacity records, 8 KiB) and doubles when it is full, up
// to the configured capacity (buffer_events) — so a thread that records a few events costs a few
// KiB, not the whole capacity (500 threads recording one event each used to commit 1 GB). The
// consumer frees an outgrown ring once it has read it. A ring never shrinks while its thread
// lives; the buffer of an exited thread is freed by the writer once drained (`retired`).
// Overflow (TimerConfig::overflow), once the ring is at the configured capacity:
//  - DropNewest: a record that does not fit is dropped and counted. The producer reserves one
//    slot for the E of every B it wrote, so an E always fits: a B is accepted only when there
//    is room for it, its E and every reserved E; an I/X/thread record needs room for itself
//    plus the reservations.
//  - Grow: the ring keeps doubling past it. Lossless.
// Growing (both cases): the producer allocates a ring twice the size, links it with a release
// store of `next`, and continues there; the consumer finishes the old ring, frees it and
// follows `next`.
// The producer-side nesting stack (names of open events) also lives here; only the owning
// thread touches it.
//
// Threading: push*/stack members — owning thread only; drain() — writer thread only; counters
// and `retired` — any thread (atomics).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace syncline::rec {

enum class RecordType : uint8_t
{
    Begin,
    End,
    Instant,
    Complete,
    ThreadName,
    Message, // a `msg` record: nameId 0 = send, 1 = recv; dur = peer rank; args = the id, as JSON text
    Counter // a `C` record (format 1.1): nameId the counter's name; dur = the double value's bits
};

// One buffered record: 32 bytes. `args` (a JSON object's text) is owned by the record.
struct Record
{
    RecordType type = RecordType::Begin;
    uint32_t nameId = 0;
    int64_t ts = 0;
    int64_t dur = 0;
    std::string *args = nullptr;
};
static_assert(sizeof(Record) == 32, "Record must stay 32 bytes");

class ThreadBuffer
{
public:
    struct OpenEvent
    {
        uint32_t nameId;
        bool written; // false when its B was dropped (its E is dropped too)
    };

    static constexpr size_t kInitialCapacity = 256; // records (32 B each)

    // `capacity`: the configured capacity in records (rounded up to a power of two, >= 64).
    ThreadBuffer(int64_t tid, size_t capacity, bool grow);
    ~ThreadBuffer();
    ThreadBuffer(const ThreadBuffer &) = delete;
    ThreadBuffer &operator=(const ThreadBuffer &) = delete;

    int64_t tid() const { return m_tid; }

    // Producer side. pushBegin reserves room for the matching E; pushEnd uses that room.
    bool pushBegin(const Record &r);
    void pushEnd(const Record &r);
    bool pushOther(const Record &r);

    // Consumer side: calls f(Record&) for up to `max` records in order, returns the count.
    template <class F> size_t drain(F &&f, size_t max);
    bool empty() const;
    // Records the current (producer) ring holds room for (tests, memory accounting).
    size_t ringCapacity() const { return size_t(m_prodRing->mask + 1); }

    std::vector<OpenEvent> &stack() { return m_stack; }
    // Owning thread only (the sole writer of these counters: a plain load+store, no RMW).
    void countDrop()
    {
        dropped.store(dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    void addOpenWritten(int64_t delta)
    {
        openWritten.store(openWritten.load(std::memory_order_relaxed) + delta,
                          std::memory_order_relaxed);
    }

    std::atomic<uint64_t> accepted{0};   // records queued
    std::atomic<uint64_t> dropped{0};    // events lost to the overflow policy
    std::atomic<uint64_t> bufferFull{0}; // times a push found the buffer full at its capacity
    std::atomic<int64_t> openWritten{0}; // open events whose B was queued
    std::atomic<bool> retired{false};    // the owning thread has exited

private:
    struct Ring
    {
        explicit Ring(size_t capacity) : mask(capacity - 1), slots(new Record[capacity]) {}
        const uint64_t mask;
        std::unique_ptr<Record[]> slots;
        alignas(64) std::atomic<uint64_t> head{0};
        alignas(64) std::atomic<uint64_t> tail{0};
        std::atomic<Ring *> next{nullptr};
    };

    bool push(const Record &r, uint64_t need);

    const int64_t m_tid;
    const bool m_grow;
    const uint64_t m_capacity; // the configured capacity (power of two)
    // Producer-owned.
    alignas(64) Ring *m_prodRing;
    uint64_t m_tail = 0;
    uint64_t m_cachedHead = 0;
    uint64_t m_reserved = 0;
    std::vector<OpenEvent> m_stack;
    // Consumer-owned.
    alignas(64) Ring *m_consRing;
};

template <class F> size_t ThreadBuffer::drain(F &&f, size_t max)
{
    size_t n = 0;
    for (;;) {
        Ring *r = m_consRing;
        uint64_t h = r->head.load(std::memory_order_relaxed);
        uint64_t t = r->tail.load(std::memory_order_acquire);
        while (h != t && n < max) {
            f(r->slots[h & r->mask]);
            ++h;
            ++n;
        }
        r->head.store(h, std::memory_order_release);
        if (n >= max)
            return n;
        Ring *next = r->next.load(std::memory_order_acquire);
        if (!next)
            return n;
        // The producer left this ring before publishing `next`: its tail is final.
        if (h != r->tail.load(std::memory_order_acquire))
            continue;
        m_consRing = next;
        delete r;
    }
}

} // namespace syncline::rec
