// RemoteEnds — see remoteends.h.
#include "timeline/live/remoteends.h"

#include <algorithm>
#include <unordered_map>

namespace syncline {

namespace {

// Keys joined with a separator no header field can make ambiguous (lengths first).
std::string key(std::initializer_list<std::string> parts)
{
    std::string k;
    for (const std::string &p : parts)
        k += std::to_string(p.size()) + ':' + p + '|';
    return k;
}

struct Latest
{
    int restart = -1;
    // Per restart count: the latest first record of an incarnation with that count.
    std::unordered_map<int, int64_t> firstAt;
};

struct Peers
{
    int count = 0;
    int closed = 0;
};

} // namespace

std::vector<std::string> RemoteEnds::reasons(const std::vector<Input> &workers)
{
    std::unordered_map<std::string, Latest> ranks;       // (run id, role, rank)
    std::unordered_map<std::string, Peers> incarnations; // (run id, restart, world size)
    std::vector<std::string> rankKey(workers.size()), incKey(workers.size());
    for (size_t i = 0; i < workers.size(); ++i) {
        const WorkerInfo &w = *workers[i].info;
        rankKey[i] = key({w.runId, w.role, std::to_string(w.rank)});
        incKey[i] = key({w.runId, std::to_string(w.restart), std::to_string(w.worldSize)});
        Latest &l = ranks[rankKey[i]];
        l.restart = std::max(l.restart, w.restart);
        auto [it, fresh] = l.firstAt.emplace(w.restart, workers[i].firstGlobalNs);
        if (!fresh)
            it->second = std::max(it->second, workers[i].firstGlobalNs);
        Peers &p = incarnations[incKey[i]];
        ++p.count;
        p.closed += w.closedCleanly ? 1 : 0;
    }
    std::vector<std::string> out(workers.size());
    for (size_t i = 0; i < workers.size(); ++i) {
        const Input &in = workers[i];
        const WorkerInfo &w = *in.info;
        if (in.local || w.closedCleanly ||
            (in.state != WorkerState::Running && in.state != WorkerState::Silent))
            continue;
        const Latest &l = ranks[rankKey[i]];
        const std::string rank = "rank " + std::to_string(w.rank);
        if (in.quietS >= kSupersededQuietS) {
            if (l.restart > w.restart) {
                out[i] = "probably crashed: restart " + std::to_string(l.restart) + " of " + rank +
                         " started";
                continue;
            }
            if (l.firstAt.at(w.restart) > in.lastGlobalNs) {
                out[i] = "probably crashed: a later incarnation of " + rank +
                         " (same restart count, the group re-formed) started";
                continue;
            }
        }
        const Peers &p = incarnations[incKey[i]];
        if (in.state == WorkerState::Silent && p.count >= 2 && p.closed == p.count - 1)
            out[i] = "probably crashed: its " + std::to_string(p.closed) +
                     (p.closed == 1 ? " peer" : " peers") + " closed while it stayed silent";
    }
    return out;
}

} // namespace syncline
