// CounterModel — the view's model of one counter series (Worker::counters[k]): a min/max pyramid
// over its samples so a frame's cost follows pixels, not samples.
//
// Level 0 holds (min, max) of each block of 16 samples, level l of 16^(l+1) samples, up to a
// level of fewer than 16 blocks (≈ 1 byte per sample in all). minMax(a, b) walks up: it takes
// the partial blocks at both ends of [a, b) at one level and moves to the next with the whole
// blocks between them — at most 2 × 15 cells per level, so O(16 · log16 n).
// Example: n = 1000, [3, 700): samples 3..15 and 688..699 at level −1 (the values), then level-0
// blocks 1..42 (≤ 15 at each end), then the level-1 block(s) between them.
// columns() turns a visible range into one (lo, hi) per pixel column: a counter is a step
// function (a sample holds its value until the next one), so a column spans the value carried
// in from before it plus every sample inside it; it is empty before the first sample and after
// the worker's end of data. Column c spans global [scale.timeAt(c), scale.timeAt(c + 1)), through
// the worker's map of the given mode.
// Threading: read-only after construction; the Timeline must outlive it.
#pragma once

#include "timescale.h"

#include "timeline/model/timeline.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace syncline::ui {

struct CounterColumn
{
    double lo = 0;
    double hi = 0;
    bool has = false; // the counter has a value in this column
};

class CounterModel
{
public:
    CounterModel(const Timeline *timeline, size_t worker, size_t counter);

    size_t worker() const { return m_worker; }
    size_t counterIndex() const { return m_counter; }
    const CounterTrack &counter() const;
    // The value axis: [min(0, min value), max value], widened by 1 when it would be empty.
    double axisMin() const { return m_axisMin; }
    double axisMax() const { return m_axisMax; }
    // min and max of value[a, b) (a < b <= count).
    std::pair<double, double> minMax(size_t a, size_t b) const;
    std::vector<CounterColumn> columns(const TimeScale &scale, int width, ClockMode mode) const;
    // The sample shown at global time t (last at or before it; -1 before the first or after the
    // end of data).
    int sampleAt(int64_t globalT, ClockMode mode) const;

private:
    std::pair<double, double> cell(int level, size_t i) const; // level −1: the values

    const Timeline *m_timeline;
    size_t m_worker;
    size_t m_counter;
    std::vector<std::vector<std::pair<double, double>>> m_levels;
    double m_axisMin = 0;
    double m_axisMax = 1;
};

} // namespace syncline::ui
