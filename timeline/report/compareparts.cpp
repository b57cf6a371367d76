#include "timeline/report/compareparts.h"

#include "timeline/report/partcodec.h"

#include <algorithm>

namespace syncline {

namespace {

constexpr PartMagic kMagic = {'S', 'Y', 'N', 'C', 'M', 'P', 'T', '1'};

} // namespace

CompareRunPart CompareRunPart::of(const Timeline &tl, ClockMode mode, const CompareAnchor &anchor)
{
    CompareRunPart p;
    StatsQuery q;
    q.mode = mode;
    q.threads = 1; // one task, one core: the cluster runs the others
    p.stats = StatsParts::of(tl, q);
    p.events = int64_t(tl.eventCount());
    if (p.events > 0) {
        p.beginNs = tl.range(mode).begin;
        p.endNs = tl.range(mode).end;
    }
    p.anchorK = anchor.k;
    p.anchor = anchor.starts(tl, mode);
    return p;
}

std::string CompareRunPart::encode() const
{
    PartWriter o(kMagic);
    o.str(stats.encode());
    o.svarint(events);
    o.svarint(beginNs);
    o.svarint(endNs);
    o.varint(uint64_t(anchorK));
    o.svarint(anchor.earliest);
    o.varint(anchor.named ? 1 : 0);
    o.varint(anchor.perRank.size());
    for (const auto &[rank, starts] : anchor.perRank) {
        o.svarint(rank);
        o.varint(starts.size());
        int64_t last = 0;
        for (int64_t t : starts) { // ascending
            o.svarint(t - last);
            last = t;
        }
    }
    return o.bytes;
}

std::optional<CompareRunPart> CompareRunPart::decode(std::string_view bytes, std::string *why)
{
    PartReader in(bytes, kMagic);
    if (!in.hasMagic())
        return refused(why, "not a compare part (bad magic)");
    CompareRunPart p;
    const std::string stats = in.str();
    std::string statsWhy;
    std::optional<StatsParts> s = StatsParts::decode(stats, &statsWhy);
    if (!in.ok || !s)
        return refused(why, "compare part: " + (in.ok ? statsWhy : std::string("truncated")));
    p.stats = std::move(*s);
    p.events = in.svarint();
    p.beginNs = in.svarint();
    p.endNs = in.svarint();
    const uint64_t k = in.varint();
    p.anchorK = k >= 1 && k <= INT32_MAX ? int(k) : 0;
    p.anchor.earliest = in.svarint();
    p.anchor.named = in.varint() != 0;
    for (size_t n = in.count(); in.ok && n > 0; --n) {
        std::vector<int64_t> &starts = p.anchor.perRank[int(in.svarint())];
        starts.resize(in.count());
        int64_t last = 0;
        for (int64_t &t : starts)
            last = t = last + in.svarint();
    }
    if (!in.ok || !in.atEnd() || p.anchorK == 0)
        return refused(why, "truncated or damaged compare part");
    return p;
}

CompareRunPart CompareRunPart::merge(std::vector<CompareRunPart> parts)
{
    CompareRunPart out;
    std::vector<StatsParts> stats;
    for (CompareRunPart &p : parts) {
        stats.push_back(std::move(p.stats));
        out.events += p.events;
        out.beginNs = std::min(out.beginNs, p.beginNs);
        out.endNs = std::max(out.endNs, p.endNs);
        out.anchorK = p.anchorK;
        out.anchor.merge(p.anchor, p.anchorK);
    }
    out.stats = StatsParts::merge(std::move(stats));
    return out;
}

CompareRun CompareRunPart::run() const
{
    CompareRun r;
    for (const StatsWorker &w : stats.workers)
        r.ranks.push_back(w.rank);
    std::sort(r.ranks.begin(), r.ranks.end());
    r.ranks.erase(std::unique(r.ranks.begin(), r.ranks.end()), r.ranks.end());
    r.spanNs = events > 0 ? endNs - beginNs : 0;
    return r;
}

CompareRunInfo CompareRunPart::info() const
{
    // Timeline::range's origin: the earliest start; 0 for a run without events.
    return {stats.workers.size(), size_t(events), events > 0 ? beginNs : 0};
}

SplitComparison CompareParts::compare(const CompareRunPart &a, const CompareRunPart &b,
                                      ClockMode mode, const CompareAnchor &anchor)
{
    SplitComparison out;
    out.info.mode = mode;
    out.info.anchor = anchor;
    out.info.a = a.info();
    out.info.b = b.info();
    const std::pair<const CompareRunPart *, int64_t *> runs[] = {{&a, &out.info.anchorANs},
                                                                 {&b, &out.info.anchorBNs}};
    for (const auto &[run, at] : runs) {
        const std::optional<int64_t> t = anchor.pick(run->anchor, &out.error);
        if (!t) {
            out.errorRun = run == &a ? 'A' : 'B';
            return out;
        }
        *at = *t;
    }
    CompareQuery q;
    q.mode = mode;
    q.anchor = anchor;
    out.result = Compare::fromRows(
        a.stats.rows(), [&](uint32_t id) { return std::string_view(a.stats.names[id]); },
        a.run(), b.stats.rows(), [&](uint32_t id) { return std::string_view(b.stats.names[id]); },
        b.run(), q);
    return out;
}

} // namespace syncline
