// The QApplication of the verbs that open the viewer window (open, attach without --until-idle).
// Qt aborts (SIGABRT) when it cannot connect to a display, so createViewerApplication() checks
// first and, without one, prints a clear message naming the headless alternatives and returns
// null. A display is assumed present when QT_QPA_PLATFORM is set (the user chose a platform,
// e.g. offscreen, or xcb under xvfb-run), or DISPLAY or WAYLAND_DISPLAY is non-empty.
// The application gets syncline's organisation/application names (QSettings), desktop file name
// and window icon.
// Threading: call once, from main()'s thread, before any other Qt object is created.
#pragma once

#include <QApplication>

#include <memory>

namespace syncline::app {

std::unique_ptr<QApplication> createViewerApplication(const char *verb);

} // namespace syncline::app
