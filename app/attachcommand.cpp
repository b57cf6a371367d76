// `syncline attach DIR` — follows a running job's log directory (docs/live.md).
//   With a display: opens the viewer attached (follow mode, Workers dock).
//   Headless: `--until-idle S [--png FILE] [--svg FILE] [--csv FILE]` reads as the workers write
//   until no file changed for S seconds, then writes the outputs and prints each worker's state.
// Options: --poll[=MS] (polling instead of inotify, e.g. on NFS; default interval 250 ms),
// --silent-after S (default: the config's silent_after_s), --ended-after S (workers on other
// machines), --align-on PATTERN, --no-correct, --raw, --width W, --height H.
#include "command.h"
#include "viewerapplication.h"

#include "timeline/csvexporter.h"
#include "timeline/livefollower.h"
#include "timeline/livejob.h"

#include "ui/imageexport.h"
#include "ui/liveattachment.h"
#include "ui/mainwindow.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace syncline::app {

namespace {

struct AttachArgs
{
    LiveOptions live;
    LiveFollower::Options follow;
    double untilIdleS = -1;
    std::string png, svg, csv;
    int width = 1920, height = 1080;
    bool raw = false;
};

volatile std::sig_atomic_t g_interrupted = 0;

void onInterrupt(int)
{
    g_interrupted = 1;
}

bool number(const char *s, double min, double &out)
{
    char *end = nullptr;
    out = std::strtod(s, &end);
    return end != s && *end == '\0' && out >= min;
}

// Numeric options: returns 1 when `arg` is one (value stored, i advanced), 0 when it is not,
// 2 (an exit status) when its value is missing or out of range.
int numericOption(const std::string &arg, int argc, char **argv, int &i, AttachArgs &a)
{
    struct Spec
    {
        const char *name;
        double min;
        const char *what;
    };
    static const Spec specs[] = {{"--until-idle", 0.0, "a number of seconds >= 0"},
                                 {"--silent-after", 0.001, "a number of seconds > 0"},
                                 {"--ended-after", 0.0, "a number of seconds >= 0"},
                                 {"--width", 16, "a size in pixels >= 16"},
                                 {"--height", 16, "a size in pixels >= 16"}};
    for (const Spec &spec : specs) {
        if (arg != spec.name)
            continue;
        double v = 0;
        if (i + 1 >= argc || !number(argv[i + 1], spec.min, v)) {
            std::fprintf(stderr, "syncline attach: %s needs %s\n", spec.name, spec.what);
            return 2;
        }
        ++i;
        if (arg == "--until-idle")
            a.untilIdleS = v;
        else if (arg == "--silent-after")
            a.live.silentAfterS = v;
        else if (arg == "--ended-after")
            a.live.endedAfterS = v;
        else
            (arg == "--width" ? a.width : a.height) = int(v);
        return 1;
    }
    return 0;
}

// Flags, string options and the directory: returns -1 to go on, else an exit status.
int otherOption(const std::string &arg, int argc, char **argv, int &i, AttachArgs &a)
{
    double v = 0;
    if (arg == "--help" || arg == "-h") {
        std::printf(
            "usage: syncline attach DIR [--until-idle S [--png F] [--svg F] [--csv F]]\n"
            "       [--poll[=MS]] [--silent-after S] [--ended-after S]\n"
            "       [--align-on PATTERN] [--no-correct] [--raw] [--width W] [--height H]\n");
        return 0;
    } else if (arg == "--poll") {
        a.follow.mode = DirWatcher::Mode::Polling;
    } else if (arg.rfind("--poll=", 0) == 0) {
        if (!number(arg.c_str() + 7, 10, v)) {
            std::fprintf(stderr, "syncline attach: --poll=MS needs MS >= 10\n");
            return 2;
        }
        a.follow.mode = DirWatcher::Mode::Polling;
        a.follow.pollIntervalMs = int(v);
    } else if ((arg == "--png" || arg == "--svg" || arg == "--csv" || arg == "--align-on") &&
               i + 1 < argc) {
        const std::string val = argv[++i];
        (arg == "--png"   ? a.png
         : arg == "--svg" ? a.svg
         : arg == "--csv" ? a.csv
                          : a.live.alignOn) = val;
    } else if (arg == "--no-correct") {
        a.live.correctClocks = false;
    } else if (arg == "--raw") {
        a.raw = true;
    } else if (!arg.empty() && arg[0] == '-') {
        std::fprintf(stderr, "syncline attach: unknown or incomplete option '%s'\n", arg.c_str());
        return 2;
    } else if (a.live.path.empty()) {
        a.live.path = arg;
    } else {
        std::fprintf(stderr, "syncline attach: one directory only ('%s')\n", arg.c_str());
        return 2;
    }
    return -1;
}

// Returns -1 to go on, else an exit status.
int parse(int argc, char **argv, AttachArgs &a)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const int numeric = numericOption(arg, argc, argv, i, a);
        if (numeric == 2)
            return 2;
        if (numeric == 1)
            continue;
        const int status = otherOption(arg, argc, argv, i, a);
        if (status >= 0)
            return status;
    }
    if (a.live.path.empty()) {
        std::fprintf(stderr, "syncline attach: which directory? (syncline attach DIR)\n");
        return 2;
    }
    if (a.untilIdleS < 0 && !(a.png.empty() && a.svg.empty() && a.csv.empty())) {
        std::fprintf(stderr, "syncline attach: --png/--svg/--csv need --until-idle S (headless)\n");
        return 2;
    }
    return -1;
}

int writeOutputs(Timeline &tl, const AttachArgs &a)
{
    int status = 0;
    tl.setMode(a.raw ? ClockMode::Raw : ClockMode::Corrected); // also the export's full range
    std::string error;
    if (!a.csv.empty()) {
        if (CsvExporter::writeFile(tl, a.csv, {}, &error))
            std::printf("wrote %s\n", a.csv.c_str());
        else
            std::fprintf(stderr, "syncline attach: %s\n", error.c_str()), status = 1;
    }
    if (!a.png.empty() || !a.svg.empty()) {
        ui::ImageExportRequest r;
        r.pngPath = a.png;
        r.svgPath = a.svg;
        r.width = a.width;
        r.height = a.height;
        r.mode = tl.mode();
        if (ui::exportImage(tl, r, &error)) {
            for (const std::string &p : {a.png, a.svg})
                if (!p.empty())
                    std::printf("wrote %s\n", p.c_str());
        } else {
            std::fprintf(stderr, "syncline attach: %s\n", error.c_str());
            status = 1;
        }
    }
    return status;
}

int runHeadless(const AttachArgs &a)
{
    LiveJob job(a.live);
    if (!job.fatalError().empty()) {
        std::fprintf(stderr, "syncline attach: %s\n", job.fatalError().c_str());
        return 2;
    }
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    LiveFollower follower(job, a.follow);
    std::fprintf(stderr, "syncline attach: following %s (%s), until idle for %g s\n",
                 a.live.path.c_str(), DirWatcher::modeName(follower.watcher().mode()),
                 a.untilIdleS);
    const bool idle = follower.runUntilIdle(a.untilIdleS, {}, [] { return g_interrupted != 0; });
    job.commit(true); // the final clock refresh
    Timeline &tl = *job.timeline();
    std::printf("%s: %zu workers, %zu events, %lld bytes read%s\n", a.live.path.c_str(),
                job.workerCount(), tl.eventCount(), static_cast<long long>(job.totalBytes()),
                idle ? "" : " (interrupted)");
    for (size_t i = 0; i < job.workerCount(); ++i) {
        const Worker &w = tl.workers[i];
        std::printf("rank %d restart %d: %s, %zu events, last record %.1f s ago (%s)\n",
                    w.info.rank, w.info.restart, LiveJob::stateName(job.state(i)), w.eventCount(),
                    job.silentForS(i), job.sourceFile(i).c_str());
    }
    if (job.workerCount() == 0) {
        std::fprintf(stderr, "syncline attach: no worker log appeared in %s\n",
                     a.live.path.c_str());
        return 1;
    }
    tl.updateRange();
    return writeOutputs(tl, a);
}

int runAttach(int argc, char **argv)
{
    AttachArgs a;
    const int status = parse(argc, argv, a);
    if (status >= 0)
        return status;
    if (a.untilIdleS >= 0)
        return runHeadless(a);
    const auto app = createViewerApplication("attach");
    if (!app)
        return 2;
    ui::MainWindow window;
    window.show();
    QString error;
    if (!ui::LiveAttachment::attach(&window, a.live, a.follow, &error)) {
        std::fprintf(stderr, "syncline attach: %s\n", qPrintable(error));
        return 2;
    }
    return app->exec();
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "attach", "attach DIR [--until-idle S --png F --csv F] [--poll[=MS]] [--silent-after S]",
    "Follows a running job: watches DIR (inotify, or polling every 250 ms with --poll for NFS and\n"
    "other network file systems), reads only what the workers append, shows new ranks and\n"
    "restarts as they appear, keeps the clock correction current and marks each worker running,\n"
    "silent, finished cleanly or ended without a closing record. With a display the viewer opens\n"
    "in follow mode (End returns to it); with --until-idle S it runs headless until no file\n"
    "changed for S seconds, prints the workers' states and writes --png/--svg/--csv.\n"
    "More options: --width W --height H (images), --ended-after S (a silent worker on another\n"
    "machine counts as ended), --align-on PATTERN, --no-correct, --raw (as for export).\n"
    "See docs/live.md.",
    runAttach}));

} // namespace syncline::app
