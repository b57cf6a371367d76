// CollectiveAligner — estimates the clocks of workers that have no sync samples from blocking
// collectives (all-reduce, barrier, NCCL kernels), whose ends happen within microseconds on every
// rank while their begins spread with stragglers.
//
// Reference: the workers that already have a map from sync samples; when none has, the domain of
// the lowest-rank worker (its clock becomes global time; identity map). For every other domain,
// each instance (name, k) seen on both sides gives one difference
//     d = referenceEnd − localEnd   at local time localEnd,
// referenceEnd being the median of the reference workers' corrected ends. Offset and drift come
// from a robust line fit of d against time: the instances are cut into up to 64 bins of equal
// count, each bin is summarised by its medians, and the line through the bin medians is the
// Theil–Sen estimate (median of pairwise slopes). One wrong instance cannot move it.
// Wander: one line per worker cannot follow the oscillators' relative wander (thermal swings bend
// θ by µs within minutes). With at least 4 blocks of kMinBlockInstances, the residuals of that line
// are cut into blocks of equal count; each block's median time and median residual is a knot of
// a continuous piecewise-linear map. The block size is chosen from the data: each interior
// block's median is predicted by the line through its two neighbours, and the size with the
// smallest RMS miss wins (noise favours long blocks, curvature short ones). Medians keep
// stragglers' and mismatched instances' influence nil.
// Guaranteed bound (relative to the reference): no rank ends before every rank has begun, so
//     referenceLatestBegin − localEnd <= θ <= referenceEarliestEnd − localBegin,
// and a segment's bound is the largest distance from the map to these intervals over the instances
// inside it and its two neighbours. That proof is as wide as the collective's duration after the
// last arrival (ms). The assumption-based bound (ClockSegment::assumedBoundNs) assumes instead that
// the ends of one instance on this domain and on the reference are simultaneous within R, the
// largest |residual| around the map (residual = reference end − local end − θ_map) of the
// instances inside the segment and its neighbours, at least 8 of them: then
// |error| <= |residual| + R <= 2R.
// Plausibility (real oscillators drift by < ~200 ppm): the intervals [lower, upper] of matched
// instances must overlap (within kMaxDriftPpm over their span); instances outside the largest
// overlapping set do not correspond (sampled traces, different counts) and are ignored, also by
// causality repair. Without such a set (fewer than 2 instances or not a majority) the clock is
// left uncorrected. The drift is fitted only from >= 8 instances when the slope is within
// kMaxDriftPpm and its standard error (robust residual spread / time spread / sqrt(n)) within
// kDriftResolutionPpm; otherwise offset only (median difference), SegFewSamples and a note.
// Segments carry SegAligned (and SegFewSamples below 8 instances). Pure; thread-safe.
#pragma once

#include "domaingrouper.h"
#include "syncengine.h"

#include <string>
#include <vector>

namespace syncline::sync {

class CollectiveAligner
{
public:
    struct Fit
    {
        double offset = 0.0; // d at t = 0 (ns)
        double slope = 0.0;  // d d / d t
        bool valid = false;
    };
    static constexpr double kMaxDriftPpm = 500.0;        // larger slopes are not a clock
    static constexpr double kDriftResolutionPpm = 100.0; // slope standard error needed to fit it
    static constexpr size_t kMinDriftInstances = 8;      // fewer: offset only
    static constexpr size_t kMinBlockInstances = 8;      // smallest block of the piecewise map
    static constexpr int64_t kBoundMarginNs = 20;        // clock-read granularity

    // Robust line through (t, d) points (see the header comment).
    static Fit robustLine(std::vector<double> t, std::vector<double> d);

    // Returns, per input.collectives index, whether the instance may constrain the clocks
    // (false: it was found not to correspond to the reference's instance of the same key).
    std::vector<bool> align(const SyncEngineInput &input, const DomainGrouper &groups,
                            std::vector<WorkerClockResult> &results,
                            std::vector<std::string> &notes) const;
};

} // namespace syncline::sync
