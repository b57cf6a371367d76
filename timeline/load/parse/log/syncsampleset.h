// SyncSampleSet — the `sync` samples of one log (docs/log-format.md), grouped by the reference
// clock (`ref`) each was measured against. A worker's samples against different references must
// never be combined; the reader keeps the reference with the most samples.
//
// Invariants: all() is in file order; every pair's first member indexes refs(); refs() are
// distinct, in order of first appearance.
// Threading: one per parser, used by one thread.
#pragma once

#include "sync/clocksample.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline::load {

class SyncSampleSet
{
public:
    void add(std::string_view ref, const sync::ClockSample &sample);

    bool empty() const { return m_samples.empty(); }
    const std::vector<std::pair<uint32_t, sync::ClockSample>> &all() const { return m_samples; }
    const std::vector<std::string> &refs() const { return m_refs; }
    // The reference with the most samples (the first of equals); *count gets its sample count.
    // Only when !empty().
    uint32_t bestRef(size_t *count = nullptr) const;
    // The samples against refs()[ref], in file order.
    std::vector<sync::ClockSample> samplesOf(uint32_t ref) const;

private:
    std::vector<std::string> m_refs;
    std::vector<std::pair<uint32_t, sync::ClockSample>> m_samples; // (ref index, sample)
};

} // namespace syncline::load
