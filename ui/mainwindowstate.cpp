// MainWindow: the view state kept across a reload of the job on screen (see ViewState).
#include "findbar.h"
#include "mainwindow.h"
#include "statspanel.h"
#include "statstablemodel.h"
#include "timelineview.h"

#include <QSpinBox>
#include <QTableView>

namespace syncline::ui {

MainWindow::ViewState MainWindow::captureViewState() const
{
    ViewState s;
    const TimelineScene &scene = *m_scene;
    s.valid = true;
    s.rangeStart = m_view->zoomControl()->rangeStart();
    s.rangeEnd = m_view->zoomControl()->rangeEnd();
    s.mode = scene.clockMode();
    s.minRank = m_find->minRankBox()->value();
    s.maxRank = m_find->maxRankBox()->value();
    for (size_t w = 0; w < scene.timeline().workers.size(); ++w) {
        const std::string key = scene.workerKey(int(w));
        if (scene.isCollapsed(int(w)))
            s.collapsed.insert(key);
        if (scene.isPinned(int(w)))
            s.pinned.insert(key);
    }
    for (int w : scene.hiddenWorkers())
        s.hiddenWorkers.insert(scene.workerKey(w));
    for (int m : scene.hiddenTracks())
        s.hiddenTracks.insert(scene.trackKey(m));
    for (int m : scene.pinnedTracks())
        s.pinnedTracks.insert(scene.trackKey(m));
    if (scene.selected().valid()) {
        s.selectedTrack = scene.trackKey(scene.selected().model);
        s.selectedIndex = scene.selected().index;
    }
    const QModelIndex row = m_stats->table()->currentIndex();
    if (row.isValid())
        s.statsName = scene.displayName(row.data(StatsTableModel::NameIdRole).toUInt());
    return s;
}

void MainWindow::restoreViewState(const ViewState &s)
{
    if (!s.valid || !m_scene)
        return;
    TimelineScene &scene = *m_scene;
    if (s.mode != scene.clockMode())
        setClockMode(s.mode);
    for (size_t w = 0; w < scene.timeline().workers.size(); ++w) {
        const std::string key = scene.workerKey(int(w));
        if (s.collapsed.count(key))
            scene.setCollapsed(int(w), true);
        if (s.pinned.count(key))
            scene.setPinned(int(w), true);
        if (s.hiddenWorkers.count(key))
            scene.setWorkerHidden(int(w), true);
    }
    EventRef selected;
    for (int m = 0; m < int(scene.models().size()); ++m) {
        const std::string key = scene.trackKey(m);
        if (s.hiddenTracks.count(key))
            scene.setTrackHidden(m, true);
        if (s.pinnedTracks.count(key))
            scene.setTrackPinned(m, true);
        if (key == s.selectedTrack && s.selectedIndex < scene.model(m).count())
            selected = {m, s.selectedIndex};
    }
    // The rank range: the find bar's boxes apply it (and clamp it to the job's ranks).
    m_find->minRankBox()->setValue(s.minRank);
    m_find->maxRankBox()->setValue(s.maxRank);
    sceneChanged();
    m_view->zoomControl()->setRange(s.rangeStart, s.rangeEnd);
    if (selected.valid())
        m_view->selectEvent(selected, false);
    m_keepStatsName = s.statsName;
}

} // namespace syncline::ui
