// exportImage — renders a Timeline to PNG and/or SVG exactly as the viewer draws it (same
// geometry, LOD and painter): ruler, worker/thread labels, events with labels, legend. Used by
// `syncline export --png/--svg` and by the viewer's File ▸ Export menu. Needs no display.
//
// Invariants: the PNG is exactly width × height px; the range is global ns in the requested
// clock mode (default: the whole job); row height shrinks (down to 6 px) to fit every worker
// into the height, and rows that still do not fit are cut with a note.
// Threading: call from the thread that owns the QGuiApplication (the main thread). When no
// QCoreApplication exists, one QGuiApplication is created on demand (platform "offscreen" when
// there is no DISPLAY/WAYLAND_DISPLAY) and kept for the process' lifetime; a plain
// QCoreApplication cannot draw text, so that case is an error. Before creating it, an unset
// XDG_RUNTIME_DIR is pointed at a private directory (ensureRuntimeDir), so headless runs print no
// Qt warning about it.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <optional>
#include <string>

namespace syncline::ui {

struct ImageExportRequest
{
    std::string pngPath; // "" = no PNG
    std::string svgPath; // "" = no SVG
    int width = 1920;
    int height = 1080;
    std::optional<int64_t> rangeStartNs; // global ns; both or neither
    std::optional<int64_t> rangeEndNs;
    ClockMode mode = ClockMode::Corrected;
    bool dark = false;
    bool wallClock = false; // ruler in wall-clock time
};

// Returns false and sets *error ("cannot write /x.png: ...", "empty range") on failure.
bool exportImage(const Timeline &timeline, const ImageExportRequest &request, std::string *error);

// When XDG_RUNTIME_DIR is unset or empty, sets it to a private directory (mode 0700, owned by
// this user: $TMPDIR or /tmp + "/syncline-runtime-UID", or a fresh mkdtemp one when that path
// is not private). Returns the directory in effect ("" when none could be made). Call before a
// QGuiApplication exists (the CLI's headless paths do, through exportImage).
std::string ensureRuntimeDir();

} // namespace syncline::ui
