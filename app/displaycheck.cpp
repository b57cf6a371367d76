#include "displaycheck.h"

#include <cstdio>
#include <cstdlib>

namespace syncline::app {

namespace {

bool isSet(const char *name)
{
    const char *v = std::getenv(name);
    return v && *v;
}

} // namespace

bool checkDisplay(const char *verb)
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

} // namespace syncline::app
