#include "timeline/report/statsparts.h"

#include "timeline/report/partcodec.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace syncline {

namespace {

constexpr PartMagic kMagic = {'S', 'Y', 'N', 'S', 'T', 'P', 'T', '1'};

StatsRow rowOf(uint32_t name, std::optional<int> rank, const std::vector<int64_t> &v)
{
    StatsRow r;
    r.nameId = name;
    r.rank = rank;
    r.count = int64_t(v.size());
    for (int64_t d : v)
        r.totalNs += d;
    r.meanNs = r.totalNs / r.count;
    r.p50Ns = v[Stats::percentileIndex(v.size(), 50)];
    r.p95Ns = v[Stats::percentileIndex(v.size(), 95)];
    r.p99Ns = v[Stats::percentileIndex(v.size(), 99)];
    r.maxNs = v.back();
    return r;
}

} // namespace

StatsParts StatsParts::of(const Timeline &tl, const StatsQuery &query)
{
    StatsParts p;
    for (const Worker &w : tl.workers)
        p.workers.push_back(StatsWorker::of(w));
    std::vector<NameDurations> d = Stats::durations(tl, query);
    // Only the names that have durations, renumbered in the order of their texts.
    std::vector<uint32_t> used;
    for (const NameDurations &x : d)
        if (used.empty() || used.back() != x.nameId)
            used.push_back(x.nameId);
    std::sort(used.begin(), used.end(),
              [&](uint32_t a, uint32_t b) { return tl.names.name(a) < tl.names.name(b); });
    std::map<uint32_t, uint32_t> newId;
    for (uint32_t id : used) {
        newId[id] = uint32_t(p.names.size());
        p.names.emplace_back(tl.names.name(id));
    }
    for (NameDurations &x : d)
        x.nameId = newId[x.nameId];
    std::sort(d.begin(), d.end(), [](const NameDurations &a, const NameDurations &b) {
        return std::tie(a.nameId, a.rank) < std::tie(b.nameId, b.rank);
    });
    p.durations = std::move(d);
    return p;
}

std::string StatsParts::encode() const
{
    PartWriter o(kMagic);
    o.varint(workers.size());
    for (const StatsWorker &w : workers) {
        o.svarint(w.rank);
        o.svarint(w.restart);
        o.svarint(w.worldSize);
        o.svarint(w.pid);
        o.varint(w.closed ? 1 : 0);
        o.str(w.host);
        o.str(w.sourceFile);
        o.svarint(w.events);
        o.svarint(w.offsetNs);
        o.svarint(w.boundNs);
        o.svarint(w.medianBoundNs);
        o.f64(w.driftPpm);
        o.str(w.method);
        o.varint(w.wallUsed ? 1 : 0);
        o.str(w.wallVerdict);
        o.str(w.wallReason);
        o.svarint(w.wallOffsetNs);
        o.svarint(w.wallBandNs);
    }
    o.varint(names.size());
    for (const std::string &n : names)
        o.str(n);
    o.varint(durations.size());
    for (const NameDurations &x : durations) {
        o.varint(x.nameId);
        o.svarint(x.rank);
        o.varint(x.ns.size());
        int64_t last = 0;
        for (int64_t v : x.ns) { // ascending: the deltas are small and never negative
            o.svarint(v - last);
            last = v;
        }
    }
    return o.bytes;
}

std::optional<StatsParts> StatsParts::decode(std::string_view bytes, std::string *why)
{
    PartReader in(bytes, kMagic);
    if (!in.hasMagic())
        return refused(why, "not a stats part (bad magic)");
    StatsParts p;
    p.workers.resize(in.count());
    for (StatsWorker &w : p.workers) {
        w.rank = int(in.svarint());
        w.restart = int(in.svarint());
        w.worldSize = int(in.svarint());
        w.pid = in.svarint();
        w.closed = in.varint() != 0;
        w.host = in.str();
        w.sourceFile = in.str();
        w.events = in.svarint();
        w.offsetNs = in.svarint();
        w.boundNs = in.svarint();
        w.medianBoundNs = in.svarint();
        w.driftPpm = in.f64();
        w.method = in.str();
        w.wallUsed = in.varint() != 0;
        w.wallVerdict = in.str();
        w.wallReason = in.str();
        w.wallOffsetNs = in.svarint();
        w.wallBandNs = in.svarint();
    }
    p.names.resize(in.count());
    for (std::string &n : p.names)
        n = in.str();
    p.durations.resize(in.count());
    for (NameDurations &x : p.durations) {
        x.nameId = uint32_t(in.varint());
        x.rank = int(in.svarint());
        if (x.nameId >= p.names.size())
            return refused(why, "a duration list names no name");
        x.ns.resize(in.count());
        int64_t last = 0;
        for (int64_t &v : x.ns)
            last = v = last + in.svarint();
        if (!in.ok)
            break;
    }
    if (!in.ok || !in.atEnd())
        return refused(why, "truncated or damaged stats part");
    return p;
}

StatsParts StatsParts::merge(std::vector<StatsParts> parts)
{
    StatsParts out;
    std::map<std::string, uint32_t> nameIds; // text → id, assigned after collecting
    for (const StatsParts &p : parts)
        for (const std::string &n : p.names)
            nameIds.emplace(n, 0);
    for (auto &[text, id] : nameIds) { // ids in the order of the texts
        id = uint32_t(out.names.size());
        out.names.push_back(text);
    }
    std::map<std::pair<uint32_t, int>, std::vector<int64_t>> lists;
    for (StatsParts &p : parts) {
        for (StatsWorker &w : p.workers)
            out.workers.push_back(std::move(w));
        for (NameDurations &x : p.durations) {
            std::vector<int64_t> &to = lists[{nameIds[p.names[x.nameId]], x.rank}];
            const size_t mid = to.size();
            to.insert(to.end(), x.ns.begin(), x.ns.end());
            std::inplace_merge(to.begin(), to.begin() + ptrdiff_t(mid), to.end());
            std::vector<int64_t>().swap(x.ns);
        }
    }
    // The timeline's worker order (WorkerAdmission: rank, restart, source file).
    std::stable_sort(out.workers.begin(), out.workers.end(),
                     [](const StatsWorker &a, const StatsWorker &b) {
                         return std::tie(a.rank, a.restart, a.sourceFile) <
                                std::tie(b.rank, b.restart, b.sourceFile);
                     });
    for (auto &[key, v] : lists)
        out.durations.push_back({key.first, key.second, std::move(v)});
    return out;
}

std::vector<StatsRow> StatsParts::rows() const
{
    std::vector<StatsRow> out;
    for (size_t i = 0; i < durations.size();) {
        const uint32_t name = durations[i].nameId;
        size_t j = i;
        std::vector<int64_t> all;
        for (; j < durations.size() && durations[j].nameId == name; ++j) {
            const size_t mid = all.size();
            all.insert(all.end(), durations[j].ns.begin(), durations[j].ns.end());
            std::inplace_merge(all.begin(), all.begin() + ptrdiff_t(mid), all.end());
        }
        if (!all.empty())
            out.push_back(rowOf(name, std::nullopt, all));
        for (size_t k = i; k < j; ++k)
            if (!durations[k].ns.empty())
                out.push_back(rowOf(name, durations[k].rank, durations[k].ns));
        i = j;
    }
    return out;
}

void StatsParts::writeJson(std::ostream &out) const
{
    StatsExporter::writeJson(workers, names, rows(), out);
}

} // namespace syncline
