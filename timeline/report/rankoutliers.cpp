#include "timeline/report/rankoutliers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <map>

namespace syncline {

int64_t RankOutliers::lowerMedian(std::vector<int64_t> v)
{
    if (v.empty())
        return 0;
    const size_t k = (v.size() - 1) / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
    return v[k];
}

std::vector<bool> RankOutliers::flag(const std::vector<int64_t> &values, int64_t *threshold)
{
    std::vector<bool> out(values.size(), false);
    const int64_t median = lowerMedian(values);
    std::vector<int64_t> dev;
    dev.reserve(values.size());
    for (int64_t v : values)
        dev.push_back(std::llabs(v - median));
    const int64_t minRel = int64_t(std::llround(kMinRel * double(std::llabs(median))));
    const int64_t limit = median + std::max({3 * lowerMedian(dev), kMinAbsNs, minRel});
    if (threshold)
        *threshold = limit;
    for (size_t i = 0; i < values.size(); ++i)
        out[i] = values[i] > limit;
    return out;
}

std::vector<RankStragglers> RankOutliers::compute(const std::vector<StatsRow> &rows,
                                                  const Timeline *timeline)
{
    std::map<uint32_t, std::vector<const StatsRow *>> perRank;
    std::map<uint32_t, int64_t> total;
    for (const StatsRow &r : rows) {
        if (r.rank)
            perRank[r.nameId].push_back(&r);
        else
            total[r.nameId] = r.totalNs;
    }
    std::vector<RankStragglers> out;
    for (auto &[name, ranks] : perRank) {
        if (ranks.size() < 2 || (timeline && isWait(*timeline, name)))
            continue;
        std::sort(ranks.begin(), ranks.end(), [](auto *a, auto *b) { return *a->rank < *b->rank; });
        std::vector<int64_t> means;
        int64_t sum = 0;
        for (const StatsRow *r : ranks) {
            means.push_back(r->meanNs);
            sum += r->totalNs;
        }
        RankStragglers s;
        s.nameId = name;
        s.ranks = int(ranks.size());
        s.medianNs = lowerMedian(means);
        const std::vector<bool> flags = flag(means, &s.thresholdNs);
        for (size_t i = 0; i < ranks.size(); ++i)
            if (flags[i])
                s.slow.emplace_back(*ranks[i]->rank, ranks[i]->meanNs);
        s.totalNs = total.count(name) ? total[name] : sum;
        if (!s.slow.empty())
            out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const RankStragglers &a, const RankStragglers &b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.nameId < b.nameId;
    });
    return out;
}

} // namespace syncline
