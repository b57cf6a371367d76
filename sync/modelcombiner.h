// ModelCombiner — one clock domain's map from the models of its processes.
//
// Several processes of one host read one clock, but each has its own sync path: its own queueing,
// its own burst times (phases within the second, up to seconds apart). Their bursts do not form
// one evenly spaced series — windows counted in bursts would span milliseconds in one place and
// seconds in another — so each process's bursts are fitted on their own (ClockModelBuilder, as for
// one process per host) and the models are combined here:
//  - knots at the union of all models' segment starts (between two of them every model is linear);
//  - at each knot, the mean θ of the models in the best state there: inside their sampled span and
//    outside a step gap, else extrapolated, else in a step gap (a process that saw the step's
//    two sides tells which side a time is on; one in its gap does not). Queueing noise of the
//    processes is independent, so the mean has √n less of it; the path's asymmetry is common.
//  - guaranteed bound of a segment: every model's bound is a proof about the same θ, so the
//    tightest of (bound_s + the largest distance between the mean and model s over the segment)
//    holds; band: the used models' largest band / √n;
//  - flags: those of the models used at the segment's start; SegStepDetected only where every
//    model is in its step gap.
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
