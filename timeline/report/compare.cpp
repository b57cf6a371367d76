#include "timeline/report/compare.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace syncline {

namespace {

CompareSide side(const StatsRow &r)
{
    return {r.count, r.totalNs, r.meanNs, r.p50Ns, r.p99Ns, r.p95Ns};
}

int64_t absDelta(const CompareRow &r)
{
    const int64_t d = r.deltaTotalNs();
    return d < 0 ? -d : d;
}

// name → (all-ranks row, rank → row) of one run's Stats rows (which are ordered by name).
struct Side
{
    const StatsRow *all = nullptr;
    std::map<int, const StatsRow *> ranks;
};

std::unordered_map<std::string_view, Side> index(const Compare::NameOf &nameOf,
                                                 const std::vector<StatsRow> &rows)
{
    std::unordered_map<std::string_view, Side> out;
    out.reserve(rows.size());
    for (const StatsRow &r : rows) {
        Side &s = out[nameOf(r.nameId)];
        if (r.rank)
            s.ranks[*r.rank] = &r;
        else
            s.all = &r;
    }
    return out;
}

CompareRow makeRow(std::string_view name, std::optional<int> rank, const StatsRow *a,
                   const StatsRow *b)
{
    CompareRow row;
    row.name = std::string(name);
    row.rank = rank;
    row.in = a && b ? CompareRow::In::Both : a ? CompareRow::In::OnlyA : CompareRow::In::OnlyB;
    if (a)
        row.a = side(*a);
    if (b)
        row.b = side(*b);
    return row;
}

bool containsStep(std::string_view name)
{
    static const std::string_view step = "step";
    return std::search(name.begin(), name.end(), step.begin(), step.end(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == y;
           }) != name.end();
}

std::string ms(int64_t ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

std::string signedMs(int64_t ns)
{
    return (ns >= 0 ? "+" : "") + ms(ns);
}

std::string seconds(int64_t ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f s", double(ns) / 1e9);
    return buf;
}

} // namespace

const char *Compare::inName(CompareRow::In in)
{
    switch (in) {
    case CompareRow::In::Both:
        return "both";
    case CompareRow::In::OnlyA:
        return "a";
    case CompareRow::In::OnlyB:
        return "b";
    }
    return "both";
}

CompareResult Compare::compute(const Timeline &a, const Timeline &b, const CompareQuery &q)
{
    StatsQuery sq;
    sq.mode = q.mode;
    // One run after the other, each on every core (Stats::compute cuts a run's ranks into one
    // slice per thread): no core idles while the smaller run's pass ends first.
    const std::vector<StatsRow> rowsA = Stats::compute(a, sq);
    const std::vector<StatsRow> rowsB = Stats::compute(b, sq);
    return fromStats(a, rowsA, b, rowsB, q);
}

CompareRun CompareRun::of(const Timeline &tl, ClockMode mode)
{
    CompareRun run;
    for (const Worker &w : tl.workers)
        run.ranks.push_back(w.info.rank);
    std::sort(run.ranks.begin(), run.ranks.end());
    run.ranks.erase(std::unique(run.ranks.begin(), run.ranks.end()), run.ranks.end());
    run.spanNs = tl.eventCount() ? tl.range(mode).duration() : 0;
    return run;
}

CompareResult Compare::fromStats(const Timeline &a, const std::vector<StatsRow> &rowsA,
                                 const Timeline &b, const std::vector<StatsRow> &rowsB,
                                 const CompareQuery &q)
{
    return fromRows(
        rowsA, [&](uint32_t id) { return a.names.name(id); }, CompareRun::of(a, q.mode), rowsB,
        [&](uint32_t id) { return b.names.name(id); }, CompareRun::of(b, q.mode), q);
}

CompareResult Compare::fromRows(const std::vector<StatsRow> &rowsA, const NameOf &nameA,
                                const CompareRun &runA, const std::vector<StatsRow> &rowsB,
                                const NameOf &nameB, const CompareRun &runB,
                                const CompareQuery &q)
{
    CompareResult out;
    out.ranksA = runA.ranks;
    out.ranksB = runB.ranks;
    std::set_difference(out.ranksA.begin(), out.ranksA.end(), out.ranksB.begin(), out.ranksB.end(),
                        std::back_inserter(out.onlyA));
    std::set_difference(out.ranksB.begin(), out.ranksB.end(), out.ranksA.begin(), out.ranksA.end(),
                        std::back_inserter(out.onlyB));
    out.spanANs = runA.spanNs;
    out.spanBNs = runB.spanNs;

    const auto ia = index(nameA, rowsA);
    const auto ib = index(nameB, rowsB);
    std::vector<std::string_view> names;
    names.reserve(ia.size() + ib.size());
    for (const auto &[name, s] : ia)
        names.push_back(name);
    for (const auto &[name, s] : ib)
        if (!ia.count(name))
            names.push_back(name);

    struct Group
    {
        CompareRow all;
        std::vector<CompareRow> ranks;
    };
    std::vector<Group> groups;
    groups.reserve(names.size());
    static const Side none;
    for (std::string_view name : names) {
        const auto fa = ia.find(name);
        const auto fb = ib.find(name);
        const Side &sa = fa == ia.end() ? none : fa->second;
        const Side &sb = fb == ib.end() ? none : fb->second;
        Group g;
        g.all = makeRow(name, std::nullopt, sa.all, sb.all);
        for (const auto &[rank, r] : sa.ranks) {
            const auto other = sb.ranks.find(rank);
            g.ranks.push_back(
                makeRow(name, rank, r, other == sb.ranks.end() ? nullptr : other->second));
        }
        for (const auto &[rank, r] : sb.ranks)
            if (!sa.ranks.count(rank))
                g.ranks.push_back(makeRow(name, rank, nullptr, r));
        std::sort(g.ranks.begin(), g.ranks.end(), [](const CompareRow &x, const CompareRow &y) {
            const int64_t dx = absDelta(x), dy = absDelta(y);
            return dx != dy ? dx > dy : *x.rank < *y.rank;
        });
        groups.push_back(std::move(g));
    }
    std::sort(groups.begin(), groups.end(), [](const Group &x, const Group &y) {
        const int64_t dx = absDelta(x.all), dy = absDelta(y.all);
        return dx != dy ? dx > dy : x.all.name < y.all.name;
    });
    size_t n = 0;
    for (const Group &g : groups)
        n += 1 + g.ranks.size();
    out.rows.reserve(n);
    for (Group &g : groups) {
        out.rows.push_back(std::move(g.all));
        for (CompareRow &r : g.ranks)
            out.rows.push_back(std::move(r));
    }

    // The step name: the anchor's when both runs have it, else the largest-in-A "step" name.
    if (!q.anchor.byStart() && ia.count(q.anchor.name) && ib.count(q.anchor.name)) {
        out.stepName = q.anchor.name;
    } else {
        int64_t best = -1;
        for (const auto &[name, s] : ia)
            if (s.all && ib.count(name) && containsStep(name) &&
                (s.all->totalNs > best || (s.all->totalNs == best && name < out.stepName))) {
                best = s.all->totalNs;
                out.stepName = std::string(name);
            }
    }
    return out;
}

const CompareRow *CompareResult::stepRow() const
{
    if (stepName.empty())
        return nullptr;
    for (const CompareRow &r : rows)
        if (!r.rank && r.name == stepName)
            return &r;
    return nullptr;
}

std::string CompareResult::summaryLine() const
{
    std::string line;
    if (const CompareRow *s = stepRow()) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.3f", CompareRow::ratio(s->a.meanNs, s->b.meanNs));
        line = "step '" + stepName + "': mean " + ms(s->a.meanNs) + " (A) vs " + ms(s->b.meanNs) +
               " (B), " + signedMs(s->deltaMeanNs()) + " (x" + ratio + "); ";
    }
    line += "span " + seconds(spanANs) + " (A) vs " + seconds(spanBNs) + " (B)";
    return line;
}

} // namespace syncline
