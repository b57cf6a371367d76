// ParsedFile — see parsedfile.h.
#include "timeline/load/parse/parsedfile.h"

#include "timeline/load/parse/textequal.h"

namespace syncline::load {

void ParsedFile::addArgs(EventTrack &t, uint32_t event, std::string_view json)
{
    // {} carries nothing (an object whose first key follows its '{' at once does).
    if ((json.size() < 2 || json[1] != '"') &&
        json.find_first_not_of("{} \t\n") == std::string_view::npos)
        return;
    uint32_t id = UINT32_MAX;
    for (size_t k = 0; k < kRecentArgs && id == UINT32_MAX; ++k)
        if (m_recentArgsId[k] != UINT32_MAX && equalText(m_recentArgs[k], json))
            id = m_recentArgsId[k];
    if (id == UINT32_MAX) {
        id = args.intern(json);
        m_recentArgs[m_recentNext].assign(json);
        m_recentArgsId[m_recentNext] = id;
        m_recentNext = (m_recentNext + 1) % kRecentArgs;
    }
    t.argRefs.emplace_back(event, id);
    t.flags[event] |= EventHasArgs;
}

} // namespace syncline::load
