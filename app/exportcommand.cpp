// `syncline export PATH... --csv FILE | --chrome FILE | --stats-csv FILE | --stats-json FILE
//  | --png FILE | --svg FILE [--width W] [--height H] [--range START:END] [--align-on PATTERN]
//  [--raw]` — writes one or more exports of the loaded job (several outputs in one run are fine).
#include "command.h"
#include "jobargs.h"

#include "timeline/chromeexporter.h"
#include "timeline/csvexporter.h"
#include "timeline/stats.h"
#include "timeline/statsexporter.h"

#include "ui/imageexport.h"

#include <cstdio>
#include <cstdlib>

namespace syncline::app {

namespace {

struct Outputs
{
    std::string csv, chrome, statsCsv, statsJson, png, svg;
    int width = 1920, height = 1080;
    bool haveRange = false;
    std::string range;
};

// "250ms" → 250000000; units ns (default), us, ms, s. False when malformed.
bool parseDuration(const std::string &s, int64_t &ns)
{
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str())
        return false;
    const std::string unit(end);
    const double scale = unit.empty() || unit == "ns" ? 1
                         : unit == "us"               ? 1e3
                         : unit == "ms"               ? 1e6
                         : unit == "s"                ? 1e9
                                                      : -1;
    if (scale < 0)
        return false;
    ns = int64_t(v * scale);
    return true;
}

int write(const Timeline &tl, const Outputs &o)
{
    EventRange range;
    if (o.haveRange) {
        const size_t colon = o.range.find(':');
        int64_t a = 0, b = 0;
        if (colon == std::string::npos || !parseDuration(o.range.substr(0, colon), a) ||
            !parseDuration(o.range.substr(colon + 1), b) || b < a) {
            std::fprintf(stderr,
                         "syncline export: --range: expected START:END (e.g. 0:2.5s), got '%s'\n",
                         o.range.c_str());
            return 2;
        }
        range = {true, tl.originNs() + a, tl.originNs() + b};
    }
    std::string error;
    bool ok = true;
    auto check = [&](bool r) {
        if (!r) {
            std::fprintf(stderr, "syncline export: %s\n", error.c_str());
            ok = false;
        }
    };
    if (!o.csv.empty())
        check(CsvExporter::writeFile(tl, o.csv, range, &error));
    if (!o.chrome.empty())
        check(ChromeExporter::writeFile(tl, o.chrome, &error));
    if (!o.statsCsv.empty() || !o.statsJson.empty()) {
        StatsQuery q;
        q.useRange = range.use;
        q.beginNs = range.beginNs;
        q.endNs = range.endNs;
        const auto rows = Stats::compute(tl, q);
        if (!o.statsCsv.empty())
            check(StatsExporter::writeCsvFile(tl, rows, o.statsCsv, &error));
        if (!o.statsJson.empty())
            check(StatsExporter::writeJsonFile(tl, rows, o.statsJson, &error));
    }
    if (!o.png.empty() || !o.svg.empty()) {
        ui::ImageExportRequest req;
        req.pngPath = o.png;
        req.svgPath = o.svg;
        req.width = o.width;
        req.height = o.height;
        req.mode = tl.mode();
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
    Outputs o;
    const int rc = args.parse("export", argc, argv, [&](int &i) {
        const std::string a = argv[i];
        std::string *target = a == "--csv"          ? &o.csv
                              : a == "--chrome"     ? &o.chrome
                              : a == "--stats-csv"  ? &o.statsCsv
                              : a == "--stats-json" ? &o.statsJson
                              : a == "--png"        ? &o.png
                              : a == "--svg"        ? &o.svg
                              : a == "--range"      ? &o.range
                                                    : nullptr;
        const bool size = a == "--width" || a == "--height";
        if (!target && !size)
            return 0;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "syncline export: %s needs a value\n", a.c_str());
            return -1;
        }
        const std::string v = argv[++i];
        if (size) {
            char *end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (*end || n < 16 || n > 32768) {
                std::fprintf(stderr, "syncline export: %s: expected 16..32768, got '%s'\n",
                             a.c_str(), v.c_str());
                return -1;
            }
            (a == "--width" ? o.width : o.height) = int(n);
            return 1;
        }
        *target = v;
        o.haveRange = o.haveRange || a == "--range";
        return 1;
    });
    if (rc >= 0)
        return rc;
    if (o.csv.empty() && o.chrome.empty() && o.statsCsv.empty() && o.statsJson.empty() &&
        o.png.empty() && o.svg.empty()) {
        std::fprintf(
            stderr,
            "syncline export: nothing to write: give --csv, --chrome, --stats-csv, --stats-json, "
            "--png or --svg FILE\n");
        return 2;
    }
    auto tl = args.load("export");
    if (!tl)
        return 1;
    const int r = write(*tl, o);
    printProblemSummary(*tl, "export");
    return r;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "export",
    "export PATH... --csv FILE | --chrome FILE | --stats-csv FILE | --stats-json FILE | --png FILE "
    "| --svg FILE "
    "[--width W] [--height H] [--range START:END] [--align-on PATTERN] [--raw]",
    "Loads the job and writes the chosen exports (several may be given at once):\n"
    "  --csv FILE         events CSV "
    "(rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,\n"
    "                     local_start_ns,local_end_ns,status); start/end relative to the earliest "
    "event\n"
    "  --chrome FILE      Chrome-trace JSON with corrected times (Perfetto, chrome://tracing)\n"
    "  --stats-csv FILE   statistics as CSV;  --stats-json FILE  as JSON (same shape as stats "
    "--json)\n"
    "  --png FILE, --svg FILE  the timeline as an image, --width/--height px (default 1920x1080)\n"
    "  --range START:END  only events overlapping this range, times from the earliest event with "
    "an\n"
    "                     optional unit ns (default), us, ms, s: e.g. --range 0:2.5s (CSV, stats, "
    "images)\n"
    "  --align-on PATTERN, --raw, --no-correct: as for `syncline stats`",
    run}));

} // namespace syncline::app
