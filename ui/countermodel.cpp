// CounterModel — see countermodel.h.
#include "countermodel.h"

#include <algorithm>

namespace syncline::ui {

namespace {
constexpr size_t kFan = 16;

// The first index i >= from with ts[i] >= key (ts sorted; ts.size() when none). `guess` is
// where it probably is (the last column's width on from `from`): the search gallops out from
// there, so it stays in the few cache lines around the answer — a binary search over the whole
// array (8 MB for a million samples) would miss the cache some 20 times per pixel column.
size_t firstAtOrAfter(const std::vector<int64_t> &ts, size_t from, int64_t key, size_t guess)
{
    const size_t n = ts.size();
    const size_t g = std::clamp(guess, from, n);
    size_t lo, hi; // the answer is in [lo, hi]: every ts[from, lo) < key, ts[hi] >= key or hi = n
    if (g > from && ts[g - 1] >= key) { // before g: gallop down
        hi = g - 1;
        lo = from;
        for (size_t step = 1; hi > from; step *= 2) {
            const size_t probe = hi > from + step ? hi - step : from;
            if (ts[probe] < key) {
                lo = probe + 1;
                break;
            }
            hi = probe;
        }
    } else { // after g: gallop up
        lo = g;
        hi = g;
        size_t step = 1;
        while (hi < n && ts[hi] < key) {
            lo = hi + 1;
            hi = std::min(n, hi + step);
            step *= 2;
        }
    }
    return size_t(std::lower_bound(ts.begin() + ptrdiff_t(lo), ts.begin() + ptrdiff_t(hi), key) -
                  ts.begin());
}
} // namespace

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
    const double *values = counter().value.data();
    double lo = values[a], hi = values[a];
    // Plain loops over contiguous cells (the compiler's min/max, no per-cell branch): the values
    // at level −1, the (min, max) blocks above.
    auto takeValues = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) {
            lo = std::min(lo, values[i]);
            hi = std::max(hi, values[i]);
        }
    };
    auto takeCells = [&](const std::vector<std::pair<double, double>> &cells, size_t from,
                         size_t to) {
        for (size_t i = from; i < to; ++i) {
            lo = std::min(lo, cells[i].first);
            hi = std::max(hi, cells[i].second);
        }
    };
    auto take = [&](int level, size_t from, size_t to) {
        if (level < 0)
            takeValues(from, to);
        else
            takeCells(m_levels[size_t(level)], from, to);
    };
    int level = -1;
    while (a < b) {
        if (b - a < 2 * kFan || level + 1 >= int(m_levels.size())) {
            take(level, a, b);
            break;
        }
        // The partial blocks at both ends at this level; the whole blocks between them go up.
        const size_t a16 = (a + kFan - 1) / kFan * kFan, b16 = b / kFan * kFan;
        take(level, a, a16);
        take(level, b16, b);
        a = a16 / kFan;
        b = b16 / kFan;
        ++level;
    }
    return {lo, hi};
}

std::vector<CounterColumn> CounterModel::columns(const TimeScale &scale, int width,
                                                 ClockMode mode) const
{
    std::vector<CounterColumn> out(size_t(std::max(width, 0)));
    const CounterTrack &c = counter();
    if (c.count() == 0 || width <= 0 || !scale.valid())
        return out;
    const sync::ClockMap &map = m_timeline->workers[m_worker].map(mode);
    const int64_t endLocal =
        std::max(m_timeline->workers[m_worker].info.lastLocalNs, c.localTs.back());
    const auto &ts = c.localTs;
    auto boundary = [&](int col) { return map.toLocal(scale.timeAt(col)); };
    int64_t l0 = boundary(0);
    size_t a = size_t(std::lower_bound(ts.begin(), ts.end(), l0) - ts.begin());
    size_t lastWidth = 0; // samples in the last column: where the next boundary probably is
    for (int col = 0; col < width; ++col) {
        // Where the column after this one probably ends: its timestamps and the values before
        // it are fetched while this column is worked out (each column's boundary is a cache
        // miss otherwise, the arrays being far larger than the cache).
        if (const size_t ahead = a + 2 * lastWidth; lastWidth > 8 && ahead < ts.size()) {
            __builtin_prefetch(&ts[ahead]);
            __builtin_prefetch(&c.value[ahead - 8]);
        }
        const int64_t l1 = boundary(col + 1);
        // Samples inside the column: [a, b). The next column's first sample is b.
        const size_t b = firstAtOrAfter(ts, a, l1, a + lastWidth);
        lastWidth = b - a;
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
