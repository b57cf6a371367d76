// RankSubset — see ranksubset.h.
#include "timeline/load/build/ranksubset.h"

#include "timeline/load/parse/log/logheader.h"

#include <algorithm>
#include <optional>
#include <string>

namespace syncline::load {

// --ranks: the parsed files whose worker is outside the selection (a log whose name gave no
// rank, or another than its header; a Chrome trace) are dropped, each with an Info problem.
void RankSubset::dropOutside(std::vector<ParsedFile> &files, const RankSet &ranks,
                             std::vector<LoadProblem> &problems)
{
    if (ranks.all())
        return;
    std::erase_if(files, [&](const ParsedFile &f) {
        if (!f.usable)
            return false; // its problems say why; nothing of it would load anyway
        const std::optional<int> rank =
            f.rankKnown ? std::optional<int>(f.worker.info.rank)
                        : LogHeader::rankFromFileName(f.path);
        if (rank && ranks.contains(*rank))
            return false;
        problems.push_back({LoadProblem::Kind::OutsideRanks, LoadProblem::Severity::Info,
                            f.path, 0,
                            (rank ? "rank " + std::to_string(*rank) : std::string("no rank")) +
                                ": not in --ranks " + ranks.toString() + "; not loaded"});
        return true;
    });
}

// What a rank subset leaves out of the clock correction, said once (an Info problem).
void RankSubset::note(Timeline &tl, const RankSet &ranks, size_t droppedByName, size_t records,
                      size_t pairs)
{
    if (ranks.all())
        return;
    int world = 0;
    for (const Worker &w : tl.workers)
        world = std::max(world, w.info.worldSize);
    const size_t unpaired = records > 2 * pairs ? records - 2 * pairs : 0;
    tl.problems.push_back(
        {LoadProblem::Kind::RankSubset, LoadProblem::Severity::Info, "", 0,
         "subset: ranks " + ranks.toString() + " (" + std::to_string(tl.workers.size()) +
             " workers loaded, world size " + std::to_string(world) + ", " +
             std::to_string(droppedByName) + " logs of other ranks not opened); " +
             std::to_string(unpaired) +
             " messages with ranks outside it ignored and collectives aligned over its ranks "
             "only; bounds may be looser than the whole job's"});
}

} // namespace syncline::load
