// SyncSampleSet — see syncsampleset.h.
#include "timeline/load/parse/log/syncsampleset.h"

#include <algorithm>

namespace syncline::load {

bool SyncSampleSet::add(std::string_view ref, const sync::ClockSample &sample)
{
    uint32_t index = 0;
    if (!m_samples.empty() && m_refs[m_samples.back().first] == ref) [[likely]] {
        index = m_samples.back().first; // the usual case: the reference of the previous sample
    } else if (const auto it = m_index.find(ref); it != m_index.end()) {
        index = it->second;
    } else {
        if (m_refs.size() >= kMaxRefs)
            return false;
        index = uint32_t(m_refs.size());
        m_refs.emplace_back(ref);
        m_index.emplace(m_refs.back(), index);
    }
    m_samples.emplace_back(index, sample);
    return true;
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
