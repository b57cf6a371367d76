// MainWindow — the viewer: find bar, overview and timeline in the centre; details, stats,
// clocks and load problems as docks (the Problems dock opens by itself only for warnings and
// errors; info-level notes are a status-bar button); the menus (MainMenus); a status bar with
// the cursor time and, while loading, a progress bar with Cancel.
// Loading runs in a LoadController (off the GUI thread); only the latest load's result is used.
// After a load (and, throttled, after live commits and on a clock-mode change) the job is
// diagnosed off the GUI thread (DiagnosisController): the step graph (a strip above the
// overview) and the Steps dock (the ranks × steps heat map, beside Statistics, raised when a
// culprit is named) show it, the timeline gets culprit marks, the Statistics chart the blame of
// waits. Group headers and the overview show each worker's state (WorkerStatus); a missing close
// record is a Problems warning that jumps to the worker's last event.
// Window state, recent files, wall-clock and theme choices persist in QSettings.
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"

#include "timeline/load/jobloader.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <set>
#include <string>

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QDockWidget;
class QAction;

namespace syncline::ui {

class TimelineView;
class OverviewStrip;
class FindBar;
class DetailsPanel;
class StatsPanel;
class ClockPanel;
class ProblemsPanel;
class LoadController;
class LegendBar;
class ExportActions;
class MainMenus;
class FindController;
class CompareController;
class ComparePanel;
class DiagnosisController;
class StepPanel;
class TrackMenu;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // alignOn: align clocks on the k-th instance of matching collectives (--align-on);
    // correct = false skips the correction (--no-correct); align = false: no alignment on
    // collectives (--no-align; not with an alignOn pattern).
    void openPaths(const QStringList &paths, const QString &alignOn = {}, bool correct = true,
                   bool align = true);
    // File ▸ Open window… / `open --range`: only the events overlapping `window` (JobLoader reads
    // only that part of the logs when the job has an index; docs/scale.md).
    void openWindow(const QStringList &paths, const LoadWindow &window, const QString &alignOn = {},
                    bool correct = true, bool align = true);
    LoadWindow loadWindow() const { return m_window; }
    // Clocks ▸ Align on collective…: reloads the open job aligned on `pattern` ("" = without);
    // a pattern turns collective alignment back on.
    void reloadAlignedOn(const QString &pattern);
    QString alignOn() const { return m_alignOn; }
    // Clocks ▸ Align clocks on collectives: reloads the open job (or comparison) with the
    // alignment on collectives on or off (off = --no-align, which drops an alignOn pattern);
    // the view is kept as by reloadAlignedOn. Nothing happens when it already is so.
    void reloadWithAlignment(bool align);
    bool alignsCollectives() const { return m_align; }
    QStringList sources() const { return m_sources; }
    void setStartInRaw(bool raw) { m_startRaw = raw; } // `open --raw`: the next job opens raw
    // `open --ranks`: every load from now on (open, reload, compare) reads only these workers'
    // logs (LoadOptions::ranks; the loader picks the files, the window never parses them).
    void setRanks(const RankSet &ranks);
    // `open --clock C`: the clock every load asks for (unset: the config's view_clock; a job
    // loaded on raw — by either — opens raw).
    void setClockChoice(std::optional<syncline::ClockChoice> clock);
    // Compare two runs (docs/viewer.md#comparing-two-runs): A and B loaded through the
    // LoadController, shown side by side as "A · rank N" / "B · rank N" groups (CompareController),
    // the Compare dock with the delta table. compareWith(B) compares the run on screen (A) with B.
    void openCompare(const QStringList &pathsA, const QStringList &pathsB,
                     const QString &alignOn = {}, bool correct = true, bool align = true);
    void compareWith(const QStringList &pathsB);
    CompareController *compareController() const { return m_compare; }
    ComparePanel *comparePanel() const { return m_comparePanel; }
    QDockWidget *compareDock() const { return m_compareDock; }
    void cancelLoad();
    // Shows an already loaded timeline (what openPaths does when loading ends).
    void setTimeline(std::shared_ptr<Timeline> timeline, const QStringList &sources);
    // Live: shows a LiveJob's Timeline itself (no copy); it is mutated in place by the job's
    // commits on the GUI thread, each followed by liveUpdated(), which brings the scene and the
    // cheap panels up to date incrementally (TimelineScene::applyLive). The stats panel, which
    // computes off the GUI thread, is not given the live Timeline: statsPanel()->setTimeline()
    // a snapshot instead (LiveAttachment does, while the panel is visible).
    void setLiveTimeline(std::shared_ptr<Timeline> live, const QStringList &sources);
    void liveUpdated(const LiveUpdate &update);
    // Live: the LiveJob's per-file states after a commit (LiveAttachment): worker states on the
    // headers and the overview, warnings for logs that ended without a close record.
    void setLiveWorkerStatus(const std::vector<LiveWorkerStatus> &workers);
    DiagnosisController *diagnosisController() const { return m_diagnoser; }
    StepPanel *stepPanel() const { return m_steps; }
    QDockWidget *stepsDock() const { return m_stepsDock; }
    // Zooms the timeline to step k of the latest diagnosis (with a margin of 5 % each side).
    void zoomToStep(int step);

    TimelineView *view() const { return m_view; }
    StatsPanel *statsPanel() const { return m_stats; }
    ClockPanel *clockPanel() const { return m_clocks; }
    ProblemsPanel *problemsPanel() const { return m_problems; }
    FindBar *findBar() const { return m_find; }
    TrackMenu *trackMenu() const { return m_trackMenu; }
    DetailsPanel *detailsPanel() const { return m_details; }
    ExportActions *exportActions() const { return m_exports; }
    QDockWidget *problemsDock() const { return m_problemsDock; }
    std::shared_ptr<Timeline> timeline() const { return m_timeline; }
    QStringList recentFiles() const;
    QString statusText() const; // the cursor/info labels, for tests
    bool isLoading() const;

    void setClockMode(ClockMode mode);
    void setDarkTheme(bool dark);
    void setAllCollapsed(bool collapsed);
    void setColourByCategory(bool on); // View ▸ Colour by category
    void setLinksVisible(bool on);     // View ▸ Links (message and flow arrows)
    MainMenus *menus() const { return m_menus; }
    // Status-bar button "N notes" / "⚠ N problems" (hidden when none); clicking opens the dock.
    QPushButton *problemsButton() const { return m_problemsButton; }

signals:
    void loadFinished(bool ok);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void buildDocks();
    void buildStatusBar();
    void connectPanels();
    void updateProblems(bool newJob);
    void requestDiagnosis();
    void onDiagnosisReady();
    void onLoadFinished(std::shared_ptr<Timeline> timeline, bool cancelled, const QString &fatal);
    void onEventSelected(const EventRef &ref);
    void onCompareLoaded(std::shared_ptr<const Timeline> a, std::shared_ptr<const Timeline> b,
                         bool cancelled, const QString &fatal);
    void showCompared(std::shared_ptr<Timeline> combined);
    void showProblem(const LoadProblem &problem);
    void onCursorTime(qint64 t, bool inside);
    void sceneChanged();
    void showTimeline(std::shared_ptr<Timeline> timeline, const QStringList &sources, bool live);
    void updateInfo();
    void updateStatus();
    void setAlign(bool align); // m_align and the Clocks menu's check
    // What the user set up on the shown job, kept across its reload (Clocks ▸ Align on
    // collective…, reopening the same sources): range, clock mode, rank range, collapsed,
    // hidden and pinned workers/threads (by identity), the selected event, the stats row.
    struct ViewState
    {
        bool valid = false;
        int64_t rangeStart = 0, rangeEnd = 0;
        ClockMode mode = ClockMode::Corrected;
        int minRank = 0, maxRank = 0;
        std::set<std::string> collapsed, hiddenWorkers, hiddenTracks, pinned, pinnedTracks;
        std::string selectedTrack;
        int selectedIndex = -1;
        QString statsName;
    };
    ViewState captureViewState() const;
    void restoreViewState(const ViewState &state);

    TimelineView *m_view;
    OverviewStrip *m_overview;
    LegendBar *m_legend;
    ExportActions *m_exports;
    FindBar *m_find;
    DetailsPanel *m_details;
    StatsPanel *m_stats;
    ClockPanel *m_clocks;
    ProblemsPanel *m_problems;
    QDockWidget *m_problemsDock = nullptr;
    DiagnosisController *m_diagnoser = nullptr;
    StepPanel *m_steps = nullptr;
    QDockWidget *m_stepsDock = nullptr;
    bool m_stepsRaised = false; // the Steps dock was raised for this job's culprit
    LoadController *m_loader;
    QLabel *m_cursorLabel;
    QLabel *m_infoLabel;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPushButton *m_problemsButton;
    MainMenus *m_menus = nullptr;
    bool m_seriousShown = false;
    std::shared_ptr<Timeline> m_timeline;
    std::shared_ptr<TimelineScene> m_scene;
    QStringList m_sources;
    size_t m_shownProblems = 0;
    FindController *m_findControl = nullptr;
    TrackMenu *m_trackMenu = nullptr;
    QString m_alignOn;
    bool m_correct = true;
    bool m_align = true; // false: the job was loaded without alignment on collectives
    LoadWindow m_window; // of the open job (use = false: the whole job)
    bool m_startRaw = false;
    CompareController *m_compare = nullptr;
    ComparePanel *m_comparePanel = nullptr;
    QDockWidget *m_compareDock = nullptr;
    bool m_showingCompare = false;  // showTimeline called for the comparison
    bool m_compareArriving = false; // a new comparison: loadFinished when its view is shown
    bool m_live = false;            // the timeline shown is a live one
    QStringList m_compareB;         // B's paths of the comparison being loaded
    qint64 m_cursorTime = 0;
    bool m_cursorInside = false;
    bool m_docksSized = false; // the bottom docks were fitted on the first show
    QStringList m_shownSources; // of the job on screen (a reload shows the same again)
    QString m_keepStatsName;    // the stats row to choose again when the reloaded stats arrive
};

} // namespace syncline::ui
