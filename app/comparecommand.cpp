// `syncline compare A B [--json] [--csv FILE] [--anchor NAME[:K] | --anchor start]
//  [--fail-if 'NAME:STAT>THRESHOLD']... [--align-on PATTERN] [--raw] [--no-correct] [--quiet]` —
// loads two runs of a job and prints
// per-name and per-rank differences of count/total/mean/p50/p99 (B − A and B / A) by impact,
// with a summary line (step time A vs B). --json prints the CompareExporter document
// ("format": "syncline-compare/1", docs/cli.md) and nothing else on stdout; --csv FILE writes
// the CSV. --fail-if conditions (CompareGate) make it a CI gate: exit status 3 when any holds,
// each condition's verdict printed (text: on stdout after the table; --json: in its "gate" key,
// and the conditions that hold on stderr). The computation is timeline/report's (Compare,
// CompareAnchor, CompareGate); this only wires it.
#include "command.h"
#include "jobargs.h"

#include "recorder/utf8.h"
#include "timeline/report/compare.h"
#include "timeline/report/compareexporter.h"
#include "timeline/report/comparegate.h"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace syncline::app {

namespace {

std::string ms(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
    return buf;
}

std::string signedMs(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.3f", double(ns) / 1e6);
    return buf;
}

std::string ratio(int64_t a, int64_t b)
{
    if (a == 0)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", CompareRow::ratio(a, b));
    return buf;
}

std::string rankList(const std::vector<int> &ranks)
{
    std::string out;
    for (size_t i = 0; i < ranks.size(); ++i) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(ranks[i]);
        if (j > i)
            out += "-" + std::to_string(ranks[j]);
        i = j;
    }
    return out.empty() ? "none" : out;
}

std::string label(const CompareRow &r)
{
    std::string name = utf8::terminalSafe(r.name);
    if (name.size() > 36)
        name = name.substr(0, 33) + "...";
    return name;
}

void printRow(const CompareRow &r, bool withRank)
{
    const std::string in = r.in == CompareRow::In::Both    ? ""
                           : r.in == CompareRow::In::OnlyA ? " (A only)"
                                                           : " (B only)";
    std::printf("%-36s", (label(r)).c_str());
    if (withRank)
        std::printf(" %5d", *r.rank);
    std::printf(" %8lld %8lld %12s %12s %12s %7s %10s %10s %10s %10s %10s%s\n",
                (long long)r.a.count, (long long)r.b.count, ms(r.a.totalNs).c_str(),
                ms(r.b.totalNs).c_str(), signedMs(r.deltaTotalNs()).c_str(),
                ratio(r.a.totalNs, r.b.totalNs).c_str(), ms(r.a.meanNs).c_str(),
                ms(r.b.meanNs).c_str(), signedMs(r.deltaMeanNs()).c_str(),
                signedMs(r.deltaP50Ns()).c_str(), signedMs(r.deltaP99Ns()).c_str(), in.c_str());
}

void printHeader(const char *first, bool withRank)
{
    std::printf("%-36s", first);
    if (withRank)
        std::printf(" %5s", "rank");
    std::printf(" %8s %8s %12s %12s %12s %7s %10s %10s %10s %10s %10s\n", "count_a", "count_b",
                "total_a_ms", "total_b_ms", "d_total_ms", "ratio", "mean_a_ms", "mean_b_ms",
                "d_mean_ms", "d_p50_ms", "d_p99_ms");
}

void printText(const CompareResult &r, const CompareInfo &info)
{
    auto run = [](const char *which, const std::vector<std::string> &paths,
                  const CompareRunInfo &tl, const std::vector<int> &ranks, int64_t span) {
        std::printf("%s: %s  (%zu workers, %zu events, ranks %s, span %.3f s)\n", which,
                    utf8::terminalSafe(paths.front()).c_str(), tl.workers, tl.events,
                    rankList(ranks).c_str(), double(span) / 1e9);
    };
    run("A", info.pathsA, info.a, r.ranksA, r.spanANs);
    run("B", info.pathsB, info.b, r.ranksB, r.spanBNs);
    std::printf(
        "anchor %s: A at %.6f s, B at %.6f s (each from its origin); B shifted by %+.6f s\n",
        utf8::terminalSafe(info.anchor.text()).c_str(),
        double(info.anchorANs - info.a.originNs) / 1e9,
        double(info.anchorBNs - info.b.originNs) / 1e9,
        double(info.anchorANs - info.anchorBNs) / 1e9);
    if (!r.onlyA.empty() || !r.onlyB.empty())
        std::printf("ranks only in A: %s; only in B: %s\n", rankList(r.onlyA).c_str(),
                    rankList(r.onlyB).c_str());
    std::printf("summary: %s\n\n", utf8::terminalSafe(r.summaryLine()).c_str());

    printHeader("event (all ranks, by |d_total|)", false);
    size_t names = 0, shown = 0;
    std::vector<const CompareRow *> perRank;
    for (const CompareRow &row : r.rows) {
        if (row.rank) {
            perRank.push_back(&row);
            continue;
        }
        ++names;
        if (shown < 30) {
            printRow(row, false);
            ++shown;
        }
    }
    if (names > shown)
        std::printf("(%zu more names; --json or --csv for all, per rank)\n", names - shown);
    std::stable_sort(perRank.begin(), perRank.end(), [](const CompareRow *x, const CompareRow *y) {
        return std::llabs(x->deltaTotalNs()) > std::llabs(y->deltaTotalNs());
    });
    if (!perRank.empty()) {
        std::printf("\n");
        printHeader("per rank (largest |d_total|)", true);
        for (size_t i = 0; i < perRank.size() && i < 20; ++i)
            printRow(*perRank[i], true);
    }
}

std::string gateLine(const GateOutcome &o)
{
    std::string line = std::string(o.holds ? "FAIL " : "ok   ") + utf8::terminalSafe(o.condition.spec) + ":";
    for (const GateMatch &m : o.matched) {
        char buf[160];
        if (m.aNs == 0)
            std::snprintf(buf, sizeof buf, " %s %s %s -> %s ms (A has none)%s",
                          utf8::terminalSafe(m.name).c_str(), CompareGate::statName(o.condition.stat),
                          ms(m.aNs).c_str(), ms(m.bNs).c_str(), m.holds ? " [holds]" : "");
        else
            std::snprintf(buf, sizeof buf, " %s %s %s -> %s ms (%s ms, %+.2f%%)%s",
                          utf8::terminalSafe(m.name).c_str(), CompareGate::statName(o.condition.stat),
                          ms(m.aNs).c_str(), ms(m.bNs).c_str(), signedMs(m.bNs - m.aNs).c_str(),
                          (m.ratio - 1.0) * 100.0, m.holds && o.matched.size() > 1 ? " [holds]" : "");
        line += buf;
        if (&m != &o.matched.back())
            line += ";";
    }
    line += " (threshold " + CompareGate::thresholdText(o.condition) + ")";
    return line;
}

int run(int argc, char **argv)
{
    JobArgs args;
    bool json = false;
    std::vector<GateCondition> gate;
    std::string csv, anchorText = "start";
    const int rc = args.parse("compare", argc, argv, [&](int &i) {
        const std::string arg = argv[i];
        if (arg == "--json") {
            json = true;
            return 1;
        }
        if (arg == "--fail-if") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline compare: --fail-if needs NAME:STAT>THRESHOLD, "
                                     "e.g. 'train_step:mean>+5%%'\n");
                return -1;
            }
            GateCondition c;
            std::string why;
            if (!CompareGate::parse(argv[++i], &c, &why)) {
                std::fprintf(stderr, "syncline compare: --fail-if %s\n", why.c_str());
                return -1;
            }
            gate.push_back(std::move(c));
            return 1;
        }
        if (arg == "--csv" || arg == "--anchor") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline compare: %s needs %s\n", arg.c_str(),
                             arg == "--csv" ? "a FILE" : "start, NAME or NAME:K");
                return -1;
            }
            (arg == "--csv" ? csv : anchorText) = argv[++i];
            return 1;
        }
        return 0;
    });
    if (rc >= 0)
        return rc;
    if (args.paths.size() != 2) {
        std::fprintf(stderr,
                     "syncline compare: expected two runs, A and B (each a job directory, a "
                     "timer_config.json, a log or a trace), got %zu\n",
                     args.paths.size());
        return 2;
    }
    CompareAnchor anchor;
    std::string error;
    if (!CompareAnchor::parse(anchorText, &anchor, &error)) {
        std::fprintf(stderr, "syncline compare: --anchor: %s\n", error.c_str());
        return 2;
    }
    JobArgs argsA = args, argsB = args;
    argsA.paths = {args.paths[0]};
    argsB.paths = {args.paths[1]};
    const auto a = argsA.load("compare");
    if (!a)
        return 1;
    const auto b = argsB.load("compare");
    if (!b)
        return 1;
    CompareInfo info;
    info.mode = args.mode();
    info.a = CompareRunInfo::of(*a, info.mode);
    info.b = CompareRunInfo::of(*b, info.mode);
    info.pathsA = argsA.paths;
    info.pathsB = argsB.paths;
    info.anchor = anchor;
    const std::pair<const Timeline *, int64_t *> runs[] = {{a.get(), &info.anchorANs},
                                                           {b.get(), &info.anchorBNs}};
    for (const auto &[tl, out] : runs) {
        std::string why;
        const auto t = anchor.find(*tl, info.mode, &why);
        if (!t) {
            std::fprintf(stderr, "syncline compare: --anchor %s: run %s (%s): %s\n",
                         anchor.text().c_str(), tl == a.get() ? "A" : "B",
                         (tl == a.get() ? args.paths[0] : args.paths[1]).c_str(), why.c_str());
            return 1;
        }
        *out = *t;
    }
    CompareQuery q;
    q.mode = info.mode;
    q.anchor = anchor;
    const CompareResult result = Compare::compute(*a, *b, q);
    const std::vector<GateOutcome> outcomes = CompareGate::evaluate(result, gate);
    for (const GateOutcome &o : outcomes)
        if (o.matched.empty()) {
            std::fprintf(stderr,
                         "syncline compare: --fail-if '%s': no complete event named '%s' in A "
                         "or B\n",
                         utf8::terminalSafe(o.condition.spec).c_str(),
                         utf8::terminalSafe(o.condition.name).c_str());
            return 2;
        }
    bool failed = false;
    for (const GateOutcome &o : outcomes)
        failed = failed || o.holds;
    if (json)
        CompareExporter::writeJson(result, info, std::cout, gate.empty() ? nullptr : &outcomes);
    else
        printText(result, info);
    if (!gate.empty() && !json) {
        std::printf("\ngate: %s\n", failed ? "FAILED" : "passed");
        for (const GateOutcome &o : outcomes)
            std::printf("%s\n", gateLine(o).c_str());
    }
    std::cout.flush();
    if (json)
        for (const GateOutcome &o : outcomes)
            if (o.holds)
                std::fprintf(stderr, "syncline compare: %s\n", gateLine(o).c_str());
    int status = 0;
    if (!csv.empty() && !CompareExporter::writeCsvFile(result, csv, &error)) {
        std::fprintf(stderr, "syncline compare: %s\n", error.c_str());
        status = 1;
    }
    printProblemSummary(*a, "compare");
    printProblemSummary(*b, "compare");
    return status != 0 ? status : failed ? 3 : 0;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "compare",
    "compare A B [--json] [--csv FILE] [--anchor NAME[:K] | --anchor start] [--fail-if "
    "'NAME:STAT>THRESHOLD']... [--align-on PATTERN] [--clock C] [--raw] [--no-correct] [--no-align] "
    "[--quiet]",
    "Loads two runs A and B (each a job directory, timer_config.json, a log or a trace) and\n"
    "prints, per event name and per rank, count, total, mean, p50 and p99 of each run, B - A\n"
    "and B / A, ordered by impact (|B - A| of the total, largest first), with a summary line\n"
    "(the step time of A vs B, each run's span). Ranks are matched by rank; ranks in one run\n"
    "only are listed as such. See docs/cli.md for the JSON shape and the CSV header.\n"
    "  --json              print the comparison as JSON (\"format\": \"syncline-compare/1\")\n"
    "  --csv FILE          also write the rows as CSV\n"
    "  --anchor NAME[:K]   align B on A at each run's K-th NAME (per rank; the earliest rank),\n"
    "  --anchor start      or at the start (default); reported as the shift applied to B\n"
    "  --fail-if COND      a CI gate (repeatable): exit 3 when COND holds, e.g.\n"
    "                      'train_step:mean>+5%' or 'all_reduce:p99>+2ms'; STAT is mean, p50,\n"
    "                      p95, p99 or total of the name's all-ranks row (NAME may be a glob);\n"
    "                      the verdicts are printed (--json: its \"gate\" key)\n"
    "  --align-on PATTERN  align clocks on the k-th instance of events matching PATTERN (glob;\n"
    "                      without wildcards a substring) when there are no sync samples\n"
    "  --ranks RANKS       only these workers' logs (0-63,512; docs/cli.md)\n"
    "  --raw               durations on the raw (uncorrected) clocks\n"
    "  --no-correct        skip the skew correction (corrected = raw)\n"
    "  --no-align          no alignment on collectives (sync samples and messages only)\n"
    "  --quiet, -q         no load progress on stderr (shown only when stderr is a terminal)",
    run}));

} // namespace syncline::app
