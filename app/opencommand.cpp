// `syncline open PATH...` (also `syncline PATH...` and plain `syncline`): starts the viewer and
// loads the given job directory, config, logs or Chrome traces off the GUI thread.
#include "command.h"
#include "viewerapplication.h"

#include "ui/mainwindow.h"

#include <QFileInfo>

#include <cstdio>
#include <cstring>

namespace {

int runOpen(int argc, char **argv)
{
    QStringList paths;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::printf("usage: syncline open [PATH...]\n");
            return 0;
        }
        const QString path = QString::fromLocal8Bit(argv[i]);
        if (!QFileInfo::exists(path)) {
            std::fprintf(stderr, "syncline open: %s: no such file or directory\n", argv[i]);
            return 2;
        }
        paths << QFileInfo(path).absoluteFilePath();
    }
    const auto app = syncline::app::createViewerApplication("open");
    if (!app)
        return 2;
    syncline::ui::MainWindow window;
    window.show();
    if (!paths.isEmpty())
        window.openPaths(paths);
    return app->exec();
}

} // namespace

SYNCLINE_REGISTER_COMMAND((syncline::app::Command{
    "open", "open [PATH...]",
    "Opens the viewer on a job directory, a timer_config.json, syncline logs or Chrome traces\n"
    "(several may be given; directories are searched for logs). Loading runs in the background\n"
    "with a progress bar and Cancel; problems found are listed in the Problems panel.\n"
    "`syncline PATH...` is the same. See docs/viewer.md for the keyboard shortcuts.",
    runOpen}));
