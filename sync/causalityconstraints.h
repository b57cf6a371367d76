// The constraints of a causality repair (CausalityRepair): built from a job's messages and
// collectives under the engine's fitted maps (ConstraintList), and the check of whether they
// contradict each other (constraintsContradict). The repair itself — visiting them, building
// the adjustment and applying it to the maps — is in causalityrepair.cpp.
// Threading: a ConstraintList is read-only once built (any thread); the check is pure.
#pragma once

#include "causalityrepair.h"
#include "domaingrouper.h"

#include <vector>

namespace syncline::sync {

using Constraint = CausalityRepair::Constraint;

// The constraints of one repair, without a copy of the messages (dense jobs have ~10^6–10^7):
// constraint i < messageCount() is message i (in input order, those whose two workers are
// known), the rest are the collectives' (made once, few). Read-only once built; thread-safe.
class ConstraintList
{
public:
    ConstraintList(const SyncEngineInput &input, const std::vector<WorkerClockResult> &res,
                   const DomainGrouper &groups, int64_t minLatencyNs);

    size_t messageCount() const { return m_someUnknown ? m_known.size() : m_messages.size(); }
    size_t size() const { return messageCount() + m_collective.size(); }
    Constraint operator[](size_t i) const
    {
        if (i >= messageCount())
            return m_collective[i - messageCount()];
        const MessagePair &m = m_messages[m_someUnknown ? m_known[i] : i];
        return {indexOf(m.sendWorker), m.sendLocal, indexOf(m.recvWorker), m.recvLocal, m_latency};
    }

private:
    int indexOf(int workerId) const
    {
        if (!m_dense)
            return m_groups->indexOf(workerId);
        return workerId >= 0 && size_t(workerId) < m_indexOf.size() ? m_indexOf[size_t(workerId)]
                                                                    : -1;
    }
    // Collectives: every rank's end >= the latest begin of that instance (in corrected time).
    // Instances grouped by (name, k) by sorting their indices (dense jobs have ~10^5–10^6).
    void addCollectives(const SyncEngineInput &input, const std::vector<WorkerClockResult> &res,
                        const DomainGrouper &groups);

    const std::vector<MessagePair> &m_messages;
    int64_t m_latency;
    const DomainGrouper *m_groups = nullptr;
    bool m_dense = false;
    std::vector<int> m_indexOf;
    bool m_someUnknown = false;
    std::vector<size_t> m_known; // only when some message names an unknown worker
    std::vector<Constraint> m_collective;
};

// Whether the constraints contradict each other (no increasing maps meet them all); linear in
// the instants and constraints (causalityconstraints.cpp says how).
bool constraintsContradict(const DomainGrouper &groups, const ConstraintList &cons);

} // namespace syncline::sync
