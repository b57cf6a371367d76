// rankList — ranks as people read them in notes: sorted, duplicates dropped, runs of
// consecutive ranks as ranges ("0-3, 5, 7-8"). One rule for every note that names ranks (the
// clock notes, the wall-clock notes and summary). `--ranks` specs have their own syntax
// (RankSet::toString, "0-3,5").
// Threading: pure.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace syncline {

inline std::string rankList(std::vector<int> ranks)
{
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::string list;
    for (size_t i = 0; i < ranks.size(); ++i) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        list += (list.empty() ? "" : ", ") + std::to_string(ranks[i]) +
                (j > i ? "-" + std::to_string(ranks[j]) : "");
        i = j;
    }
    return list;
}

} // namespace syncline
