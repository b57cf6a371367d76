// `syncline export PATH... --csv FILE | --chrome FILE | --stats-csv FILE | --stats-json FILE
//  | --counters-csv FILE | --sqlite FILE | --perfetto FILE | --png FILE | --svg FILE [--width W] [--height H] [--range START:END] [--align-on PATTERN]
//  [--raw] [--dask ADDRESS]` — writes one or more exports of the loaded job (several outputs in one run are fine);
//  with --dask, --csv FILE alone, computed on a cluster (daskhandover.h).
#include "command.h"
#include "daskhandover.h"
#include "jobargs.h"

#include "timeline/report/chromeexporter.h"
#include "timeline/report/countercsvexporter.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/perfettoexporter.h"
#include "timeline/report/sqliteexporter.h"
#include "timeline/report/stats.h"
#include "timeline/report/statsexporter.h"

#include "ui/imageexport.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

namespace syncline::app {

namespace {

// export's own outputs; the events CSV and the image are JobArgs' (shared with attach).
struct Outputs
{
    std::string chrome, statsCsv, statsJson, countersCsv, sqlite, perfetto;
};

int write(const Timeline &tl, ClockMode mode, const TimelineOutputs &t, const Outputs &o,
          const LoadWindow &window)
{
    // The timeline holds the window's events only (a windowed load); the outputs are cut to
    // the same range (times from the whole job's origin, which a windowed timeline keeps).
    EventRange range;
    if (window.use)
        range = {true, tl.originNs(mode) + window.beginNs, tl.originNs(mode) + window.endNs};
    std::string error;
    bool ok = true;
    auto check = [&](bool r) {
        if (!r) {
            std::fprintf(stderr, "syncline export: %s\n", error.c_str());
            ok = false;
        }
    };
    if (!t.csv.empty())
        check(CsvExporter::writeFile(tl, mode, t.csv, range, &error));
    if (!o.chrome.empty())
        check(ChromeExporter::writeFile(tl, mode, o.chrome, &error));
    if (!o.sqlite.empty()) // the whole loaded timeline (a windowed load: the window's events)
        check(SqliteExporter::write(tl, mode, o.sqlite, &error));
    if (!o.perfetto.empty()) // the whole loaded timeline, as --sqlite
        check(PerfettoExporter::writeFile(tl, mode, o.perfetto, &error));
    if (!o.countersCsv.empty())
        check(CounterCsvExporter::writeFile(tl, mode, o.countersCsv, range, &error));
    if (!o.statsCsv.empty() || !o.statsJson.empty()) {
        StatsQuery q;
        q.useRange = range.use;
        q.beginNs = range.beginNs;
        q.endNs = range.endNs;
        q.mode = mode;
        const auto rows = Stats::compute(tl, q);
        if (!o.statsCsv.empty())
            check(StatsExporter::writeCsvFile(tl, rows, o.statsCsv, &error));
        if (!o.statsJson.empty())
            check(StatsExporter::writeJsonFile(tl, rows, o.statsJson, &error));
    }
    if (!t.png.empty() || !t.svg.empty()) {
        ui::ImageExportRequest req;
        req.pngPath = t.png;
        req.svgPath = t.svg;
        req.width = t.width;
        req.height = t.height;
        req.mode = mode;
        if (range.use) {
            req.rangeStartNs = range.beginNs;
            req.rangeEndNs = range.endNs;
        }
        check(ui::exportImage(tl, req, &error));
    }
    return ok ? 0 : 1;
}

int run(int argc, char **argv)
{
    JobArgs args;
    args.outputOptions = true;
    args.rangeOption = true;
    Outputs o;
    std::optional<std::string> dask;
    const int rc = args.parse("export", argc, argv, [&](int &i) {
        const std::string a = argv[i];
        if (a == "--dask") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline export: --dask: expected a scheduler address "
                                     "(tcp://HOST:8786)\n");
                return -1;
            }
            dask = argv[++i];
            return 1;
        }
        std::string *target = a == "--chrome"         ? &o.chrome
                              : a == "--stats-csv"    ? &o.statsCsv
                              : a == "--stats-json"   ? &o.statsJson
                              : a == "--counters-csv" ? &o.countersCsv
                              : a == "--sqlite"       ? &o.sqlite
                              : a == "--perfetto"     ? &o.perfetto
                                                      : nullptr;
        if (!target)
            return 0;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "syncline export: %s needs a FILE\n", a.c_str());
            return -1;
        }
        *target = argv[++i];
        return 1;
    });
    if (rc >= 0)
        return rc;
    const TimelineOutputs &t = args.outputs;
    if (t.csv.empty() && o.chrome.empty() && o.statsCsv.empty() && o.statsJson.empty() &&
        o.countersCsv.empty() && o.sqlite.empty() && o.perfetto.empty() && t.png.empty() &&
        t.svg.empty()) {
        std::fprintf(
            stderr,
            "syncline export: nothing to write: give --csv, --chrome, --stats-csv, --stats-json, "
            "--counters-csv, --sqlite, --perfetto, --png or --svg FILE\n");
        return 2;
    }
    if (dask)
        return runExportOnDask(args, t.csv,
                               !o.chrome.empty() || !o.statsCsv.empty() || !o.statsJson.empty() ||
                                   !o.countersCsv.empty() || !o.sqlite.empty() ||
                                   !o.perfetto.empty() || !t.png.empty() || !t.svg.empty(),
                               *dask);
    auto tl = args.load("export");
    if (!tl)
        return 1;
    const int r = write(*tl, args.mode(), t, o, args.window);
    printProblemSummary(*tl, "export");
    return r;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "export",
    "export PATH... --csv FILE | --chrome FILE | --stats-csv FILE | --stats-json FILE "
    "| --counters-csv FILE | --sqlite FILE | --perfetto FILE | --png FILE | --svg FILE "
    "[--width W] [--height H] [--range START:END] [--align-on PATTERN] [--clock C] [--raw] "
    "[--dask ADDRESS]",
    "Loads the job and writes the chosen exports (several may be given at once):\n"
    "  --csv FILE         events CSV "
    "(rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,\n"
    "                     local_start_ns,local_end_ns,status); start/end relative to the earliest "
    "event\n"
    "  --chrome FILE      Chrome-trace JSON with corrected times (Perfetto, chrome://tracing)\n"
    "  --stats-csv FILE   statistics as CSV;  --stats-json FILE  as JSON (same shape as stats "
    "--json)\n"
    "  --counters-csv FILE  counter samples (rank,restart,host,pid,counter,series,time_ns,local_ns,"
    "value)\n"
    "  --sqlite FILE      the timeline as an SQLite database (events, workers, threads, counters,\n"
    "                     links, steps, collectives; docs/cli.md \"SQLite schema\")\n"
    "  --perfetto FILE    Perfetto protobuf trace (TrackEvent: a process per worker, hosts as\n"
    "                     machines, flows for links, counters; docs/cli.md \"Perfetto\")\n"
    "  --png FILE, --svg FILE  the timeline as an image, --width/--height px (default 1920x1080)\n"
    "  --range START:END  only events overlapping this range, times from the earliest event with "
    "an\n"
    "                     optional unit ns (default), us, ms, s: e.g. --range 0:2.5s (CSV, stats, "
    "images);\n"
    "                     reads only that window when the job has an index (docs/scale.md)\n"
    "  --align-on PATTERN, --clock C, --raw, --no-correct, --no-align, --quiet: as for\n"
    "                      `syncline stats`\n"
    "  --dask ADDRESS     with --csv FILE alone: the same file, computed on the\n"
    "                     dask.distributed cluster whose scheduler is at ADDRESS by the\n"
    "                     Python module syncline.dask (docs/python.md)",
    run}));

} // namespace syncline::app
