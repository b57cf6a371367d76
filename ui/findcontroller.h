// FindController — wires the find bar to the scene on screen: the find pattern (substring or
// regex) highlights matching names and dims the rest (folds holding a match are lit and marked),
// the counter gives the matching events and names ("1,204 events · 2 names"), Enter /
// Shift+Enter step through matches (selecting and revealing each: TimelineView::revealEvent
// zooms in until the event is drawn on its own, never inside a fold), the name filter and the rank range hide events and workers.
// It also gives the find bar the job's rank range (resetting the rank filter when it changes).
// `changed` is called after every change to the scene (MainWindow repaints view and overview).
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"

#include <QObject>

#include <functional>
#include <memory>
#include <utility>

namespace syncline::ui {

class FindBar;
class TimelineView;

class FindController : public QObject
{
    Q_OBJECT
public:
    FindController(FindBar *bar, TimelineView *view, std::function<void()> changed,
                   QObject *parent = nullptr);
    // A new scene: applies the current pattern; newJob resets the rank range.
    void setScene(std::shared_ptr<TimelineScene> scene, bool newJob);
    // Workers may have appeared (live): widens the rank range when needed.
    void updateRankLimits();
    // Live: events were appended; the counter follows.
    void refreshStatus();
    // Find exactly the events of name `nameId` with durations in [minNs, maxNs) (on `rank` when
    // >= 0): a duration histogram's bin. The find box gets the name as an anchored regex, the
    // scene the duration filter; the first match is selected and revealed.
    void findDurations(uint32_t nameId, int64_t minNs, int64_t maxNs, int rank);
    // Find every event of exactly this name (an anchored regex in the find box).
    void findName(const QString &name);

private:
    void search(const QString &pattern, bool regex);
    void step(bool forward);
    QString matchStatus() const;

    FindBar *m_bar;
    TimelineView *m_view;
    std::function<void()> m_changed;
    std::shared_ptr<TimelineScene> m_scene;
    std::pair<int, int> m_rankLimits{1, 0}; // (min, max) given to the find bar
};

} // namespace syncline::ui
