#include "timeline/model/stringtable.h"

namespace syncline {

StringTable::StringTable()
{
    intern(std::string_view());
}

uint32_t StringTable::intern(std::string_view s)
{
    auto it = m_index.find(s);
    if (it != m_index.end())
        return it->second;
    const auto id = static_cast<uint32_t>(m_strings.size());
    m_strings.emplace_back(s);
    m_index.emplace(std::string_view(m_strings.back()), id);
    return id;
}

uint32_t StringTable::find(std::string_view s) const
{
    auto it = m_index.find(s);
    return it == m_index.end() ? UINT32_MAX : it->second;
}

std::vector<uint32_t> StringTable::merge(const StringTable &other)
{
    std::vector<uint32_t> remap(other.size());
    for (size_t i = 0; i < other.size(); ++i)
        remap[i] = intern(other.name(static_cast<uint32_t>(i)));
    return remap;
}

} // namespace syncline
