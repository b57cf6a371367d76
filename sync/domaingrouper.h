// DomainGrouper — groups workers into clock domains: workers with the same host, boot id and clock
// source read the same clock and share one model. A worker whose host or boot id is empty (an
// imported trace) is a domain of its own. Domains are numbered in order of first appearance.
// Indices are positions in the input vector, not worker ids. Immutable; thread-safe.
#pragma once

#include "syncengine.h"

#include <unordered_map>
#include <vector>

namespace syncline::sync {

class DomainGrouper
{
public:
    explicit DomainGrouper(const std::vector<WorkerClockInput> &workers);

    int domainCount() const { return int(m_members.size()); }
    int domainOf(size_t workerIndex) const { return m_domainOf[workerIndex]; }
    const std::vector<size_t> &members(int domain) const { return m_members[size_t(domain)]; }
    // Position of the worker with this workerId, or -1.
    int indexOf(int workerId) const;

private:
    std::vector<int> m_domainOf;
    std::vector<std::vector<size_t>> m_members;
    std::unordered_map<int, int> m_indexOfId;
};

} // namespace syncline::sync
