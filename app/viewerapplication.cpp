#include "viewerapplication.h"

#include <QIcon>

#include <cstdio>
#include <cstdlib>

namespace syncline::app {

namespace {

bool isSet(const char *name)
{
    const char *v = std::getenv(name);
    return v && *v;
}

bool hasDisplay(const char *verb)
{
    if (isSet("QT_QPA_PLATFORM") || isSet("DISPLAY") || isSet("WAYLAND_DISPLAY"))
        return true;
    std::fprintf(stderr,
                 "syncline %s: no display ($DISPLAY and $WAYLAND_DISPLAY are not set), so no "
                 "window can open.\n"
                 "  headless:  syncline export PATH... --png FILE [--csv FILE]\n"
                 "             syncline attach DIR --until-idle S --png FILE [--csv FILE]\n"
                 "  or run the viewer under a virtual display: xvfb-run -a syncline %s ...\n",
                 verb, verb);
    return false;
}

} // namespace

std::unique_ptr<QApplication> createViewerApplication(const char *verb)
{
    if (!hasDisplay(verb))
        return nullptr;
    static int qtArgc = 1;
    static char name[] = "syncline";
    static char *qtArgv[] = {name, nullptr};
    auto app = std::make_unique<QApplication>(qtArgc, qtArgv);
    QApplication::setOrganizationName(QStringLiteral("syncline"));
    QApplication::setApplicationName(QStringLiteral("syncline"));
    QApplication::setDesktopFileName(QStringLiteral("syncline"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/syncline/syncline.svg")));
    return app;
}

} // namespace syncline::app
