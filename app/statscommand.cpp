// `syncline stats PATH... [--json] [--align-on PATTERN] [--raw]` — per-name duration statistics
// per rank and over all ranks, the workers' clocks and the stragglers of step-like events.
// --json prints the StatsExporter JSON document (docs/cli.md) and nothing else on stdout.
// Names and hosts in the text output go through utf8::terminalSafe (control characters and
// invalid bytes as \xNN: a log cannot drive the terminal).
#include "command.h"
#include "jobargs.h"
#include "daskhandover.h"

#include "recorder/utf8.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/eventbounds.h"
#include "timeline/report/rankoutliers.h"
#include "timeline/report/stats.h"
#include "timeline/report/statsexporter.h"
#include "timeline/report/wallclocksummary.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

namespace syncline::app {

namespace {

std::string ms(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
    return buf;
}

void printText(const Timeline &tl, const std::vector<StatsRow> &rows, ClockMode mode)
{
    // One row per worker = per incarnation: a restart, or a membership change (same restart
    // count, another world size), is a row of its own.
    // bound_ns: the largest over the worker's span (its edges); median_bound_ns: its typical event.
    std::printf("%-6s %-7s %-5s %-16s %8s %10s  %-11s %14s %12s %10s %15s\n", "rank", "restart",
                "world", "host", "pid", "events", "clock", "offset_ns", "drift_ppm", "bound_ns",
                "median_bound_ns");
    for (const Worker &w : tl.workers)
        std::printf("%-6d %-7d %-5d %-16s %8lld %10zu  %-11s %14lld %12.3f %10lld %15lld\n",
                    w.info.rank, w.info.restart, w.info.worldSize,
                    utf8::terminalSafe(w.info.host).c_str(), (long long)w.info.pid, w.eventCount(),
                    sync::methodName(w.clock.method), (long long)w.clock.offsetNs, w.clock.driftPpm,
                    (long long)w.clock.boundNs, (long long)EventBounds::medianNs(w));
    // The wall clocks as a second opinion (per host: stats --json has each worker's verdict).
    if (const WallClockSummary wall = WallClockSummary::of(tl); !wall.headline.empty())
        std::printf("%s\n", utf8::terminalSafe(wall.headline).c_str());
    std::vector<const StatsRow *> all;
    for (const StatsRow &r : rows)
        if (!r.rank)
            all.push_back(&r);
    std::sort(all.begin(), all.end(), [](auto *a, auto *b) { return a->totalNs > b->totalNs; });
    std::printf("\n%-40s %9s %12s %10s %10s %10s %10s %10s\n", "event (all ranks, by total)",
                "count", "total_ms", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms");
    for (size_t i = 0; i < all.size() && i < 30; ++i) {
        const StatsRow &r = *all[i];
        std::string name = utf8::terminalSafe(tl.names.name(r.nameId));
        if (name.size() > 40)
            name = name.substr(0, 37) + "...";
        std::printf("%-40s %9lld %12s %10s %10s %10s %10s %10s\n", name.c_str(), (long long)r.count,
                    ms(r.totalNs).c_str(), ms(r.meanNs).c_str(), ms(r.p50Ns).c_str(),
                    ms(r.p95Ns).c_str(), ms(r.p99Ns).c_str(), ms(r.maxNs).c_str());
    }
    if (all.size() > 30)
        std::printf("(%zu more names; --json for all, per rank)\n", all.size() - 30);
    // Compute names: the outlier rule (RankOutliers, the viewer's per-rank chart uses it too).
    // Waits (collectives): blame, from who arrived last (Diagnoser) — the ranks with the longest
    // waits are the victims, never the stragglers.
    const auto stragglers = RankOutliers::compute(rows, &tl);
    if (!stragglers.empty()) {
        std::printf("\nstragglers (compute): per-rank mean > median + max(3*MAD, 50 us, 10%% of "
                    "median)\n");
        std::printf("%-40s %6s %12s %12s  %s\n", "event", "ranks", "median_ms", "limit_ms",
                    "slow ranks (mean_ms)");
        for (size_t i = 0; i < stragglers.size() && i < 10; ++i) {
            const RankStragglers &s = stragglers[i];
            std::string slow;
            for (const auto &[rank, mean] : s.slow)
                slow += (slow.empty() ? "" : ", ") + std::to_string(rank) + " (" + ms(mean) + ")";
            std::printf("%-40.40s %6d %12s %12s  %s\n",
                        utf8::terminalSafe(tl.names.name(s.nameId)).c_str(), s.ranks,
                        ms(s.medianNs).c_str(), ms(s.thresholdNs).c_str(), slow.c_str());
        }
    }
    if (tl.window.active) { // instances would be counted from the window's edge on each rank
        std::printf("\nwaits: not judged on a --range load (`syncline diagnose --range` is)\n");
        return;
    }
    DiagnoseQuery dq;
    dq.mode = mode;
    dq.whatIfRanks = 0; // blame only; `syncline diagnose` says what a fix would buy
    dq.cells = false;
    const Diagnosis d = Diagnoser::run(tl, dq);
    if (d.instances == 0)
        return;
    std::vector<const DiagnosisRank *> blamed;
    for (const DiagnosisRank &r : d.ranks)
        if (r.blameNs > 0)
            blamed.push_back(&r);
    std::stable_sort(blamed.begin(), blamed.end(),
                     [](auto *a, auto *b) { return a->blameNs > b->blameNs; });
    std::printf("\nwaits (collectives): %lld instances, %lld undecided (within clock bounds); "
                "blame = the others' wait caused by arriving last\n",
                (long long)d.instances, (long long)d.undecidedCount);
    std::string line;
    for (size_t i = 0; i < blamed.size() && i < 5; ++i)
        line += (i ? ", " : "") + std::to_string(blamed[i]->rank) + " (" + ms(blamed[i]->blameNs) +
                " ms, last " + std::to_string(blamed[i]->timesLast) + "x)";
    std::printf("  blame by rank: %s\n", line.empty() ? "none" : line.c_str());
    line.clear();
    for (size_t i = 0; i < d.victims.size() && i < 5; ++i)
        line += (i ? ", " : "") + std::to_string(d.ranks[d.victims[i]].rank) + " (" +
                ms(d.ranks[d.victims[i]].waitNs) + " ms)";
    std::printf("  waited longest (victims): %s\n", line.empty() ? "none" : line.c_str());
    std::printf("  (`syncline diagnose` names the culprits and what fixing them would buy)\n");
}

int run(int argc, char **argv)
{
    JobArgs args;
    args.rangeOption = true;
    bool json = false;
    std::optional<std::string> dask;
    const int rc = args.parse("stats", argc, argv, [&](int &i) {
        if (std::string(argv[i]) == "--json") {
            json = true;
            return 1;
        }
        if (std::string(argv[i]) == "--dask") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline stats: --dask: expected a scheduler address "
                                     "(tcp://HOST:8786)\n");
                return -1;
            }
            dask = argv[++i];
            return 1;
        }
        return 0;
    });
    if (rc >= 0)
        return rc;
    if (dask)
        return runStatsOnDask(args, json, *dask);
    auto tl = args.load("stats");
    if (!tl)
        return 1;
    StatsQuery q;
    q.mode = args.mode();
    if (args.window.use) { // the events overlapping the window (the timeline holds only those)
        q.useRange = true;
        q.beginNs = tl->originNs(q.mode) + args.window.beginNs;
        q.endNs = tl->originNs(q.mode) + args.window.endNs;
    }
    const std::vector<StatsRow> rows = Stats::compute(*tl, q);
    if (json)
        StatsExporter::writeJson(*tl, rows, std::cout);
    else
        printText(*tl, rows, q.mode);
    std::cout.flush();
    printProblemSummary(*tl, "stats");
    return 0;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "stats",
    "stats PATH... [--json] [--range START:END] [--align-on PATTERN] [--clock C] [--raw] "
    "[--no-correct] "
    "[--no-align] [--quiet] [--dask ADDRESS]",
    "Loads the job (job directories, timer_config.json, syncline logs, Chrome traces) and prints\n"
    "per-name duration statistics (count, total, mean, p50, p95, p99, max) over all ranks, the\n"
    "workers' clock corrections and the stragglers (per-rank mean beyond the rule in "
    "docs/cli.md).\n"
    "  --json              print {\"workers\": [...], \"events\": [...]} (docs/cli.md), per rank "
    "and\n"
    "                      over all ranks (\"rank\": null)\n"
    "  --range START:END   only events overlapping this window (times from the earliest event,\n"
    "                      unit ns, us, ms or s: 10s:20s); reads only the window when the job\n"
    "                      has an index (written by every full load; docs/scale.md)\n"
    "  --align-on PATTERN  align clocks on the k-th instance of events matching PATTERN (glob;\n"
    "                      without wildcards a substring) when there are no sync samples\n"
    "  --ranks RANKS       only these workers' logs (0-63,512; docs/cli.md)\n"
    "  --raw               durations on the raw (uncorrected) clocks\n"
    "  --clock C           corrected (default), wall (each host whose wall clock agrees with\n"
    "                      its corrected clock within its sync band placed by its wall clock;\n"
    "                      for PTP-disciplined clusters; the others stay corrected, with a\n"
    "                      note) or raw (= --raw); default: the config's view_clock\n"
    "  --no-correct        skip the skew correction (corrected = raw)\n"
    "  --no-align          no alignment on collectives (workers without sync samples keep\n"
    "                      their raw clocks; sync samples and messages still correct)\n"
    "  --quiet, -q         no load progress on stderr (shown only when stderr is a terminal)\n"
    "  --dask ADDRESS      with --json: the same document computed on the dask.distributed\n"
    "                      cluster whose scheduler is at ADDRESS (tcp://HOST:8786), by the\n"
    "                      Python module syncline.dask (needs python3-distributed; the logs\n"
    "                      readable on the workers; docs/python.md)",
    run}));

} // namespace syncline::app
