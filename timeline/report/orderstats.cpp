// OrderStats — see orderstats.h.
#include "timeline/report/orderstats.h"

#include <algorithm>
#include <limits>

namespace syncline {

namespace {

// total + x, held at the int64 limit instead of overflowing (UB): only a hostile log has
// durations whose sum passes 2^63 ns (found by fuzz_jobload).
inline int64_t addSaturating(int64_t total, int64_t x)
{
    int64_t r;
    if (__builtin_add_overflow(total, x, &r))
        return x > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return r;
}

// Copies v and selects in the copy: each nth_element searches only above the previous rank.
OrderStats::Summary direct(std::span<const int64_t> v, std::span<const size_t> ks,
                           std::span<int64_t> out, std::vector<int64_t> &buf)
{
    OrderStats::Summary s;
    if (!v.empty())
        s.max = v.front();
    buf.assign(v.begin(), v.end());
    for (int64_t x : buf) {
        s.total = addSaturating(s.total, x);
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
    if (v.size() < kDirect || v.size() > std::numeric_limits<uint32_t>::max() ||
        ks.size() > kMaxRanks)
        return direct(v, ks, out, scratch.values);
    std::vector<uint32_t> &hist = scratch.hist;
    hist.assign(size_t(kBuckets), 0);
    count(v, hist.data());
    return selectCounted(v, hist, 0, ks, out, scratch);
}

OrderStats::Summary OrderStats::selectCounted(std::span<const int64_t> v,
                                              std::span<const uint32_t> hist, int first,
                                              std::span<const size_t> ks, std::span<int64_t> out,
                                              Scratch &scratch)
{
    if (ks.size() > kMaxRanks || v.empty())
        return direct(v, ks, out, scratch.values);
    // Each wanted rank's bucket (index into hist) and its rank inside that bucket; the distinct
    // buckets (ascending, as the ranks are) and where their values go in the buffer.
    struct Want
    {
        size_t bucket;
        size_t within;
    };
    Want want[kMaxRanks];
    size_t buckets[kMaxRanks];
    size_t start[kMaxRanks + 1];
    size_t distinct = 0, copied = 0;
    size_t below = 0; // values in buckets before b
    size_t b = 0;
    for (size_t i = 0; i < ks.size(); ++i) {
        while (below + hist[b] <= ks[i])
            below += hist[b++];
        want[i] = {b, ks[i] - below};
        if (distinct == 0 || buckets[distinct - 1] != b) {
            buckets[distinct] = b;
            start[distinct] = copied;
            copied += hist[b];
            ++distinct;
        }
    }
    start[distinct] = copied;

    // One pass: copy out the values of those buckets without a branch per value (each value
    // is written at the end of the copied ones, which advances only for a wanted bucket); then,
    // with more than one bucket, the few copied values moved to their bucket's part.
    std::vector<uint8_t> &part = scratch.part; // bucket − first → 1 + its part, 0: not wanted
    part.assign(hist.size(), 0);
    for (size_t j = 0; j < distinct; ++j)
        part[buckets[j]] = uint8_t(j + 1);
    std::vector<int64_t> &kept = scratch.kept;
    kept.resize(copied + 1); // (+1: the slot written for a value that is not kept)
    size_t n = 0;
    Summary s;
    s.max = v.front();
    for (int64_t x : v) {
        kept[n] = x;
        n += part[size_t(bucketOf(x) - first)] != 0;
        s.total = addSaturating(s.total, x);
        s.max = std::max(s.max, x);
    }
    std::vector<int64_t> &buf = distinct == 1 ? kept : scratch.values;
    if (distinct > 1) {
        buf.resize(copied);
        size_t cursor[kMaxRanks + 1];
        for (size_t j = 0; j < distinct; ++j)
            cursor[j + 1] = start[j];
        for (size_t i = 0; i < copied; ++i) {
            const int64_t x = kept[i];
            buf[cursor[part[size_t(bucketOf(x) - first)]]++] = x;
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
