// CounterTrack — see countertrack.h.
#include "timeline/model/countertrack.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace syncline {

std::string CounterTrack::label() const
{
    return series.empty() || series == name ? name : name + " · " + series;
}

void CounterTrack::finish()
{
    if (!std::is_sorted(localTs.begin(), localTs.end())) {
        std::vector<uint32_t> order(localTs.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [this](uint32_t a, uint32_t b) { return localTs[a] < localTs[b]; });
        std::vector<int64_t> ts(order.size());
        std::vector<double> v(order.size());
        for (size_t i = 0; i < order.size(); ++i) {
            ts[i] = localTs[order[i]];
            v[i] = value[order[i]];
        }
        localTs.swap(ts);
        value.swap(v);
    }
    localTs.shrink_to_fit();
    value.shrink_to_fit();
    minValue = maxValue = 0;
    if (!value.empty()) {
        const auto [lo, hi] = std::minmax_element(value.begin(), value.end());
        minValue = *lo;
        maxValue = *hi;
    }
}

void CounterTrack::sortByKey(std::vector<CounterTrack> &counters)
{
    std::stable_sort(
        counters.begin(), counters.end(), [](const CounterTrack &a, const CounterTrack &b) {
            return std::tie(a.pid, a.name, a.series) < std::tie(b.pid, b.name, b.series);
        });
}

int CounterTrack::sampleAt(int64_t localT) const
{
    auto it = std::upper_bound(localTs.begin(), localTs.end(), localT);
    return int(it - localTs.begin()) - 1;
}

} // namespace syncline
