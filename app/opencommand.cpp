// `syncline open PATH...` (also `syncline PATH...` and plain `syncline`): starts the viewer and
// loads the given job directory, config, logs or Chrome traces off the GUI thread.
#include "command.h"
#include "jobargs.h"
#include "viewerapplication.h"

#include "ui/mainwindow.h"

#include <QFileInfo>

#include <cstdio>

namespace {

int runOpen(int argc, char **argv)
{
    // The job verbs' options (--align-on PATTERN, --no-correct) — never read as file names.
    syncline::app::JobArgs args;
    args.pathsOptional = true;
    args.rangeOption = true;
    const int rc = args.parse("open", argc, argv, {});
    if (rc >= 0)
        return rc;
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
    if (!paths.isEmpty() && args.window.use)
        window.openWindow(paths, args.window, QString::fromStdString(args.alignOn), args.correct);
    else if (!paths.isEmpty())
        window.openPaths(paths, QString::fromStdString(args.alignOn), args.correct);
    return app->exec();
}

} // namespace

SYNCLINE_REGISTER_COMMAND((syncline::app::Command{
    "open", "open [PATH...] [--range START:END] [--align-on PATTERN] [--raw] [--no-correct]",
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
    "  --raw               start on the raw (uncorrected) clocks\n"
    "  --no-correct        skip the skew correction (corrected = raw)",
    runOpen}));
