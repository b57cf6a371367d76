// Display check for the verbs that open a window (open, attach without --until-idle).
// Qt aborts (SIGABRT) when it cannot connect to a display; these verbs check first and fail
// with a clear message that names the headless alternatives instead.
// Invariant: a display is assumed present when QT_QPA_PLATFORM is set (the user chose a
// platform, e.g. offscreen or xcb under xvfb-run), or DISPLAY or WAYLAND_DISPLAY is non-empty.
// Threading: reads the environment only; call from main() before creating a QApplication.
#pragma once

namespace syncline::app {

// True when a window can be opened; otherwise prints "syncline VERB: no display …" to stderr.
bool checkDisplay(const char *verb);

} // namespace syncline::app
