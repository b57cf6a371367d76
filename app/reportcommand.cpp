// `syncline report PATH... --html FILE [--width W] [--height H] [--align-on PATTERN] [--raw]
// [--no-correct] [--quiet]` — one self-contained HTML page about the job (report/htmlreport.h):
// the job and its clocks, the timeline pictures (the whole job, and up to five steps of the last
// generation up close: drawn by the viewer's renderer, ui/imageexport.h, into private temporary
// PNGs that are embedded and removed), the diagnosis,
// the statistics and the load problems. The job is loaded whole (the diagnosis needs every
// collective instance from the start).
#include "command.h"
#include "jobargs.h"

#include "timeline/report/diagnosis.h"
#include "timeline/report/htmlreport.h"
#include "timeline/report/stats.h"

#include "ui/imageexport.h"
#include "ui/rowlayout.h"

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace syncline::app {

namespace {

// The renderer's picture (ui/imageexport.h) as PNG bytes ("" with *why on failure): written to
// a fresh private directory (mkdtemp, 0700), read back and removed.
std::string renderPng(const Timeline &tl, ui::ImageExportRequest req, std::string *why)
{
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/syncline-report-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
        *why = "cannot create a temporary directory for the picture";
        return {};
    }
    req.pngPath = pattern + "/timeline.png";
    std::string bytes;
    if (ui::exportImage(tl, req, why)) {
        std::ifstream in(req.pngPath, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        bytes = s.str();
        if (bytes.empty())
            *why = "the picture could not be read back";
    }
    std::remove(req.pngPath.c_str());
    ::rmdir(pattern.c_str());
    return bytes;
}

// The picture's height when none is given: the viewer's rows (RowMetrics) at their full height,
// between 240 and 900 px; past 900 px the renderer shrinks rows down to 6 px, and the picture
// grows as far as every worker then needs (it never cuts rows off).
int pictureHeight(const Timeline &tl)
{
    const ui::RowMetrics m;
    double full = 26 + 24 + 8, least = full; // ruler, legend (ui/imageexport.cpp), margin
    for (const Worker &w : tl.workers) {
        full += m.headerHeight;
        least += m.headerHeight;
        for (const EventTrack &t : w.tracks) {
            full += (t.maxDepth + 1) * m.rowHeight + m.trackGap;
            least += (t.maxDepth + 1) * 6.0 + m.trackGap;
        }
        full += double(w.counters.size()) * (m.counterHeight + m.trackGap);
        least += double(w.counters.size()) * (14.0 + m.trackGap);
    }
    // 10 % to spare: the layout may hold rows this count does not see.
    return int(std::clamp(std::max(std::min(full, 900.0), 1.1 * least), 240.0, 32768.0));
}

// A few steps up close: up to five consecutive steps from the middle of the last generation
// (restart) the diagnosis found; nullopt when it found fewer than two there.
std::optional<std::pair<ui::ImageExportRequest, std::string>> stepsCloseUp(const Diagnosis &d)
{
    if (d.steps.empty())
        return std::nullopt;
    const int64_t g = d.steps.back().generation;
    size_t a = d.steps.size();
    while (a > 0 && d.steps[a - 1].generation == g)
        --a;
    const size_t n = d.steps.size() - a;
    if (n < 2)
        return std::nullopt;
    const size_t k = std::min<size_t>(5, n), first = a + (n - k) / 2, last = first + k - 1;
    ui::ImageExportRequest req;
    req.rangeStartNs = d.steps[first].beginNs;
    req.rangeEndNs = d.steps[last].endNs;
    std::string caption = std::to_string(k) + " steps up close: " + d.stepName + " " +
                          std::to_string(d.steps[first].index) + "–" +
                          std::to_string(d.steps[last].index) + " of generation " +
                          std::to_string(g);
    return std::pair{req, caption};
}

bool parseSize(const char *opt, const char *value, int &out)
{
    char *end = nullptr;
    const long v = std::strtol(value, &end, 10);
    if (!*value || *end || v < 100 || v > 32768) {
        std::fprintf(stderr, "syncline report: %s: expected 100..32768, got '%s'\n", opt, value);
        return false;
    }
    out = int(v);
    return true;
}

int run(int argc, char **argv)
{
    JobArgs args;
    std::string html;
    int width = 1800, height = 0; // 0: pictureHeight()
    const int rc = args.parse("report", argc, argv, [&](int &i) {
        const std::string a = argv[i];
        if (a != "--html" && a != "--width" && a != "--height")
            return 0;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "syncline report: %s: expected a value\n", a.c_str());
            return -1;
        }
        const char *value = argv[++i];
        if (a == "--html")
            html = value;
        else if (!parseSize(a.c_str(), value, a == "--width" ? width : height))
            return -1;
        return 1;
    });
    if (rc >= 0)
        return rc;
    if (html.empty()) {
        std::fprintf(stderr, "syncline report: nothing to write: give --html FILE\n");
        return 2;
    }
    auto tl = args.load("report");
    if (!tl)
        return 1;
    HtmlReportInput in;
    in.paths = args.paths;
    in.mode = args.mode();
    in.version = SYNCLINE_VERSION;
    StatsQuery sq;
    sq.mode = in.mode;
    const std::vector<StatsRow> rows = Stats::compute(*tl, sq);
    in.stats = &rows;
    DiagnoseQuery dq;
    dq.mode = in.mode;
    dq.cells = false;
    const Diagnosis d = Diagnoser::run(*tl, dq);
    in.diagnosis = &d;
    ui::ImageExportRequest whole;
    whole.mode = in.mode;
    whole.width = width;
    whole.height = height ? height : pictureHeight(*tl);
    std::string png = renderPng(*tl, whole, &in.pictureNote);
    if (png.empty()) {
        std::fprintf(stderr, "syncline report: no timeline picture: %s\n", in.pictureNote.c_str());
    } else {
        in.pictures.push_back({std::move(png), "the whole job"});
        if (auto close = stepsCloseUp(d)) {
            close->first.mode = in.mode;
            close->first.width = width;
            close->first.height = whole.height;
            std::string why;
            png = renderPng(*tl, close->first, &why);
            if (!png.empty())
                in.pictures.push_back({std::move(png), close->second});
        }
    }
    std::string error;
    if (!HtmlReport::writeFile(*tl, in, html, &error)) {
        std::fprintf(stderr, "syncline report: %s\n", error.c_str());
        return 1;
    }
    printProblemSummary(*tl, "report");
    return 0;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "report",
    "report PATH... --html FILE [--width W] [--height H] [--align-on PATTERN] [--clock C] [--raw] "
    "[--no-correct] [--quiet]",
    "Loads the job and writes one self-contained HTML page to share (no script, no network:\n"
    "styles inline, the picture embedded): the job (workers, hosts, restarts, each worker's\n"
    "clock method, offset, drift and bound), the timeline picture, the diagnosis (culprits,\n"
    "waits, what-if, critical path; as `syncline diagnose`), the statistics (as `syncline\n"
    "stats`) and the load problems. Two pictures: the whole job and up to five steps of the last\n"
    "restart up close.\n"
    "  --html FILE         the page to write\n"
    "  --width W, --height H  the pictures' size in px (default 1800 wide, as tall as the\n"
    "                      rows need up to 900, taller when rows would otherwise be cut)\n"
    "  --align-on PATTERN, --clock C, --raw, --no-correct, --quiet: as for `syncline stats`",
    run}));

} // namespace syncline::app
