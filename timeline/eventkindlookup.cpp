#include "eventkindlookup.h"

#include "recorder/timerconfig.h"

namespace syncline {

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

} // namespace syncline
