#include "workerstatus.h"

#include <string>

namespace syncline::ui {

bool WorkerStatuses::hasOpenEvents(const Worker &w)
{
    for (const EventTrack &t : w.tracks)
        for (uint16_t f : t.flags)
            if (f & EventOpen)
                return true;
    return false;
}

std::vector<WorkerStatus> WorkerStatuses::of(const Timeline &tl)
{
    std::vector<WorkerStatus> out;
    out.reserve(tl.workers.size());
    for (const Worker &w : tl.workers) {
        if (w.info.kind != SourceKind::SynclineLog)
            out.push_back(WorkerStatus::Unknown);
        else if (w.info.closedCleanly)
            out.push_back(WorkerStatus::Finished);
        else
            out.push_back(hasOpenEvents(w) ? WorkerStatus::Crashed : WorkerStatus::Ended);
    }
    return out;
}

std::vector<WorkerStatus> WorkerStatuses::ofLive(const Timeline &tl,
                                                 const std::vector<LiveWorkerStatus> &live)
{
    std::vector<WorkerStatus> out = of(tl);
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        const Worker &w = tl.workers[i];
        for (const LiveWorkerStatus &s : live) {
            if (s.sourceFile != w.info.sourceFile)
                continue;
            switch (s.state) {
            case WorkerState::Running:
                out[i] = WorkerStatus::Running;
                break;
            case WorkerState::Silent:
                out[i] = WorkerStatus::Silent;
                break;
            case WorkerState::Finished:
                out[i] = WorkerStatus::Finished;
                break;
            case WorkerState::EndedWithoutClose:
                out[i] = hasOpenEvents(w) ? WorkerStatus::Crashed : WorkerStatus::Ended;
                break;
            }
            break;
        }
    }
    return out;
}

bool WorkerStatuses::lastEvent(const Worker &w, size_t *track, size_t *index)
{
    bool found = false;
    int64_t latest = 0;
    for (size_t t = 0; t < w.tracks.size(); ++t) {
        const EventTrack &tr = w.tracks[t];
        if (tr.async || tr.count() == 0)
            continue;
        // Sorted by start, the enclosing event first: the last entry is the latest begun.
        const size_t i = tr.count() - 1;
        if (!found || tr.localStart[i] > latest) {
            latest = tr.localStart[i];
            *track = t;
            *index = i;
            found = true;
        }
    }
    return found;
}

std::vector<LoadProblem> WorkerStatuses::closeWarnings(const Timeline &tl,
                                                       const std::vector<WorkerStatus> &statuses)
{
    std::vector<LoadProblem> out;
    for (size_t i = 0; i < tl.workers.size() && i < statuses.size(); ++i) {
        if (statuses[i] != WorkerStatus::Crashed && statuses[i] != WorkerStatus::Ended)
            continue;
        const Worker &w = tl.workers[i];
        LoadProblem p;
        p.kind = LoadProblem::Kind::NoCloseRecord;
        p.severity = LoadProblem::Severity::Warning;
        p.file = w.info.sourceFile;
        p.message = "rank " + std::to_string(w.info.rank) + ": no close record — " +
                    (statuses[i] == WorkerStatus::Crashed
                         ? "crashed (events left open: the process died inside them)"
                         : "ended without closing (killed between events, or the log was cut)") +
                    "; activate to see its last event";
        size_t t = 0, e = 0;
        if (lastEvent(w, &t, &e)) {
            p.tid = w.tracks[t].tid;
            p.localNs = w.tracks[t].localStart[e];
        }
        out.push_back(std::move(p));
    }
    return out;
}

QString WorkerStatuses::name(WorkerStatus s)
{
    switch (s) {
    case WorkerStatus::Finished:
        return QStringLiteral("finished");
    case WorkerStatus::Ended:
        return QStringLiteral("ended");
    case WorkerStatus::Crashed:
        return QStringLiteral("crashed");
    case WorkerStatus::Silent:
        return QStringLiteral("silent");
    case WorkerStatus::Unknown:
    case WorkerStatus::Running:
        break;
    }
    return {};
}

QColor WorkerStatuses::colour(WorkerStatus s)
{
    switch (s) {
    case WorkerStatus::Crashed:
        return QColor(0xd6, 0x27, 0x28);
    case WorkerStatus::Silent:
        return QColor(0xe0, 0x8e, 0x0b);
    case WorkerStatus::Ended:
        return QColor(0x8c, 0x56, 0x4b);
    case WorkerStatus::Finished:
        return QColor(0x59, 0xa1, 0x4f);
    case WorkerStatus::Unknown:
    case WorkerStatus::Running:
        break;
    }
    return QColor(0x79, 0x79, 0x79);
}

bool WorkerStatuses::isWarning(WorkerStatus s)
{
    return s == WorkerStatus::Crashed || s == WorkerStatus::Ended || s == WorkerStatus::Silent;
}

} // namespace syncline::ui
