// NameTable — process-wide interning of event, thread and arg names to dense uint32 ids.
//
// Ids are never reused or freed while the process lives; name(id) returns a reference that
// stays valid forever. The table is bounded: after kMaxNames distinct names intern() returns
// kFull (one line on stderr, once) and records under such a name are dropped and counted by
// the caller (FileTimerClient), so a process that invents names without end neither aborts
// nor grows without bound (about 100 bytes a name: ~110 MB at the limit). intern() takes a mutex the first time a thread sees a name; the
// per-thread cache (NameIdCache) keeps the hot path lock-free afterwards.
// Threading: intern() and name() are safe from any thread; name(id) is lock-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace syncline::rec {

class NameTable
{
public:
    static NameTable &instance();

    static constexpr uint32_t kMaxNames = 1u << 20; // 1,048,576 distinct names per process
    static constexpr uint32_t kFull = UINT32_MAX;   // intern()'s answer once the table is full

    uint32_t intern(std::string_view name);
    // id must have been returned by intern() and not be kFull.
    const std::string &name(uint32_t id) const
    {
        return m_chunks[id >> kChunkBits].load(std::memory_order_acquire)[id & kChunkMask];
    }
    // pthread_atfork helpers (ClientRegistry): keep the table consistent across fork().
    void lockForFork() { m_mutex.lock(); }
    void unlockAfterFork() { m_mutex.unlock(); }

private:
    NameTable() = default;
    static constexpr uint32_t kChunkBits = 12;
    static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
    static constexpr uint32_t kMaxChunks = kMaxNames >> kChunkBits;

    std::mutex m_mutex;
    std::unordered_map<std::string, uint32_t> m_ids;
    std::atomic<std::string *> m_chunks[kMaxChunks] = {};
    std::atomic<uint32_t> m_size{0};
    bool m_fullReported = false; // under m_mutex
};

} // namespace syncline::rec
