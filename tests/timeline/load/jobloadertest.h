// Helpers shared by the JobLoader tests (tst_jobloader, tst_jobloaderrules): load paths with two
// threads, count problems whose message contains a text or of a kind, sum a worker's durations, check a
// track's invariants (sorted, nested, children inside their parent).
#pragma once

#include "timeline/load/jobloader.h"
#include "tests/common/problemkinds.h"

#include <algorithm>
#include <string>
#include <vector>

namespace jobloadertest {

inline syncline::LoadResult loadPaths(std::vector<std::string> paths, std::string alignOn = {})
{
    syncline::LoadOptions o;
    o.paths = std::move(paths);
    o.alignOn = std::move(alignOn);
    o.threads = 2;
    return syncline::JobLoader::load(o);
}

inline int countProblems(const syncline::Timeline &tl, const std::string &needle)
{
    return int(
        std::count_if(tl.problems.begin(), tl.problems.end(), [&](const syncline::LoadProblem &p) {
            return p.message.find(needle) != std::string::npos;
        }));
}

// Problems of `kind` (whose message contains `detail`, when given).
inline int countKind(const syncline::Timeline &tl, syncline::LoadProblem::Kind kind,
                     const std::string &detail = {})
{
    return problemkinds::count(tl.problems, kind, detail);
}

inline int64_t totalDuration(const syncline::Worker &w)
{
    int64_t sum = 0;
    for (const auto &t : w.tracks)
        for (size_t i = 0; i < t.count(); ++i)
            sum += t.localEnd[i] - t.localStart[i];
    return sum;
}

inline bool checkInvariants(const syncline::EventTrack &t)
{
    for (size_t i = 0; i < t.count(); ++i) {
        if (i > 0 && t.localStart[i] < t.localStart[i - 1])
            return false;
        if (t.localEnd[i] < t.localStart[i])
            return false;
        const int p = t.parent[i];
        if (p >= int(i))
            return false;
        if (p < 0 ? t.depth[i] != 0 : t.depth[i] != t.depth[p] + 1)
            return false;
        if (p >= 0 && (t.localStart[i] < t.localStart[p] || t.localEnd[i] > t.localEnd[p]))
            return false;
    }
    return true;
}

} // namespace jobloadertest
