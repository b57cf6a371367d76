// `syncline attach DIR` — follows a running job's log directory (docs/live.md).
//   With a display: opens the viewer attached (follow mode, Workers dock).
//   Headless: `--until-idle S [--png FILE] [--svg FILE] [--csv FILE]` reads as the workers write
//   until no file changed for S seconds, printing each change of a worker's state on stderr as
//   it is seen, then writes the outputs and prints each worker's state, and every problem found
//   (file and reason) on stderr; exit status 1 when a log could not be
//   read (an error), 2 when the directory cannot be followed.
// Own options: --poll[=MS] (polling instead of inotify, e.g. on NFS; default interval 250 ms),
// --silent-after S (default: the config's silent_after_s), --ended-after S (workers on other
// machines). Shared with the other job verbs (JobArgs): --align-on PATTERN, --no-correct, --raw,
// and with export: --csv/--png/--svg FILE, --width W, --height H.
#include "command.h"
#include "jobargs.h"
#include "viewerapplication.h"

#include "timeline/live/livefollower.h"
#include "timeline/live/livejob.h"
#include "timeline/report/csvexporter.h"

#include "recorder/utf8.h"

#include "ui/imageexport.h"
#include "ui/liveattachment.h"
#include "ui/mainwindow.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

namespace syncline::app {

namespace {

struct AttachArgs
{
    JobArgs job; // DIR, --align-on, --no-correct, --raw, --csv/--png/--svg, --width/--height
    LiveOptions live;
    LiveFollower::Options follow;
    double untilIdleS = -1;
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

// attach's own options at argv[i], as JobArgs::parse asks: 1 when known (value stored, i
// advanced), 0 when not, -1 after printing why its value is missing or out of range.
int attachOption(int argc, char **argv, int &i, AttachArgs &a)
{
    const std::string arg = argv[i];
    struct Spec
    {
        const char *name;
        double min;
        const char *what;
        double *value;
    };
    const Spec specs[] = {
        {"--until-idle", 0.0, "a number of seconds >= 0", &a.untilIdleS},
        {"--silent-after", 0.001, "a number of seconds > 0", &a.live.silentAfterS},
        {"--ended-after", 0.0, "a number of seconds >= 0", &a.live.endedAfterS}};
    for (const Spec &spec : specs) {
        if (arg != spec.name)
            continue;
        if (i + 1 >= argc || !number(argv[i + 1], spec.min, *spec.value)) {
            std::fprintf(stderr, "syncline attach: %s needs %s\n", spec.name, spec.what);
            return -1;
        }
        ++i;
        return 1;
    }
    if (arg == "--poll") {
        a.follow.mode = DirWatcher::Mode::Polling;
        return 1;
    }
    if (arg.rfind("--poll=", 0) == 0) {
        double ms = 0;
        if (!number(arg.c_str() + 7, 10, ms)) {
            std::fprintf(stderr, "syncline attach: --poll=MS needs MS >= 10\n");
            return -1;
        }
        a.follow.mode = DirWatcher::Mode::Polling;
        a.follow.pollIntervalMs = int(ms);
        return 1;
    }
    return 0;
}

// Returns -1 to go on, else an exit status.
int parse(int argc, char **argv, AttachArgs &a)
{
    a.job.outputOptions = true;
    a.job.oneDirectory = true;
    const int status =
        a.job.parse("attach", argc, argv, [&](int &i) { return attachOption(argc, argv, i, a); });
    if (status >= 0)
        return status;
    if (!a.job.ranks.all()) { // a live job follows every worker that appears
        std::fprintf(stderr, "syncline attach: --ranks is for a finished job (stats, export, "
                             "open ...); attach follows every worker\n");
        return 2;
    }
    const TimelineOutputs &out = a.job.outputs;
    if (a.untilIdleS < 0 && !(out.png.empty() && out.svg.empty() && out.csv.empty())) {
        std::fprintf(stderr, "syncline attach: --png/--svg/--csv need --until-idle S (headless)\n");
        return 2;
    }
    a.live.path = a.job.paths.front();
    a.live.alignOn = a.job.alignOn;
    a.live.correctClocks = a.job.correct;
    a.live.alignCollectives = a.job.align;
    a.live.wallClocks = a.job.clock == ClockChoice::Wall;
    return -1;
}

int writeOutputs(Timeline &tl, const AttachArgs &a)
{
    const TimelineOutputs &out = a.job.outputs;
    int status = 0;
    const ClockMode mode = a.job.mode();
    std::string error;
    if (!out.csv.empty()) {
        if (CsvExporter::writeFile(tl, mode, out.csv, {}, &error))
            std::printf("wrote %s\n", out.csv.c_str());
        else
            std::fprintf(stderr, "syncline attach: %s\n", error.c_str()), status = 1;
    }
    if (!out.png.empty() || !out.svg.empty()) {
        ui::ImageExportRequest r;
        r.pngPath = out.png;
        r.svgPath = out.svg;
        r.width = out.width;
        r.height = out.height;
        r.mode = mode;
        if (ui::exportImage(tl, r, &error)) {
            for (const std::string &p : {out.png, out.svg})
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
    // Every change of a worker's state as it happens, on stderr, timed from the start of the
    // follow (a crash shows when it is seen, not only in the final list). A worker's index shifts
    // when another joins before it: it is known by (file, rank, restart).
    std::map<std::tuple<std::string, int, int>, WorkerState> printed;
    const auto started = std::chrono::steady_clock::now();
    const auto onUpdate = [&](const LiveUpdate &u) {
        if (!u.statesChanged && !u.structureChanged)
            return;
        const Timeline &tl = *job.timeline();
        for (size_t i = 0; i < job.workerCount(); ++i) {
            const WorkerInfo &w = tl.workers[i].info;
            const auto [it, added] =
                printed.try_emplace({job.sourceFile(i), w.rank, w.restart}, job.state(i));
            if (added || it->second == job.state(i))
                continue;
            const std::string &why = job.endReason(i);
            std::fprintf(stderr, "syncline attach: +%.3f s: rank %d restart %d: %s -> %s%s%s%s\n",
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                             .count(),
                         w.rank, w.restart, workerStateName(it->second),
                         workerStateName(job.state(i)), why.empty() ? "" : " (",
                         utf8::terminalSafe(why).c_str(), why.empty() ? "" : ")");
            it->second = job.state(i);
        }
    };
    const bool idle =
        follower.runUntilIdle(a.untilIdleS, onUpdate, [] { return g_interrupted != 0; });
    job.commit(true); // the final clock refresh
    Timeline &tl = *job.timeline();
    std::printf("%s: %zu workers, %zu events, %lld bytes read%s\n", a.live.path.c_str(),
                job.workerCount(), tl.eventCount(), static_cast<long long>(job.totalBytes()),
                idle ? "" : " (interrupted)");
    for (size_t i = 0; i < job.workerCount(); ++i) {
        const Worker &w = tl.workers[i];
        const std::string &why = job.endReason(i);
        std::printf("rank %d restart %d: %s%s%s%s, %zu events, last record %.1f s ago (%s)\n",
                    w.info.rank, w.info.restart, workerStateName(job.state(i)),
                    why.empty() ? "" : " (", why.c_str(), why.empty() ? "" : ")", w.eventCount(),
                    job.silentForS(i), job.sourceFile(i).c_str());
    }
    // Everything the follow found wrong, file and reason (a log that could not be opened or
    // read, malformed lines, a replaced file): a worker missing from the list above is explained
    // here, never silently left out. A log that could not be read at all makes the status 1.
    int errors = 0;
    for (const LoadProblem &p : tl.problems) {
        std::fprintf(stderr, "syncline attach: %s: %s\n", LoadProblem::severityName(p.severity),
                     utf8::terminalSafe(p.toString()).c_str());
        errors += p.severity == LoadProblem::Severity::Error;
    }
    if (job.workerCount() == 0) {
        std::fprintf(stderr, "syncline attach: no worker log appeared in %s\n",
                     a.live.path.c_str());
        return 1;
    }
    tl.updateRange();
    const int status = writeOutputs(tl, a);
    return status != 0 ? status : errors > 0 ? 1 : 0;
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
    "machine counts as ended), --align-on PATTERN, --no-correct, --no-align, --raw (as for\n"
    "export).\n"
    "See docs/live.md.",
    runAttach}));

} // namespace syncline::app
