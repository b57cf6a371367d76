// SyncSampleSet — the `sync` samples of one log (docs/log-format.md), grouped by the reference
// clock (`ref`) each was measured against. A worker's samples against different references must
// never be combined; the reader keeps the reference with the most samples.
//
// A log has one reference (two after the time server moved); a file naming more than kMaxRefs
// keeps the samples of the first kMaxRefs and refuses the others (add() returns false, the
// parser reports them), so no input makes a set larger than that. A reference is found through
// a hash index: O(1) a sample whatever the number of references.
//
// Invariants: all() is in file order; every pair's first member indexes refs(); refs() are
// distinct, in order of first appearance, at most kMaxRefs.
// Threading: one per parser, used by one thread.
#pragma once

#include "sync/clocksample.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncline::load {

class SyncSampleSet
{
public:
    static constexpr size_t kMaxRefs = 256;
    // False (the sample is not kept) for a new reference once there are kMaxRefs.
    bool add(std::string_view ref, const sync::ClockSample &sample);

    bool empty() const { return m_samples.empty(); }
    const std::vector<std::pair<uint32_t, sync::ClockSample>> &all() const { return m_samples; }
    const std::vector<std::string> &refs() const { return m_refs; }
    // The reference with the most samples (the first of equals); *count gets its sample count.
    // Only when !empty().
    uint32_t bestRef(size_t *count = nullptr) const;
    // The samples against refs()[ref], in file order.
    std::vector<sync::ClockSample> samplesOf(uint32_t ref) const;

private:
    struct Hash
    {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::vector<std::string> m_refs;
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> m_index; // ref → index
    std::vector<std::pair<uint32_t, sync::ClockSample>> m_samples; // (ref index, sample)
};

} // namespace syncline::load
