// `syncline open PATH...` (also `syncline PATH...` and plain `syncline`): starts the viewer and
// loads the given job directory, config, logs or Chrome traces off the GUI thread.
#include "command.h"
#include "jobargs.h"
#include "viewerapplication.h"

#include "ui/comparecontroller.h"
#include "ui/mainwindow.h"

#include <QFileInfo>

#include <cstdio>

namespace {

int runOpen(int argc, char **argv)
{
    // The job verbs' options (--align-on PATTERN, --no-correct) — never read as file names.
    syncline::app::JobArgs args;
    args.pathsOptional = true;
    std::string compare, anchorText = "start";
    bool interleave = false;
    args.rangeOption = true;
    const int rc = args.parse("open", argc, argv, [&](int &i) {
        const std::string arg = argv[i];
        if (arg == "--interleave") {
            interleave = true;
            return 1;
        }
        if (arg != "--compare" && arg != "--anchor")
            return 0;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "syncline open: %s needs %s\n", arg.c_str(),
                         arg == "--compare" ? "a PATH (run B)" : "start, NAME or NAME:K");
            return -1;
        }
        (arg == "--compare" ? compare : anchorText) = argv[++i];
        return 1;
    });
    if (rc >= 0)
        return rc;
    syncline::CompareAnchor anchor;
    std::string error;
    if (!syncline::CompareAnchor::parse(anchorText, &anchor, &error)) {
        std::fprintf(stderr, "syncline open: --anchor: %s\n", error.c_str());
        return 2;
    }
    if (!compare.empty() && args.paths.size() != 1) {
        std::fprintf(stderr,
                     "syncline open: --compare: expected one run A (PATH) to compare "
                     "with B, got %zu\n",
                     args.paths.size());
        return 2;
    }
    if (!compare.empty() && args.window.use) {
        std::fprintf(stderr, "syncline open: --range and --compare cannot be combined (compare "
                             "reads both runs whole)\n");
        return 2;
    }
    if (compare.empty() && (interleave || anchorText != "start")) {
        std::fprintf(stderr, "syncline open: --anchor and --interleave need --compare B\n");
        return 2;
    }
    if (!compare.empty() && !QFileInfo::exists(QString::fromLocal8Bit(compare.c_str()))) {
        std::fprintf(stderr, "syncline open: %s: no such file or directory\n", compare.c_str());
        return 2;
    }
    QStringList paths;
    for (const std::string &p : args.paths) {
        const QString path = QString::fromLocal8Bit(p.c_str());
        if (!QFileInfo::exists(path)) {
            std::fprintf(stderr, "syncline open: %s: no such file or directory\n", p.c_str());
            return 2;
        }
        paths << QFileInfo(path).absoluteFilePath();
    }
    const auto app = syncline::app::createViewerApplication("open");
    if (!app)
        return 2;
    syncline::ui::MainWindow window;
    window.show();
    if (args.raw)
        window.setStartInRaw(true);
    window.setRanks(args.ranks);
    window.setClockChoice(args.clock);
    if (!compare.empty()) {
        window.compareController()->setAnchor(anchor);
        window.compareController()->setLayout(interleave ? syncline::CompareLayout::Interleaved
                                                         : syncline::CompareLayout::Stacked);
        window.openCompare(paths,
                           {QFileInfo(QString::fromLocal8Bit(compare.c_str())).absoluteFilePath()},
                           QString::fromStdString(args.alignOn), args.correct, args.align);
    } else if (!paths.isEmpty() && args.window.use) {
        window.openWindow(paths, args.window, QString::fromStdString(args.alignOn), args.correct,
                          args.align);
    } else if (!paths.isEmpty()) {
        window.openPaths(paths, QString::fromStdString(args.alignOn), args.correct, args.align);
    }
    return app->exec();
}

} // namespace

SYNCLINE_REGISTER_COMMAND((syncline::app::Command{
    "open",
    "open [PATH...] [--range START:END] [--compare B [--anchor NAME[:K] | --anchor start] "
    "[--interleave]] [--align-on PATTERN] [--clock C] [--raw] [--no-correct] [--no-align]",
    "Opens the viewer on a job directory, a timer_config.json, syncline logs or Chrome traces\n"
    "(several may be given; directories are searched for logs). Loading runs in the background\n"
    "with a progress bar and Cancel; problems found are listed in the Problems panel.\n"
    "`syncline PATH...` is the same. See docs/viewer.md for the keyboard shortcuts.\n"
    "  --range START:END   open only this window of the job (times from its earliest event,\n"
    "                      e.g. 10s:20s; File ▸ Open window… does the same): reads only the\n"
    "                      window when the job has an index (docs/scale.md)\n"
    "  --align-on PATTERN  align clocks on the k-th instance of events matching PATTERN (glob;\n"
    "                      without wildcards a substring) when there are no sync samples\n"
    "                      (Clocks ▸ Align on collective… in the viewer does the same)\n"
    "  --compare B         compare the run PATH (A) with run B: both timelines, B's groups\n"
    "                      labelled \"B · rank N\", and the Compare panel's delta table\n"
    "  --anchor NAME[:K]   align B on A at each run's K-th NAME (per rank, the earliest rank)\n"
    "  --anchor start      or at the start (default)\n"
    "  --interleave        A rank 0, B rank 0, A rank 1, ... instead of all A, then all B\n"
    "  --ranks RANKS       only these workers' logs (0-63,512; docs/cli.md)\n"
    "  --raw               start on the raw (uncorrected) clocks\n"
    "  --no-correct        skip the skew correction (corrected = raw)\n"
    "  --no-align          no alignment on collectives (sync samples and messages only;\n"
    "                      Clocks ▸ Align clocks on collectives in the viewer turns it on and off)",
    runOpen}));
