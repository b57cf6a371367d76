#include "timeline/load/build/eventkindlookup.h"

#include "timeline/model/timeline.h"

#include "recorder/timerconfig.h"

#include <cstdlib>

namespace syncline::load {

EventKindLookup::EventKindLookup() = default;

EventKindLookup::EventKindLookup(std::shared_ptr<const rec::TimerConfig> config)
    : m_config(std::move(config))
{
}

void EventKindLookup::resolve(const StringTable &names, uint32_t nameId)
{
    if (nameId >= m_cache.size())
        m_cache.resize(std::max<size_t>(names.size(), nameId + 1));
    Entry &e = m_cache[nameId];
    if (e.resolved)
        return;
    e.resolved = true;
    if (!m_config)
        return;
    if (const rec::EventKind *kind = m_config->matchKind(names.name(nameId))) {
        e.maxNs = kind->expectedMaxNs;
        e.collective = kind->category == "collective";
        e.category = kind->category;
        e.colour = kind->color;
    }
}

void EventKindLookup::describe(Timeline &tl)
{
    const size_t n = tl.names.size();
    if (!m_config) {
        tl.kinds.resize(n);
        return;
    }
    for (size_t i = tl.kinds.size(); i < n; ++i) {
        resolve(tl.names, uint32_t(i));
        const Entry &e = m_cache[i];
        NameKind k;
        k.category = e.category;
        k.collective = e.collective;
        if (e.colour.size() == 7 && e.colour[0] == '#') { // validated by TimerConfig
            k.rgb = uint32_t(std::strtoul(e.colour.c_str() + 1, nullptr, 16));
            k.hasColour = true;
        }
        tl.kinds.push_back(std::move(k));
    }
}

int64_t EventKindLookup::expectedMaxNs(const StringTable &names, uint32_t nameId)
{
    resolve(names, nameId);
    return m_cache[nameId].maxNs;
}

bool EventKindLookup::isCollective(const StringTable &names, uint32_t nameId)
{
    resolve(names, nameId);
    return m_cache[nameId].collective;
}

bool EventKindLookup::hasCategory(const StringTable &names, uint32_t nameId)
{
    resolve(names, nameId);
    return !m_cache[nameId].category.empty();
}

} // namespace syncline::load
