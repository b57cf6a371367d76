// RankOutliers — syncline's straggler rule for COMPUTE, shared by the viewer's per-rank chart and
// `syncline stats`: which ranks are slow for one event name, judged on each rank's MEAN duration
// of it. It is never applied to waits (collectives, isWait): there the longest means belong to
// the ranks that waited for the straggler, not to it; waits are judged by blame (Diagnoser:
// who arrived last, report/diagnosis.h). A rank is a straggler when its mean exceeds
//     median + max(3·MAD, kMinAbsNs, kMinRel · median)
// of the per-rank means (MAD: median absolute deviation; the lower median for even counts; int64
// ns). The minimum difference (absolute AND relative: 50 µs and 10 % of the median, whichever
// is larger) keeps a rank that is a few per cent or a few µs slower from being called a
// straggler when the ranks agree closely (MAD near 0).
// Examples: per-rank means {10, 11, 10, 12, 30} ms → median 11, MAD 1 → 3·MAD = 3 ms, 10 % =
// 1.1 ms, 50 µs → threshold 14 ms → rank 4. Means {999, 1000, 999, 1001, 1004} µs → MAD 1 µs,
// but 10 % = 99.9 µs → threshold 1099 µs → nobody.
// Threading: pure functions.
#pragma once

#include "timeline/report/stats.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace syncline {

// One name's stragglers over the ranks that record it.
struct RankStragglers
{
    uint32_t nameId = 0;
    int ranks = 0;                             // ranks that record the name
    int64_t medianNs = 0;                      // of the per-rank means
    int64_t thresholdNs = 0;                   // the rule's limit
    std::vector<std::pair<int, int64_t>> slow; // (rank, mean) beyond it, by rank
    int64_t totalNs = 0;                       // over all ranks (for ordering)
};

class RankOutliers
{
public:
    static constexpr int64_t kMinAbsNs = 50000; // 50 µs
    static constexpr double kMinRel = 0.10;     // 10 % of the median

    // Flags values > the threshold above (none when all are equal); *threshold gets the limit
    // when given.
    static std::vector<bool> flag(const std::vector<int64_t> &values, int64_t *threshold);
    // The lower median (element (n − 1) / 2 of the sorted values); 0 when empty.
    static int64_t lowerMedian(std::vector<int64_t> values);
    // From Stats rows with per-rank entries: every name recorded by at least 2 ranks that has
    // a straggler, ordered by total time (descending), then name id. With a timeline, its wait
    // names (isWait) are left out.
    static std::vector<RankStragglers> compute(const std::vector<StatsRow> &rows,
                                               const Timeline *timeline = nullptr);
    // A wait: a collective (Timeline::kinds: the config, --align-on, or a recognised name).
    static bool isWait(const Timeline &timeline, uint32_t nameId)
    {
        const NameKind *k = timeline.kindOf(nameId);
        return k && k->collective;
    }
};

} // namespace syncline
