// EventKindLookup — what the timeline needs from the config's event kinds for one event name:
// its expected maximum duration (overdue flag) and whether it is a collective (clock alignment).
// Built from a recorder TimerConfig (the one config parser) or empty (no kinds: nothing
// overdue, no configured collectives). Results are cached per interned name id, so one lookup
// serves one StringTable (a file's names, or the timeline's): never mix tables in one lookup.
// Threading: const after construction except the cache; use one per thread or serialise.
#pragma once

#include "timeline/model/stringtable.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace syncline {
class Timeline;
namespace rec {
class TimerConfig;
}
} // namespace syncline

namespace syncline::load {

class EventKindLookup
{
public:
    EventKindLookup();
    explicit EventKindLookup(std::shared_ptr<const rec::TimerConfig> config);

    // -1 when the name has no expected maximum.
    int64_t expectedMaxNs(const StringTable &names, uint32_t nameId);
    // True when the name's kind has category "collective".
    bool isCollective(const StringTable &names, uint32_t nameId);
    // True when the config gives the name a kind with a category (then that category, not
    // name recognition, decides whether it is a collective).
    bool hasCategory(const StringTable &names, uint32_t nameId);
    // Fills timeline.kinds (category, explicit colour) for the names interned since the last call
    // (names from timeline.kinds.size() on).
    void describe(Timeline &timeline);
    bool hasConfig() const { return m_config != nullptr; }
    const rec::TimerConfig *config() const { return m_config.get(); }

private:
    void resolve(const StringTable &names, uint32_t nameId);

    struct Entry
    {
        bool resolved = false;
        bool collective = false;
        int64_t maxNs = -1;
        std::string category;
        std::string colour; // "#rrggbb" or ""
    };
    std::shared_ptr<const rec::TimerConfig> m_config;
    std::vector<Entry> m_cache;
};

} // namespace syncline::load
