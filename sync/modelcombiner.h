// ModelCombiner — one clock domain's map from the models of its processes.
//
// Several processes of one host read one clock, but each has its own sync path: its own queueing,
// its own burst times (phases within the second, up to seconds apart). Their bursts do not form
// one evenly spaced series — windows counted in bursts would span milliseconds in one place and
// seconds in another — so each process's bursts are fitted on their own (ClockModelBuilder, as for
// one process per host) and the models are combined here:
//  - knots at the union of all models' segment starts (between two of them every model is
//    linear), plus knots beyond each model's sampled span at ¼, ½, 1, 2, 4 × the shorter of
//    its two scales (below);
//  - at each knot, the weighted mean θ of the models outside a step gap (all of them where every
//    one is in its gap: a process that saw the step's two sides tells which side a time is on).
//    A model weighs 1 inside its sampled span (first to last knot) and
//    1 / (1 + (d / reach)² + (d / spacing)²) at a distance d beyond it: reach = its band / its
//    drift allowance, spacing = its sampled span / its bursts (beyond its bursts it is carried
//    along its edge knot's rate, which a few bursts set), each clamped to 1 ms .. 1 h. So a
//    model counts where its process has bursts and fades within a few burst spacings of them:
//    an incarnation does not pull the next one's seconds, where that one's samples decide.
//    The weights are continuous in time, so the map does not jump where a process's samples
//    begin or end (an incarnation's first and last records lie there). Queueing noise of the
//    processes is independent, so the mean has √n less of it; the path's asymmetry is common.
//    Band: the largest band of the models weighed, × √Σw² / Σw (÷ √n for equal weights);
//  - guaranteed bound of a segment: every model's bound is a proof about the same θ, so the
//    tightest of (bound_s + the largest distance between the mean and model s over the segment)
//    holds;
//  - flags: those of the models in the best state (sampled, else extrapolated, else in a step
//    gap) at the segment's start; SegStepDetected only where every model is in its step gap.
// Units: ns. Pure, thread-safe.
#pragma once

#include "clockmodelbuilder.h"

#include <vector>

namespace syncline::sync {

class ModelCombiner
{
public:
    // models: one per process of the domain (non-empty ones); returns the domain's model
    // (steps = step gaps of the result, window/driftAllowance of the first model, bursts summed).
    static ClockModel combine(const std::vector<ClockModel> &models);
};

} // namespace syncline::sync
