#include "timeline/report/legendorder.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

namespace syncline {

std::vector<uint32_t> LegendOrder::byTotal(const std::vector<StatsRow> &rows)
{
    std::vector<std::pair<int64_t, uint32_t>> order;
    for (const StatsRow &r : rows)
        if (!r.rank)
            order.emplace_back(-r.totalNs, r.nameId);
    std::sort(order.begin(), order.end());
    std::vector<uint32_t> names;
    names.reserve(order.size());
    std::unordered_set<uint32_t> seen;
    for (const auto &o : order) // a name has a row per run in a comparison: once, at its largest
        if (seen.insert(o.second).second)
            names.push_back(o.second);
    return names;
}

} // namespace syncline
