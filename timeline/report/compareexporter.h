// CompareExporter — a comparison of two runs (Compare) as JSON and CSV: what `syncline compare
// --json` prints and `--csv FILE` writes. Both are contracts, documented in docs/cli.md
// (`syncline compare`); a change of shape bumps the version in "format".
//
// JSON, one document:
//   {"format": "syncline-compare/1", "clock_mode": "corrected" | "raw",
//    "a": RUN, "b": RUN,  RUN = {"paths": [..], "workers": N, "events": N, "ranks": [..],
//                                "span_ns": N}
//    "ranks": {"only_a": [..], "only_b": [..]},
//    "anchor": {"spec": "start" | "NAME:K", "name": null | "NAME", "k": null | K,
//               "a_ns": N, "b_ns": N, "shift_ns": N},
//    "summary": {"step": null | "NAME", "a_mean_ns", "b_mean_ns", "delta_mean_ns",
//                "ratio_mean" (null without a step), "a_span_ns", "b_span_ns", "delta_span_ns",
//                "ratio_span"},
//    "deltas": [{"name", "rank": null | N, "in": "both" | "a" | "b", "a": SIDE | null,
//                "b": SIDE | null, "delta": SIDE, "ratio": {"count", "total", "mean", "p50",
//                "p99"}, "impact_ns"}]}
//   SIDE = {"count", "total_ns", "mean_ns", "p50_ns", "p99_ns"}; a side absent from one run is
//   null and counts as zeros in "delta"; a ratio is B / A, null when A's value is 0.
//   impact_ns is CompareRow::impactNs (Δ mean × the smaller count; 0 for a one-run row).
//   anchor a_ns / b_ns are relative to each run's own origin; shift_ns is what B was shifted by
//   (global ns) so the anchors coincide. Rows in Compare's impact order.
//   With gate conditions (`--fail-if`, CompareGate), one more key after "deltas" (absent
//   without them, so the version stays 1):
//    "gate": {"failed": bool, "conditions": [{"spec", "name", "stat", "threshold":
//             {"percent": X} | {"ns": N}, "holds": bool, "matched": [{"name", "a_ns", "b_ns",
//             "delta_ns", "ratio" (null when A is 0), "holds"}]}]}
// CSV header exactly:
//   name,rank,in,a_count,b_count,delta_count,ratio_count,a_total_ns,b_total_ns,delta_total_ns,
//   ratio_total,a_mean_ns,b_mean_ns,delta_mean_ns,ratio_mean,a_p50_ns,b_p50_ns,delta_p50_ns,
//   ratio_p50,a_p99_ns,b_p99_ns,delta_p99_ns,ratio_p99
//   (one line); rank empty on the all-ranks rows, an absent side's values 0, a ratio empty when
//   A's value is 0; ratios with 6 significant digits; same rows and order as "deltas".
// Threading: reads its arguments only.
#pragma once

#include "timeline/report/compare.h"
#include "timeline/report/comparegate.h"

#include <ostream>
#include <string>
#include <vector>

namespace syncline {

// What the JSON says about one run besides its rows: of() a loaded run; a split comparison
// (CompareRunPart) gives the same from its merged parts.
struct CompareRunInfo
{
    size_t workers = 0;
    size_t events = 0;
    int64_t originNs = 0; // Timeline::originNs(mode)
    static CompareRunInfo of(const Timeline &run, ClockMode mode)
    {
        return {run.workers.size(), run.eventCount(), run.originNs(mode)};
    }
};

// What the JSON says about the runs besides the rows.
struct CompareInfo
{
    CompareRunInfo a, b;
    std::vector<std::string> pathsA, pathsB;
    ClockMode mode = ClockMode::Corrected;
    CompareAnchor anchor;
    int64_t anchorANs = 0, anchorBNs = 0; // global ns (CompareAnchor::find)
};

class CompareExporter
{
public:
    static constexpr const char *kFormat = "syncline-compare/1";
    static constexpr const char *kCsvHeader =
        "name,rank,in,a_count,b_count,delta_count,ratio_count,a_total_ns,b_total_ns,"
        "delta_total_ns,ratio_total,a_mean_ns,b_mean_ns,delta_mean_ns,ratio_mean,a_p50_ns,"
        "b_p50_ns,delta_p50_ns,ratio_p50,a_p99_ns,b_p99_ns,delta_p99_ns,ratio_p99";

    static void writeJson(const CompareResult &result, const CompareInfo &info, std::ostream &out,
                          const std::vector<GateOutcome> *gate = nullptr);
    static void writeCsv(const CompareResult &result, std::ostream &out);
    static bool writeCsvFile(const CompareResult &result, const std::string &path,
                             std::string *error);
};

} // namespace syncline
