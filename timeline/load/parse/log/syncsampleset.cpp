// SyncSampleSet — see syncsampleset.h.
#include "timeline/load/parse/log/syncsampleset.h"

#include <algorithm>

namespace syncline::load {

void SyncSampleSet::add(std::string_view ref, const sync::ClockSample &sample)
{
    // Linear: a log has one reference, two after the time server moved.
    uint32_t index = 0;
    while (index < m_refs.size() && m_refs[index] != ref)
        ++index;
    if (index == m_refs.size())
        m_refs.emplace_back(ref);
    m_samples.emplace_back(index, sample);
}

uint32_t SyncSampleSet::bestRef(size_t *count) const
{
    std::vector<size_t> perRef(m_refs.size(), 0);
    for (const auto &s : m_samples)
        ++perRef[s.first];
    const auto best = uint32_t(std::max_element(perRef.begin(), perRef.end()) - perRef.begin());
    if (count)
        *count = perRef[best];
    return best;
}

std::vector<sync::ClockSample> SyncSampleSet::samplesOf(uint32_t ref) const
{
    std::vector<sync::ClockSample> out;
    for (const auto &s : m_samples)
        if (s.first == ref)
            out.push_back(s.second);
    return out;
}

} // namespace syncline::load
