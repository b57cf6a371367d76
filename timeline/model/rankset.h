// RankSet — a selection of ranks, as `--ranks 0-63,512` writes it: comma-separated single ranks
// and inclusive ranges A-B (0 <= A <= B < 2^31), in any order, overlaps allowed. An empty set
// (the default) means "every rank": a job is loaded whole.
//
// Invariants: the ranges are sorted, disjoint and not adjacent (parse merges them), so
// contains() is a binary search and toString() gives the canonical spelling ("3,5-7" for
// "7,5-6,3,5").
// Example: parse("0-63,512") → {[0,63], [512,512]}; contains(63) true, contains(64) false,
// count() 65.
// Threading: a value; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace syncline {

class RankSet
{
public:
    // Parses `text`; on a malformed spec returns false and sets *error to what is wrong and
    // where ("'5-3': the range ends before it starts", "'x': not a rank or a range A-B").
    static bool parse(const std::string &text, RankSet &out, std::string *error);
    static RankSet of(const std::vector<int> &ranks); // negative ranks are ignored

    bool all() const { return m_ranges.empty(); } // no selection: every rank
    bool contains(int rank) const;
    int64_t count() const; // ranks selected (0 for all())
    std::string toString() const;
    const std::vector<std::pair<int, int>> &ranges() const { return m_ranges; }
    bool operator==(const RankSet &o) const { return m_ranges == o.m_ranges; }

private:
    void add(int first, int last);
    void normalise();
    std::vector<std::pair<int, int>> m_ranges; // inclusive [first, last]
};

} // namespace syncline
