// NameIdCache — the calling thread's event-name → NameTable id lookup, on the recording hot
// path (FileTimerClient::startEvent/endEvent/instant/recordInterval).
//
// Three levels: a 64-entry direct-mapped cache keyed on the name's (pointer, length), whose hits
// are verified by content so a reused pointer with other text never gives a wrong id (the usual
// caller passes the same string literal every time: one compare and one memcmp); then a
// per-thread hash map on the text; then NameTable::intern(), which takes a mutex only the first
// time the process sees a name.
// Invariant: id(s) == NameTable::instance().intern(s) for every s (NameTable::kFull for a new
// name once the table is full; such names are not cached).
// Threading: all state is thread-local; id() is safe from any thread and never blocks after a
// thread's first use of a name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace syncline::rec {

class NameIdCache
{
public:
    static uint32_t id(std::string_view name)
    {
        Entry &e = t_entries[((uintptr_t(name.data()) >> 3) ^ name.size()) & (kEntries - 1)];
        if (e.ptr == name.data() && e.len == name.size() && e.text &&
            std::memcmp(e.text->data(), name.data(), name.size()) == 0)
            return e.id;
        return lookup(name, e);
    }

private:
    struct Entry
    {
        const char *ptr;
        size_t len;
        uint32_t id;
        const std::string *text; // the NameTable's copy (lives forever)
    };
    static constexpr size_t kEntries = 64;

    // The hash map and NameTable levels; refills `e`.
    static uint32_t lookup(std::string_view name, Entry &e);

    static inline thread_local Entry t_entries[kEntries];
};

} // namespace syncline::rec
