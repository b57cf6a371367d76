// The constraints of a causality repair — see causalityconstraints.h.
#include "causalityconstraints.h"

#include <algorithm>
#include <tuple>

namespace syncline::sync {

ConstraintList::ConstraintList(const SyncEngineInput &input,
                               const std::vector<WorkerClockResult> &res,
                               const DomainGrouper &groups, int64_t minLatencyNs)
    : m_messages(input.messages), m_latency(minLatencyNs)
{
    // workerId → position, dense when the ids are small (they are positions, usually).
    int top = -1;
    for (const WorkerClockInput &w : input.workers)
        top = std::max(top, w.workerId);
    m_dense = top < int(4 * input.workers.size() + 64);
    if (m_dense) {
        m_indexOf.assign(size_t(top + 1), -1);
        for (int id = 0; id <= top; ++id)
            m_indexOf[size_t(id)] = groups.indexOf(id);
    }
    m_groups = &groups;
    for (size_t i = 0; i < m_messages.size(); ++i) {
        if (indexOf(m_messages[i].sendWorker) < 0 || indexOf(m_messages[i].recvWorker) < 0) {
            m_known.reserve(m_messages.size());
            for (size_t j = 0; j < m_messages.size(); ++j)
                if (indexOf(m_messages[j].sendWorker) >= 0 &&
                    indexOf(m_messages[j].recvWorker) >= 0)
                    m_known.push_back(j);
            m_someUnknown = true;
            break;
        }
    }
    addCollectives(input, res, groups);
}

void ConstraintList::addCollectives(const SyncEngineInput &input,
                                    const std::vector<WorkerClockResult> &res,
                                    const DomainGrouper &groups)
{
    const auto &cs = input.collectives;
    std::vector<uint32_t> idx(cs.size());
    for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = uint32_t(i);
    std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
        return std::tie(cs[a].nameId, cs[a].sequence, a) <
               std::tie(cs[b].nameId, cs[b].sequence, b);
    });
    for (size_t lo = 0; lo < idx.size();) {
        size_t hi = lo + 1;
        while (hi < idx.size() && cs[idx[hi]].nameId == cs[idx[lo]].nameId &&
               cs[idx[hi]].sequence == cs[idx[lo]].sequence)
            ++hi;
        if (hi - lo >= 2) {
            int last = -1;
            int64_t lastLocal = 0, lastGlobal = INT64_MIN;
            for (size_t j = lo; j < hi; ++j) {
                const CollectiveInstance &c = cs[idx[j]];
                const int w = groups.indexOf(c.workerId);
                if (w < 0)
                    continue;
                const int64_t g = res[size_t(w)].map.toGlobal(c.localBegin);
                if (g > lastGlobal) {
                    lastGlobal = g;
                    last = w;
                    lastLocal = c.localBegin;
                }
            }
            for (size_t j = lo; j < hi; ++j) {
                const CollectiveInstance &c = cs[idx[j]];
                const int w = groups.indexOf(c.workerId);
                if (w >= 0 && w != last && last >= 0)
                    m_collective.push_back({last, lastLocal, w, c.localEnd, 0});
            }
        }
        lo = hi;
    }
}

// Whether the constraints contradict each other: no increasing maps meet them all exactly when
// the graph of constrained instants (each domain's in local-time order, one after the next,
// plus an edge send -> receive per constraint across domains) has a cycle; without one, the
// instants in topological order, spaced by the latencies, are maps that meet every constraint.
// Kahn's algorithm: linear in the instants and constraints. Constraints inside one domain are
// ordered by its shared clock and left out, as the repair leaves them.
bool constraintsContradict(const DomainGrouper &groups, const ConstraintList &cons)
{
    const size_t domains = size_t(groups.domainCount());
    auto dom = [&](int w) { return size_t(groups.domainOf(size_t(w))); };
    std::vector<std::vector<int64_t>> times(domains);
    for (size_t i = 0; i < cons.size(); ++i) {
        const Constraint c = cons[i];
        if (dom(c.src) == dom(c.dst))
            continue;
        times[dom(c.src)].push_back(c.srcLocal);
        times[dom(c.dst)].push_back(c.dstLocal);
    }
    std::vector<size_t> base(domains + 1, 0);
    for (size_t d = 0; d < domains; ++d) {
        std::sort(times[d].begin(), times[d].end());
        times[d].erase(std::unique(times[d].begin(), times[d].end()), times[d].end());
        base[d + 1] = base[d] + times[d].size();
    }
    const size_t n = base[domains];
    auto node = [&](size_t d, int64_t t) {
        return base[d] +
               size_t(std::lower_bound(times[d].begin(), times[d].end(), t) - times[d].begin());
    };
    // Constraint edges as adjacency lists in one array (offsets per node); an instant's
    // successor in its own domain is the next node, unless it is its domain's last.
    std::vector<size_t> first(n + 1, 0), indegree(n, 0);
    std::vector<std::pair<size_t, size_t>> edges;
    edges.reserve(cons.size());
    for (size_t i = 0; i < cons.size(); ++i) {
        const Constraint c = cons[i];
        if (dom(c.src) == dom(c.dst))
            continue;
        edges.emplace_back(node(dom(c.src), c.srcLocal), node(dom(c.dst), c.dstLocal));
        ++first[edges.back().first + 1];
        ++indegree[edges.back().second];
    }
    for (size_t v = 0; v < n; ++v)
        first[v + 1] += first[v];
    std::vector<size_t> to(edges.size()), fill(first.begin(), first.end() - 1);
    for (const auto &[a, b] : edges)
        to[fill[a]++] = b;
    std::vector<bool> last(n, false);
    for (size_t d = 0; d < domains; ++d) {
        if (base[d + 1] > base[d])
            last[base[d + 1] - 1] = true;
        for (size_t v = base[d] + 1; v < base[d + 1]; ++v)
            ++indegree[v];
    }
    std::vector<size_t> ready;
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            ready.push_back(v);
    size_t done = 0;
    auto release = [&](size_t v) {
        if (--indegree[v] == 0)
            ready.push_back(v);
    };
    while (!ready.empty()) {
        const size_t v = ready.back();
        ready.pop_back();
        ++done;
        if (!last[v])
            release(v + 1);
        for (size_t e = first[v]; e < first[v + 1]; ++e)
            release(to[e]);
    }
    return done < n;
}

} // namespace syncline::sync
