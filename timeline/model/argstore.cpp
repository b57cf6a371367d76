// ArgStore — see argstore.h.
#include "timeline/model/argstore.h"

#include "timeline/model/hugepages.h"

#include <cstring>
#include <functional>

namespace syncline {

namespace {

constexpr size_t kChunk = 64 << 10; // arena chunk; a longer text gets a chunk of its own
constexpr size_t kHugeFrom = size_t(1) << 20; // arena bytes from which chunks are huge pages

uint32_t hashOf(std::string_view s)
{
    const size_t h = std::hash<std::string_view>()(s);
    return uint32_t(h ^ (h >> 32));
}

} // namespace

ArgStore::ArgStore(const ArgStore &other)
{
    *this = other;
}

ArgStore &ArgStore::operator=(const ArgStore &other)
{
    if (this == &other)
        return *this;
    *this = ArgStore();
    for (size_t i = 0; i < other.size(); ++i)
        intern(other.text(uint32_t(i)));
    return *this;
}

void ArgStore::ChunkFree::operator()(char *p) const
{
    if (mapped)
        hugepages::unmap(p, mapped);
    else
        delete[] p;
}

std::string_view ArgStore::store(std::string_view text)
{
    if (text.empty())
        return {};
    if (m_chunkSize - m_chunkUsed < text.size()) {
        // Chunks double from 4 KiB to 64 KiB, so a file with a few distinct texts stays small;
        // past kHugeFrom bytes they are whole huge pages.
        size_t n = std::max(text.size(), std::min(kChunk, std::max<size_t>(4096, m_chunkSize * 2)));
        Chunk chunk;
        if (m_arenaBytes >= kHugeFrom) {
            n = hugepages::roundUp(n);
            chunk = Chunk(hugepages::map(n), ChunkFree{n});
        }
        if (!chunk)
            chunk = Chunk(new char[n]); // not zeroed: written below
        m_chunks.push_back(std::move(chunk));
        m_chunkUsed = 0;
        m_chunkSize = n;
        m_arenaBytes += n;
    }
    char *p = m_chunks.back().get() + m_chunkUsed;
    std::memcpy(p, text.data(), text.size());
    m_chunkUsed += text.size();
    return {p, text.size()};
}

void ArgStore::grow()
{
    const size_t n = m_index.empty() ? 64 : m_index.size() * 2;
    std::vector<uint32_t> index(n, 0);
    for (uint32_t id = 0; id < m_texts.size(); ++id) {
        size_t k = m_hashes[id] & (n - 1);
        while (index[k] != 0)
            k = (k + 1) & (n - 1);
        index[k] = id + 1;
    }
    m_index.swap(index);
}

uint32_t ArgStore::find(std::string_view text) const
{
    return find(text, hashOf(text));
}

uint32_t ArgStore::find(std::string_view text, uint32_t h) const
{
    if (m_index.empty())
        return UINT32_MAX;
    const size_t mask = m_index.size() - 1;
    for (size_t k = h & mask; m_index[k] != 0; k = (k + 1) & mask) {
        const uint32_t id = m_index[k] - 1;
        if (m_hashes[id] == h && m_texts[id] == text)
            return id;
    }
    return UINT32_MAX;
}

uint32_t ArgStore::intern(std::string_view text)
{
    const uint32_t h = hashOf(text);
    if (const uint32_t id = find(text, h); id != UINT32_MAX)
        return id;
    if ((m_texts.size() + 1) * 2 > m_index.size())
        grow();
    const auto id = uint32_t(m_texts.size());
    m_texts.push_back(store(text));
    m_hashes.push_back(h);
    const size_t mask = m_index.size() - 1;
    size_t k = h & mask;
    while (m_index[k] != 0)
        k = (k + 1) & mask;
    m_index[k] = id + 1;
    return id;
}

std::vector<uint32_t> ArgStore::merge(const ArgStore &other)
{
    std::vector<uint32_t> remap(other.size());
    for (size_t i = 0; i < other.size(); ++i)
        remap[i] = intern(other.text(uint32_t(i)));
    return remap;
}

size_t ArgStore::bytes() const
{
    return m_arenaBytes + m_texts.capacity() * sizeof(std::string_view) + m_hashes.capacity() * 4 +
           m_index.capacity() * 4 + m_chunks.capacity() * sizeof(void *);
}

} // namespace syncline
