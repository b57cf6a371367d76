// LinkTable — Timeline::links, the timeline's arrows (MessageLink: msg send → recv pairs and
// Chrome flow steps), held in 16 bytes a link: per link only its two local times (Ends), and per
// group of links that share (from worker, from track, to worker, to track, kind) one Group with
// those fields and the group's index range. A job's links fall into few groups (at most one per
// track pair and kind; 64 workers exchanging with their neighbours: a few hundred), so the
// groups cost nothing per link. MessageLink (32 bytes) stays the form links are made in and read
// as: at(i) rebuilds one in O(log groups).
//
// Invariants: links are sorted by MessageLink::lessByPair — by group, then by send (local) time —
// so each group is one contiguous range [begin, end), in send order in every clock mode (the maps
// are monotone); groups are in that order too and cover [0, size()) without gaps. Times are the
// workers' LOCAL ns.
// Example: links (w0 t0 → w1 t0 at 10 → 15), (w0 t0 → w1 t0 at 20 → 26), (w1 t0 → w0 t0 at 30
// → 31) become ends {10,15}, {20,26}, {30,31} and groups {w0 t0 → w1 t0, [0, 2)}, {w1 t0 → w0 t0,
// [2, 3)}.
// Threading: a value; read-only once built (the loader builds it before the Timeline is shared).
#pragma once

#include "timeline/model/messagelink.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncline {

class LinkTable
{
public:
    struct Ends
    {
        int64_t fromLocal = 0;
        int64_t toLocal = 0;
    };
    static_assert(sizeof(Ends) == 16);
    struct Group
    {
        uint32_t fromWorker = 0, fromTrack = 0, toWorker = 0, toTrack = 0;
        MessageLink::Kind kind = MessageLink::Message;
        size_t begin = 0, end = 0; // its links: [begin, end)
    };

    LinkTable() = default;
    // Any order; sorted here (MessageLink::lessByPair) and grouped.
    explicit LinkTable(std::vector<MessageLink> links);

    // Building from links already in order (a stored table): reserve, then append each link;
    // false (nothing added) when `l` sorts before the last link appended.
    void reserve(size_t n) { m_ends.reserve(n); }
    bool appendInOrder(const MessageLink &l);

    size_t size() const { return m_ends.size(); }
    bool empty() const { return m_ends.empty(); }
    MessageLink at(size_t i) const;
    MessageLink operator[](size_t i) const { return at(i); }
    const Ends &ends(size_t i) const { return m_ends[i]; }
    const std::vector<Ends> &ends() const { return m_ends; }
    const std::vector<Group> &groups() const { return m_groups; }
    size_t groupOf(size_t i) const; // the group holding link i: O(log groups)
    std::vector<MessageLink> toVector() const;
    // Removes the links for which pred(MessageLink) is true (the rest keep their order); returns
    // how many went.
    // In place: each group's kept ends move down, empty groups go (no copy, no sort: what is
    // kept of a sorted table is sorted).
    template <typename Pred> size_t eraseIf(Pred pred)
    {
        size_t out = 0, groups = 0;
        for (size_t g = 0; g < m_groups.size(); ++g) {
            Group group = m_groups[g];
            const size_t first = out;
            for (size_t i = group.begin; i < group.end; ++i)
                if (!pred(make(group, i)))
                    m_ends[out++] = m_ends[i];
            if (out > first) {
                group.begin = first;
                group.end = out;
                m_groups[groups++] = group;
            }
        }
        const size_t removed = m_ends.size() - out;
        m_ends.resize(out);
        m_groups.resize(groups);
        return removed;
    }
    void shrink_to_fit()
    {
        m_ends.shrink_to_fit();
        m_groups.shrink_to_fit();
    }
    // Iteration yields MessageLink values, in order (for (const MessageLink &l : tl.links)).
    class const_iterator
    {
    public:
        using value_type = MessageLink;
        using difference_type = std::ptrdiff_t;
        const_iterator() = default;
        const_iterator(const LinkTable *t, size_t i) : m_t(t), m_i(i) {}
        MessageLink operator*() const { return m_t->at(m_i); }
        const_iterator &operator++()
        {
            ++m_i;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator c = *this;
            ++m_i;
            return c;
        }
        bool operator==(const const_iterator &o) const { return m_i == o.m_i; }

    private:
        const LinkTable *m_t = nullptr;
        size_t m_i = 0;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }
    // Bytes held (capacities): 16 a link plus the groups.
    size_t bytes() const
    {
        return m_ends.capacity() * sizeof(Ends) + m_groups.capacity() * sizeof(Group);
    }
    void clear()
    {
        m_ends.clear();
        m_groups.clear();
    }
    bool operator==(const LinkTable &o) const { return toVector() == o.toVector(); }

private:
    MessageLink make(const Group &g, size_t i) const; // link i of group g
    std::vector<Ends> m_ends;
    std::vector<Group> m_groups;
};

} // namespace syncline
