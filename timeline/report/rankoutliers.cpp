#include "timeline/report/rankoutliers.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>

namespace syncline {

int64_t RankOutliers::lowerMedian(std::vector<int64_t> v)
{
    if (v.empty())
        return 0;
    const size_t k = (v.size() - 1) / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
    return v[k];
}

std::vector<bool> RankOutliers::flag(const std::vector<int64_t> &values, int64_t *threshold)
{
    std::vector<bool> out(values.size(), false);
    const int64_t median = lowerMedian(values);
    std::vector<int64_t> dev;
    dev.reserve(values.size());
    for (int64_t v : values)
        dev.push_back(std::llabs(v - median));
    const int64_t limit = median + 3 * lowerMedian(dev);
    if (threshold)
        *threshold = limit;
    for (size_t i = 0; i < values.size(); ++i)
        out[i] = values[i] > limit;
    return out;
}

} // namespace syncline
