// DomainGrouper — see domaingrouper.h.
#include "domaingrouper.h"

#include <map>
#include <string>

namespace syncline::sync {

DomainGrouper::DomainGrouper(const std::vector<WorkerClockInput> &workers)
{
    std::map<std::string, int> byKey;
    m_domainOf.resize(workers.size());
    for (size_t i = 0; i < workers.size(); ++i) {
        const WorkerClockInput &w = workers[i];
        const bool known = !w.host.empty() && !w.bootId.empty();
        const std::string key =
            known ? w.host + '\n' + w.bootId + '\n' + w.clockSource : "#" + std::to_string(i);
        auto [it, inserted] = byKey.emplace(key, int(m_members.size()));
        if (inserted)
            m_members.emplace_back();
        m_domainOf[i] = it->second;
        m_members[size_t(it->second)].push_back(i);
        m_indexOfId.emplace(w.workerId, int(i));
    }
}

int DomainGrouper::indexOf(int workerId) const
{
    const auto it = m_indexOfId.find(workerId);
    return it == m_indexOfId.end() ? -1 : it->second;
}

} // namespace syncline::sync
