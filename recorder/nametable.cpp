// NameTable — see nametable.h.
#include "recorder/nametable.h"

#include <cstdio>

namespace syncline::rec {

NameTable &NameTable::instance()
{
    static NameTable *table = new NameTable; // never destroyed: ids outlive static destructors
    return *table;
}

uint32_t NameTable::intern(std::string_view name)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const std::string key(name);
    if (auto it = m_ids.find(key); it != m_ids.end())
        return it->second;
    const uint32_t id = m_size.load(std::memory_order_relaxed);
    if (id >= kMaxNames) {
        if (!m_fullReported) {
            m_fullReported = true;
            std::fprintf(stderr,
                         "syncline: more than %u distinct event/thread names in this process; "
                         "records with a new name are dropped (counted as dropped)\n",
                         kMaxNames);
        }
        return kFull;
    }
    std::string *chunk = m_chunks[id >> kChunkBits].load(std::memory_order_relaxed);
    if (!chunk) {
        chunk = new std::string[kChunkMask + 1];
        m_chunks[id >> kChunkBits].store(chunk, std::memory_order_release);
    }
    chunk[id & kChunkMask] = key;
    m_ids.emplace(key, id);
    m_size.store(id + 1, std::memory_order_release);
    return id;
}

} // namespace syncline::rec
