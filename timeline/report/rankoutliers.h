// RankOutliers — the viewer's straggler rule: which ranks are slow for one event name, judged on
// each rank's MEAN duration of it. A rank is flagged when its mean exceeds median + 3·MAD of the
// per-rank means (MAD: median absolute deviation; the lower median for even counts; int64 ns).
// It is one of syncline's two straggler rules, each named where it is shown (docs/cli.md,
// docs/viewer.md):
//   - Stragglers (report/stragglers.h, `syncline stats`): who FINISHES each step last, instance
//     by instance — for step-like events every rank repeats in lockstep;
//   - RankOutliers (here, the viewer's per-rank chart): whose per-rank mean stands out — for any
//     name, lockstep or not.
// Example: per-rank means {10, 11, 10, 12, 30} ms → median 11, MAD 1 → threshold 14 → rank 4.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace syncline {

class RankOutliers
{
public:
    // Flags values > median + 3·MAD (none when MAD is 0 and all are equal); *threshold gets the
    // limit when given.
    static std::vector<bool> flag(const std::vector<int64_t> &values, int64_t *threshold);
    // The lower median (element (n − 1) / 2 of the sorted values); 0 when empty.
    static int64_t lowerMedian(std::vector<int64_t> values);
};

} // namespace syncline
