// CompareTimeline — two runs A and B on one Timeline, for the viewer's comparison: every worker
// of each run (copied), A's labelled "A · rank N …" and B's "B · rank N …" (WorkerInfo::run), so
// B's ranks are a separate run, not duplicates of A's (no duplicate-rank problem is raised).
// B's clock maps — corrected and raw — are shifted by one constant each (CompareShift, from
// CompareAnchor: anchor(A) − anchor(B) in that mode), so B's anchor lies on A's in both modes.
//
// Worker order (what the view shows top to bottom):
//  - Stacked:     all of A (its order: rank, restart), then all of B;
//  - Interleaved: by rank: A's rank 0 workers, B's rank 0 workers, A's rank 1, B's rank 1, …
//                 (a rank in one run only keeps its place among the ranks).
// Names, args and kinds are merged into the combined tables (B's ids remapped); B's flow ids are
// offset past A's so no flow links A to B; problems and clock notes of both are kept (B's
// messages and notes prefixed "B: ", A's notes "A: "). The combined timeline's range is
// recomputed. Cost: a copy of both runs' events (28 bytes an event).
// Threading: reads A and B only; any thread.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <memory>

namespace syncline {

enum class CompareLayout
{
    Stacked,
    Interleaved
};

struct CompareShift
{
    int64_t correctedNs = 0; // added to B's corrected global times
    int64_t rawNs = 0;       // added to B's raw global times
};

class CompareTimeline
{
public:
    static std::shared_ptr<Timeline> combine(const Timeline &a, const Timeline &b,
                                             const CompareShift &shift, CompareLayout layout);
};

} // namespace syncline
