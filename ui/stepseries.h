// StepSeries — per step of a Diagnosis, the three values the step graph plots and the heat map
// is relative to: the step's time (latest end − earliest start over the workers: its max across
// ranks), the median of the workers' own durations of it, and the step's time with the top
// culprit fixed (what-if). Also the steps' global begin and end for zooming to a step.
// Invariants: one entry per Diagnosis::steps entry, in its order; ns; the median is the lower
// median of the workers that have the step (cells that are NaN are skipped); 0 when none has it.
// Cost: O(steps × workers) once per diagnosis (nth_element per step).
// Threading: plain value; built in the diagnosis job (DiagnosisController), read on the GUI
// thread.
#pragma once

#include "timeline/report/diagnosis.h"

#include <cstdint>
#include <vector>

namespace syncline::ui {

struct StepSeries
{
    std::vector<int64_t> beginNs, endNs;  // global, the diagnosis's clock mode
    std::vector<int64_t> maxNs;           // the step's time (endNs − beginNs)
    std::vector<int64_t> medianNs;        // the median of the workers' own durations
    std::vector<int64_t> whatIfNs;        // whatIfEndNs − beginNs
    std::vector<int64_t> computeMedianNs; // the median of (duration − wait) over the workers
    size_t size() const { return maxNs.size(); }
    bool empty() const { return maxNs.empty(); }

    static StepSeries from(const Diagnosis &diagnosis);
};

} // namespace syncline::ui
