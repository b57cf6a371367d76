// ArgStore — the args objects of a timeline's events, interned: every distinct JSON object text
// is stored once, and an event refers to it by a 4-byte id (EventTrack::argRefs).
//
// Why interning whole texts: on real logs the args of most events repeat ({"step": N} is shared
// by every event of step N on every worker), so the store holds a few bytes per step, not per
// event, and no event owns an allocation. Texts are kept byte for byte as the log wrote them,
// so every consumer (details panel, CSV / Chrome exporters, Python's PyEvent.args) gets exactly
// the text it got before; a text that is unique per event costs its bytes once plus ~28 bytes
// of index, in one arena (no per-text heap object).
//
// Invariants: ids are dense, 0..size()-1, in first-seen order; a text never changes once
// interned (to change an event's args, intern the new text and point its ref at the new id);
// text(id) views stay valid for the store's lifetime (the arena grows by chunks, never moves).
// Threading: not thread-safe; each parser interns into its own store and the builder merges
// them with merge().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

class ArgStore
{
public:
    ArgStore() = default;
    ArgStore(ArgStore &&) noexcept = default;
    ArgStore &operator=(ArgStore &&) noexcept = default;
    ArgStore(const ArgStore &other);
    ArgStore &operator=(const ArgStore &other);

    uint32_t intern(std::string_view text);
    uint32_t find(std::string_view text) const; // UINT32_MAX when absent
    std::string_view text(uint32_t id) const { return m_texts[id]; }
    // The text as a std::string (what the consumers before interning got from a vector).
    std::string operator[](size_t id) const { return std::string(m_texts[id]); }
    size_t size() const { return m_texts.size(); }
    bool empty() const { return m_texts.empty(); }
    // Interns every text of `other`; returns other-id → this-id.
    std::vector<uint32_t> merge(const ArgStore &other);
    // Bytes held (arena chunks, views, hashes, index), for memory accounting.
    size_t bytes() const;

private:
    uint32_t find(std::string_view text, uint32_t hash) const;
    std::string_view store(std::string_view text);
    void grow();

    // An arena chunk: from the heap while the arena is small, a huge-page mapping once it holds
    // megabytes (a trace whose events each carry their own args: one page fault per 2 MiB).
    struct ChunkFree
    {
        size_t mapped = 0; // bytes of the huge-page mapping; 0: from new[]
        void operator()(char *p) const;
    };
    using Chunk = std::unique_ptr<char[], ChunkFree>;
    std::vector<Chunk> m_chunks;
    size_t m_chunkUsed = 0, m_chunkSize = 0, m_arenaBytes = 0;
    std::vector<std::string_view> m_texts;
    std::vector<uint32_t> m_hashes; // per id, the low 32 bits of the text's hash
    std::vector<uint32_t> m_index;  // open addressing: id + 1, 0 = empty; size a power of two
};

} // namespace syncline
