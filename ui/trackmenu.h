// TrackMenu — the timeline's context menus (right-click): on a group header, a thread label or
// row, and an event. Track control as in Perfetto and Tracy: pin a worker or one thread to the
// top (kept above the scroll area; a thread under its worker's label), hide a worker or a
// thread, show only this worker, zoom to it, collapse or expand; on an event: zoom to it, find
// all of its name, show its name in the Statistics panel, copy its name, args or time, pin or
// hide its thread. Every menu ends with the hidden workers and threads, each restorable (and
// Show all).
// The menu is built by menuAt() (so tests can inspect and trigger it) and shown by the view's
// contextMenuRequested signal. Each action names itself with an objectName ("pin", "pinThread",
// "hideWorker", "hideThread", "showOnly", "zoomTo", "collapse", "findName", "showStats",
// "copyName", "copyArgs", "copyTime", "showAll", "restore").
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"

#include <QObject>
#include <QPoint>

#include <functional>

class QMenu;
class QWidget;

namespace syncline::ui {

class TimelineView;

class TrackMenu : public QObject
{
    Q_OBJECT
public:
    struct Hooks
    {
        std::function<void()> sceneChanged;                   // repaint view, overview, hidden list
        std::function<void(const QString &)> findAll;         // put a query in the find box
        std::function<void(uint32_t nameId)> showInStats;     // choose the name in Statistics
    };
    TrackMenu(TimelineView *view, Hooks hooks, QObject *parent = nullptr);

    // The menu for viewport point pos (nullptr outside the rows); owned by the caller.
    QMenu *menuAt(QPoint viewportPos, QWidget *parent);
    // Adds the hidden workers/threads (each restorable) and Show all to `menu`.
    void addHiddenActions(QMenu *menu);

private:
    void addWorkerActions(QMenu *menu, int worker);
    void addEventActions(QMenu *menu, const EventRef &ref);
    void addThreadPin(QMenu *menu, int model);
    void changed();

    TimelineView *m_view;
    Hooks m_hooks;
};

} // namespace syncline::ui
