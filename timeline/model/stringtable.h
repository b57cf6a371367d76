// StringTable — interns event names so each event stores a 4-byte id.
//
// Invariants: ids are dense, 0..size()-1, assigned in first-seen order; id 0 is always "".
// name(id) views stay valid for the table's lifetime (strings are stored in a deque).
// Threading: not thread-safe; parsers intern into their own table and merge with remap().
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncline {

class StringTable
{
public:
    StringTable();
    uint32_t intern(std::string_view s);
    std::string_view name(uint32_t id) const { return m_strings[id]; }
    uint32_t find(std::string_view s) const; // UINT32_MAX when absent
    size_t size() const { return m_strings.size(); }
    // Interns every string of `other`; returns other-id → this-id.
    std::vector<uint32_t> merge(const StringTable &other);

private:
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, uint32_t> m_index;
};

} // namespace syncline
