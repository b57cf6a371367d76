// ParsedFile — see parsedfile.h.
#include "timeline/load/parsedfile.h"

namespace syncline::load {

void ParsedFile::addArgs(EventTrack &t, uint32_t event, std::string_view json)
{
    if (json.find_first_not_of("{} \t\n") == std::string_view::npos)
        return; // {} carries nothing
    if (m_lastArgsId == UINT32_MAX || json != m_lastArgs) {
        m_lastArgsId = args.intern(json);
        m_lastArgs.assign(json);
    }
    t.argRefs.emplace_back(event, m_lastArgsId);
    t.flags[event] |= EventHasArgs;
}

} // namespace syncline::load
