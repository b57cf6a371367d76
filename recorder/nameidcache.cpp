// NameIdCache — see nameidcache.h.
#include "recorder/nameidcache.h"

#include "recorder/nametable.h"

#include <functional>
#include <unordered_map>

namespace syncline::rec {

namespace {

struct SvHash
{
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
thread_local std::unordered_map<std::string, uint32_t, SvHash, std::equal_to<>> t_names;

} // namespace

uint32_t NameIdCache::lookup(std::string_view name, Entry &e)
{
    uint32_t id;
    if (auto it = t_names.find(name); it != t_names.end()) {
        id = it->second;
    } else {
        id = NameTable::instance().intern(name);
        if (id == NameTable::kFull)
            return id; // not cached: the thread's map stays bounded too
        t_names.emplace(std::string(name), id);
    }
    const std::string &text = NameTable::instance().name(id);
    e = {name.data(), name.size(), id, &text};
    return id;
}

} // namespace syncline::rec
