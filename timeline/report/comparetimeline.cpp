#include "timeline/report/comparetimeline.h"

#include <algorithm>

namespace syncline {

std::shared_ptr<Timeline> CompareTimeline::combine(const Timeline &a, const Timeline &b,
                                                   const CompareShift &shift, CompareLayout layout)
{
    auto out = std::make_shared<Timeline>();
    Timeline &c = *out;
    // Merged into fresh tables (a StringTable's index views its own strings: never copied).
    // A's ids come out unchanged (merging into an empty table keeps first-seen order), B's
    // are remapped.
    const std::vector<uint32_t> nameMapA = c.names.merge(a.names);
    const std::vector<uint32_t> argMapA = c.args.merge(a.args);
    const std::vector<uint32_t> nameMap = c.names.merge(b.names);
    const std::vector<uint32_t> argMap = c.args.merge(b.args);
    c.causality = a.causality;
    c.referenceShiftNs = a.referenceShiftNs;
    c.kinds.resize(c.names.size());
    for (size_t j = 0; j < a.kinds.size() && j < nameMapA.size(); ++j)
        c.kinds[nameMapA[j]] = a.kinds[j];
    for (size_t j = 0; j < b.kinds.size() && j < nameMap.size(); ++j)
        if (nameMap[j] >= a.names.size())
            c.kinds[nameMap[j]] = b.kinds[j];

    auto remap = [](Worker &w, const std::vector<uint32_t> &names,
                    const std::vector<uint32_t> &args) {
        for (EventTrack &t : w.tracks) {
            for (uint32_t &n : t.nameId)
                n = names[n];
            t.remapArgIds(args);
        }
    };
    auto identity = [](const std::vector<uint32_t> &m) {
        for (size_t i = 0; i < m.size(); ++i)
            if (m[i] != i)
                return false;
        return true;
    };
    // B's workers relabelled and shifted, its names and args remapped.
    std::vector<Worker> wa = a.workers, wb = b.workers;
    for (Worker &w : wa) {
        w.info.run = "A";
        if (!identity(nameMapA) || !identity(argMapA))
            remap(w, nameMapA, argMapA);
    }
    for (Worker &w : wb) {
        w.info.run = "B";
        w.corrected = w.corrected.shifted(shift.correctedNs);
        w.raw = w.raw.shifted(shift.rawNs);
        w.clock.offsetNs += shift.correctedNs;
        remap(w, nameMap, argMap);
    }
    // Order, remembering where each source worker went (for the flows).
    std::vector<uint32_t> posA(wa.size()), posB(wb.size());
    auto take = [&](std::vector<Worker> &from, size_t i, std::vector<uint32_t> &pos) {
        pos[i] = uint32_t(c.workers.size());
        c.workers.push_back(std::move(from[i]));
    };
    c.workers.reserve(wa.size() + wb.size());
    if (layout == CompareLayout::Stacked) {
        for (size_t i = 0; i < wa.size(); ++i)
            take(wa, i, posA);
        for (size_t i = 0; i < wb.size(); ++i)
            take(wb, i, posB);
    } else {
        size_t i = 0, j = 0; // both sorted by (rank, restart)
        while (i < wa.size() || j < wb.size()) {
            const int rank = j == wb.size()   ? wa[i].info.rank
                             : i == wa.size() ? wb[j].info.rank
                                              : std::min(wa[i].info.rank, wb[j].info.rank);
            while (i < wa.size() && wa[i].info.rank == rank)
                take(wa, i++, posA);
            while (j < wb.size() && wb[j].info.rank == rank)
                take(wb, j++, posB);
        }
    }

    uint64_t maxId = 0;
    for (const FlowPoint &f : a.flows)
        maxId = std::max(maxId, f.id);
    c.flows.reserve(a.flows.size() + b.flows.size());
    for (FlowPoint f : a.flows) {
        f.worker = posA[f.worker];
        f.nameId = nameMapA[f.nameId];
        f.categoryId = nameMapA[f.categoryId];
        c.flows.push_back(f);
    }
    for (FlowPoint f : b.flows) {
        f.worker = posB[f.worker];
        f.id += maxId + 1;
        f.nameId = nameMap[f.nameId];
        f.categoryId = nameMap[f.categoryId];
        c.flows.push_back(f);
    }
    std::stable_sort(c.flows.begin(), c.flows.end(), [](const FlowPoint &x, const FlowPoint &y) {
        return x.id != y.id ? x.id < y.id : x.localNs < y.localNs;
    });
    // The links (arrows), each run's onto its workers' new places; none joins A to B.
    std::vector<MessageLink> links;
    links.reserve(a.links.size() + b.links.size());
    for (const auto &[run, pos] : {std::pair{&a.links, &posA}, std::pair{&b.links, &posB}})
        for (MessageLink l : run->toVector()) {
            l.fromWorker = (*pos)[l.fromWorker];
            l.toWorker = (*pos)[l.toWorker];
            links.push_back(l);
        }
    c.links = LinkTable(std::move(links));

    c.problems = a.problems;
    for (LoadProblem p : b.problems) {
        p.message = "B: " + p.message;
        c.problems.push_back(std::move(p));
    }
    for (const std::string &n : a.clockNotes)
        c.clockNotes.push_back("A: " + n);
    for (const std::string &n : b.clockNotes)
        c.clockNotes.push_back("B: " + n);
    c.updateRange();
    return out;
}

} // namespace syncline
