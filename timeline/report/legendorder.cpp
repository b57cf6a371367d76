#include "timeline/report/legendorder.h"

#include <algorithm>
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
    for (const auto &o : order)
        names.push_back(o.second);
    return names;
}

} // namespace syncline
