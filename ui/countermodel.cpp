// CounterModel — see countermodel.h.
#include "countermodel.h"

#include <algorithm>

namespace syncline::ui {

namespace {
constexpr size_t kFan = 16;
}

CounterModel::CounterModel(const Timeline *timeline, size_t worker, size_t counter)
    : m_timeline(timeline), m_worker(worker), m_counter(counter)
{
    const CounterTrack &c = this->counter();
    size_t n = c.count();
    int level = -1;
    while (n >= kFan) {
        std::vector<std::pair<double, double>> up((n + kFan - 1) / kFan);
        for (size_t b = 0; b < up.size(); ++b) {
            auto mm = cell(level, b * kFan);
            for (size_t i = b * kFan + 1; i < std::min(n, (b + 1) * kFan); ++i) {
                const auto x = cell(level, i);
                mm.first = std::min(mm.first, x.first);
                mm.second = std::max(mm.second, x.second);
            }
            up[b] = mm;
        }
        m_levels.push_back(std::move(up));
        n = m_levels.back().size();
        ++level;
    }
    m_axisMin = std::min(0.0, c.minValue);
    m_axisMax = c.maxValue;
    if (!(m_axisMax > m_axisMin))
        m_axisMax = m_axisMin + 1;
}

const CounterTrack &CounterModel::counter() const
{
    return m_timeline->workers[m_worker].counters[m_counter];
}

std::pair<double, double> CounterModel::cell(int level, size_t i) const
{
    if (level < 0) {
        const double v = counter().value[i];
        return {v, v};
    }
    return m_levels[size_t(level)][i];
}

std::pair<double, double> CounterModel::minMax(size_t a, size_t b) const
{
    std::pair<double, double> r = cell(-1, a);
    auto take = [&r](std::pair<double, double> x) {
        r.first = std::min(r.first, x.first);
        r.second = std::max(r.second, x.second);
    };
    int level = -1;
    while (a < b) {
        if (b - a < 2 * kFan || level + 1 >= int(m_levels.size())) {
            for (; a < b; ++a)
                take(cell(level, a));
            break;
        }
        for (; a % kFan != 0 && a < b; ++a)
            take(cell(level, a));
        for (; b % kFan != 0 && a < b; --b)
            take(cell(level, b - 1));
        a /= kFan;
        b /= kFan;
        ++level;
    }
    return r;
}

std::vector<CounterColumn> CounterModel::columns(int64_t rangeStart, double pxPerNs, int width,
                                                 ClockMode mode) const
{
    std::vector<CounterColumn> out(size_t(std::max(width, 0)));
    const CounterTrack &c = counter();
    if (c.count() == 0 || width <= 0 || pxPerNs <= 0)
        return out;
    const sync::ClockMap &map = m_timeline->workers[m_worker].map(mode);
    const int64_t endLocal =
        std::max(m_timeline->workers[m_worker].info.lastLocalNs, c.localTs.back());
    const auto &ts = c.localTs;
    auto boundary = [&](int col) {
        return map.toLocal(rangeStart + int64_t(double(col) / pxPerNs));
    };
    int64_t l0 = boundary(0);
    size_t a = size_t(std::lower_bound(ts.begin(), ts.end(), l0) - ts.begin());
    for (int col = 0; col < width; ++col) {
        const int64_t l1 = boundary(col + 1);
        // Samples inside the column: [a, b). The next column's first sample is b.
        size_t b = a;
        if (b < ts.size() && ts[b] < l1)
            b = size_t(std::lower_bound(ts.begin() + ptrdiff_t(a), ts.end(), l1) - ts.begin());
        CounterColumn &k = out[size_t(col)];
        if (l0 <= endLocal) {
            if (b > a) {
                const auto mm = minMax(a, b);
                k = {mm.first, mm.second, true};
            }
            if (a > 0) { // the value carried in from before the column
                const double v = c.value[a - 1];
                k.lo = k.has ? std::min(k.lo, v) : v;
                k.hi = k.has ? std::max(k.hi, v) : v;
                k.has = true;
            }
        }
        a = b;
        l0 = l1;
    }
    return out;
}

int CounterModel::sampleAt(int64_t globalT, ClockMode mode) const
{
    const Worker &w = m_timeline->workers[m_worker];
    const int64_t local = w.map(mode).toLocal(globalT);
    const CounterTrack &c = counter();
    if (c.count() == 0 || local > std::max(w.info.lastLocalNs, c.localTs.back()))
        return -1;
    return c.sampleAt(local);
}

} // namespace syncline::ui
