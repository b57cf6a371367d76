// Generation — which group incarnation of an elastic job a worker belongs to: (run id, restart
// count, world size). torchelastic starts every worker of a group again after a failure
// (restart + 1) or a membership change (same restart, new world size), and collectives and
// steps are counted from 0 again, so "the k-th instance on each rank" means something only
// among the workers of one generation. Used by the clock correction (collective instances).
// Example: the demo's restart-0 workers are ("demo-…", 0, 8), the restarted ones ("demo-…", 1, 8).
// Threading: stateless.
#pragma once

#include "timeline/model/timeline.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace syncline {

class Generation
{
public:
    using Key = std::tuple<std::string, int, int>; // run id, restart, world size
    static Key of(const WorkerInfo &info) { return {info.runId, info.restart, info.worldSize}; }
    // Per worker index, a generation number: dense from 0 in first-seen order over the syncline
    // logs. All 0 when they share one generation (a job without restarts: Chrome traces, whose
    // identity is unknown, then join it); otherwise Chrome traces are generation 0 too.
    static std::vector<int64_t> number(const Timeline &tl)
    {
        std::map<Key, int64_t> ids;
        std::vector<int64_t> out(tl.workers.size(), 0);
        for (size_t w = 0; w < tl.workers.size(); ++w) {
            const WorkerInfo &i = tl.workers[w].info;
            if (i.kind == SourceKind::SynclineLog)
                out[w] = ids.try_emplace(of(i), int64_t(ids.size())).first->second;
        }
        if (ids.size() <= 1)
            std::fill(out.begin(), out.end(), 0);
        return out;
    }
};

} // namespace syncline
