#include "stepseries.h"

#include <algorithm>
#include <cmath>

namespace syncline::ui {

StepSeries StepSeries::from(const Diagnosis &d)
{
    StepSeries s;
    const size_t n = d.steps.size();
    s.beginNs.reserve(n);
    s.endNs.reserve(n);
    s.maxNs.reserve(n);
    s.medianNs.reserve(n);
    s.whatIfNs.reserve(n);
    s.computeMedianNs.reserve(n);
    std::vector<float> cells, compute;
    cells.reserve(d.workerCount);
    compute.reserve(d.workerCount);
    const auto lowerMedian = [](std::vector<float> &v) -> int64_t {
        if (v.empty())
            return 0;
        const auto mid = v.begin() + std::ptrdiff_t((v.size() - 1) / 2);
        std::nth_element(v.begin(), mid, v.end());
        return int64_t(std::llround(double(*mid)));
    };
    for (size_t k = 0; k < n; ++k) {
        const DiagnosisStep &st = d.steps[k];
        s.beginNs.push_back(st.beginNs);
        s.endNs.push_back(st.endNs);
        s.maxNs.push_back(st.durationNs());
        s.whatIfNs.push_back(std::max<int64_t>(0, st.whatIfEndNs - st.beginNs));
        cells.clear();
        compute.clear();
        for (size_t w = 0; w < d.workerCount; ++w) {
            const float v = d.cellDuration(k, w);
            if (std::isnan(v))
                continue;
            const float wait = d.cellWait(k, w);
            cells.push_back(v);
            compute.push_back(std::isnan(wait) ? v : std::max(0.0f, v - wait));
        }
        s.medianNs.push_back(lowerMedian(cells));
        s.computeMedianNs.push_back(lowerMedian(compute));
    }
    return s;
}

} // namespace syncline::ui
