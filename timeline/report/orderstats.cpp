// OrderStats — see orderstats.h.
#include "timeline/report/orderstats.h"

#include <algorithm>
#include <limits>

namespace syncline {

namespace {

// Copies v and selects in the copy: each nth_element searches only above the previous rank.
OrderStats::Summary direct(std::span<const int64_t> v, std::span<const size_t> ks,
                           std::span<int64_t> out, std::vector<int64_t> &buf)
{
    OrderStats::Summary s;
    if (!v.empty())
        s.max = v.front();
    buf.assign(v.begin(), v.end());
    for (int64_t x : buf) {
        s.total += x;
        s.max = std::max(s.max, x);
    }
    auto from = buf.begin();
    for (size_t i = 0; i < ks.size(); ++i) {
        const auto kth = buf.begin() + std::ptrdiff_t(ks[i]);
        std::nth_element(from, kth, buf.end());
        out[i] = *kth;
        from = kth;
    }
    return s;
}

} // namespace

OrderStats::Summary OrderStats::select(std::span<const int64_t> v, std::span<const size_t> ks,
                                       std::span<int64_t> out, Scratch &scratch)
{
    constexpr size_t kMaxRanks = 8; // (Stats asks for three)
    if (v.size() < kDirect || v.size() > std::numeric_limits<uint32_t>::max() ||
        ks.size() > kMaxRanks)
        return direct(v, ks, out, scratch.values);

    // Pass 1: the histogram, the sum and the maximum.
    Summary s;
    s.max = std::numeric_limits<int64_t>::min();
    std::vector<uint32_t> &hist = scratch.hist;
    hist.assign(size_t(kBuckets), 0);
    for (int64_t x : v) {
        ++hist[size_t(bucketOf(x))];
        s.total += x;
        s.max = std::max(s.max, x);
    }

    // Each wanted rank's bucket and its rank inside that bucket; the distinct buckets (at most
    // one per rank, ascending since the ranks are) and where their values go in the buffer.
    struct Want
    {
        int bucket;
        size_t within;
    };
    Want want[kMaxRanks];
    int buckets[kMaxRanks];
    size_t start[kMaxRanks + 1];
    size_t distinct = 0, copied = 0;
    size_t below = 0; // values in buckets before b
    int b = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
        while (below + hist[size_t(b)] <= ks[i])
            below += hist[size_t(b++)];
        want[i] = {b, ks[i] - below};
        if (distinct == 0 || buckets[distinct - 1] != b) {
            buckets[distinct] = b;
            start[distinct] = copied;
            copied += hist[size_t(b)];
            ++distinct;
        }
    }
    start[distinct] = copied;
    if (distinct == 0)
        return s;

    // Pass 2: copy out the values of those buckets.
    std::vector<int64_t> &buf = scratch.values;
    buf.resize(copied);
    size_t cursor[kMaxRanks];
    std::copy(start, start + distinct, cursor);
    const int lo = buckets[0], hi = buckets[distinct - 1];
    for (int64_t x : v) {
        const int k = bucketOf(x);
        if (k < lo || k > hi)
            continue;
        for (size_t j = 0; j < distinct; ++j)
            if (buckets[j] == k) {
                buf[cursor[j]++] = x;
                break;
            }
    }

    // Order within each bucket: ranks in one bucket ascending, each searched above the last.
    size_t j = 0;
    auto from = buf.begin();
    for (size_t i = 0; i < ks.size(); ++i) {
        while (buckets[j] != want[i].bucket)
            from = buf.begin() + std::ptrdiff_t(start[++j]);
        const auto kth = buf.begin() + std::ptrdiff_t(start[j] + want[i].within);
        std::nth_element(from, kth, buf.begin() + std::ptrdiff_t(start[j + 1]));
        out[i] = *kth;
        from = kth;
    }
    return s;
}

} // namespace syncline
