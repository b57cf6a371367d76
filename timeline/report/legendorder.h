// LegendOrder — the one order of a legend, shared by the viewer's legend bar and the exported
// image's legend (so an export lists what the view lists, in the same order): event names by
// total time over all ranks, most first; ties by name id. The input is Stats rows (the viewer's
// stats panel for its scope, or Stats::compute over the image's range); per-rank rows are
// skipped.
// Example: totals {step: 9 s, forward: 4 s, all_reduce: 4 s (id lower than forward)} →
// step, all_reduce, forward.
// Threading: pure function.
#pragma once

#include "timeline/report/stats.h"

#include <cstdint>
#include <vector>

namespace syncline {

class LegendOrder
{
public:
    static std::vector<uint32_t> byTotal(const std::vector<StatsRow> &rows);
};

} // namespace syncline
