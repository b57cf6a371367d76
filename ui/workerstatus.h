// WorkerStatus — how each worker's log ended, for the group headers, the overview and the
// Problems panel: finished (a `close` record), crashed (no close record and events left open:
// the process died inside them), ended (no close record, nothing open: killed between events, or
// its log was cut), silent (live: no record for silent_after_s), running (live), or unknown
// (imported traces have no close record to miss).
// A missing close record is a warning (closeWarnings): its LoadProblem names the thread and
// local time of the worker's last begun event, so activating it in the Problems panel selects
// that event (MainWindow::showProblem).
// Loaded jobs: of(timeline). Live jobs: ofLive() takes the LiveJob's per-file states (by
// source file) and calls EndedWithoutClose crashed or ended by the same open-event rule.
// Threading: pure functions.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/model/loadproblem.h"
#include "timeline/model/timeline.h"

#include <QColor>
#include <QString>

#include <cstdint>
#include <vector>

namespace syncline::ui {

enum class WorkerStatus : uint8_t
{
    Unknown,
    Running,
    Finished,
    Ended,
    Crashed,
    Silent
};

class WorkerStatuses
{
public:
    static std::vector<WorkerStatus> of(const Timeline &timeline);
    static std::vector<WorkerStatus> ofLive(const Timeline &timeline,
                                            const std::vector<LiveWorkerStatus> &live);
    static bool hasOpenEvents(const Worker &worker);
    // The worker's last begun event (latest start over its threads; async lanes aside).
    static bool lastEvent(const Worker &worker, size_t *track, size_t *index);
    // One warning per crashed or ended worker.
    static std::vector<LoadProblem> closeWarnings(const Timeline &timeline,
                                                  const std::vector<WorkerStatus> &statuses);
    static QString name(WorkerStatus status);   // "crashed", … ("" for Unknown and Running)
    static QColor colour(WorkerStatus status);  // the badge's colour
    static bool isWarning(WorkerStatus status); // crashed, ended, silent
};

} // namespace syncline::ui
