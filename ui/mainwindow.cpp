#include "mainwindow.h"

#include "clockpanel.h"
#include "collectivespread.h"
#include "comparecontroller.h"
#include "comparepanel.h"
#include "detailspanel.h"
#include "diagnosiscontroller.h"
#include "exportactions.h"
#include "findbar.h"
#include "findcontroller.h"
#include "legendbar.h"
#include "loadcontroller.h"
#include "mainmenus.h"
#include "overviewstrip.h"
#include "problemspanel.h"
#include "selectionmeasure.h"
#include "statspanel.h"
#include "steppanel.h"
#include "timeformat.h"
#include "timelineview.h"
#include "trackmenu.h"
#include "workerstatus.h"

#include "timeline/report/legendorder.h"
#include "timeline/report/stats.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QShowEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QToolButton>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTextEdit>
#include <QVBoxLayout>

#include <algorithm>

namespace syncline::ui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_view(new TimelineView(this)),
      m_overview(new OverviewStrip(m_view->zoomControl(), this)), m_legend(new LegendBar(this)),
      m_exports(new ExportActions(this, m_view)), m_find(new FindBar(this)),
      m_details(new DetailsPanel(this)), m_stats(new StatsPanel(this)),
      m_clocks(new ClockPanel(this)), m_problems(new ProblemsPanel(this)),
      m_loader(new LoadController(this)), m_cursorLabel(new QLabel(this)),
      m_infoLabel(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_problemsButton(new QPushButton(this))
{
    setWindowTitle(QStringLiteral("syncline"));
    setWindowIcon(QIcon(QStringLiteral(":/syncline/syncline.svg")));
    setAcceptDrops(true);
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_find);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
    setCentralWidget(central);
    buildDocks();
    // The step graph: a strip above the overview, shown while the diagnosis has steps.
    m_steps->graph()->setLeftMargin(m_view->gutterWidth());
    layout->insertWidget(1, m_steps->graph());
    layout->insertWidget(2, m_overview);
    m_menus = new MainMenus(this);
    buildStatusBar();
    connect(m_loader, &LoadController::finished, this, &MainWindow::onLoadFinished);
    connect(m_loader, &LoadController::compareLoaded, this, &MainWindow::onCompareLoaded);
    connect(m_compare, &CompareController::combinedChanged, this, &MainWindow::showCompared);
    connectPanels();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    // Docks come back only where they apply: Compare with a comparison, Problems with a load
    // that has warnings (updateProblems), never empty in an unrelated session.
    m_compareDock->hide();
    m_problemsDock->hide();
    m_menus->wallClockAction()->setChecked(
        settings.value(QStringLiteral("view/wallClock"), false).toBool());
    MainMenus::setChecked(m_menus->categoryAction(),
                          settings.value(QStringLiteral("view/byCategory"), false).toBool());
    MainMenus::setChecked(m_menus->linksAction(),
                          settings.value(QStringLiteral("view/links"), true).toBool());
    setDarkTheme(settings.value(QStringLiteral("view/dark"), false).toBool());
    if (!settings.contains(QStringLiteral("window/geometry")))
        resize(1400, 900);
    qApp->installEventFilter(this);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildStatusBar()
{
    m_problemsButton->setFlat(true);
    m_problemsButton->setToolTip(tr("Show what was found while loading"));
    m_problemsButton->hide();
    connect(m_problemsButton, &QPushButton::clicked, this, [this] {
        m_problemsDock->show();
        m_problemsDock->raise();
    });
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(520);
    m_progress->hide();
    m_cancel->hide();
    statusBar()->addWidget(m_cursorLabel, 1);
    statusBar()->addPermanentWidget(m_problemsButton);
    statusBar()->addPermanentWidget(m_infoLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    connect(m_loader, &LoadController::progress, this, [this](double f, const QString &what) {
        m_progress->setValue(int(f * 1000));
        m_progress->setFormat(QStringLiteral("%p% ") + QFileInfo(what).fileName());
        // Wide enough for its text ("34% parsing 12 of 64 files, 3 from their event stores"),
        // never clipped: it only grows during a load.
        const int text = m_progress->fontMetrics().horizontalAdvance(m_progress->text()) + 32;
        if (text > m_progress->minimumWidth())
            m_progress->setMinimumWidth(std::min(text, m_progress->maximumWidth()));
    });
}

// The panels talk to each other through the window: find ↔ scene, view ↔ details, legend →
// find, stats → legend order, clocks → clock mode, ruler selection → stats range.
void MainWindow::connectPanels()
{
    m_findControl = new FindController(
        m_find, m_view, [this] { sceneChanged(); }, this);
    connect(m_view, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    m_trackMenu = new TrackMenu(
        m_view,
        {[this] { sceneChanged(); }, [this](const QString &name) { m_findControl->findName(name); },
         [this](uint32_t nameId) {
             auto *dock = findChild<QDockWidget *>(QStringLiteral("stats"));
             dock->show();
             dock->raise();
             m_stats->selectName(nameId);
         }},
        this);
    connect(m_view, &TimelineView::contextMenuRequested, this, [this](QPoint pos, QPoint global) {
        QMenu *menu = m_trackMenu->menuAt(pos, this);
        if (!menu)
            return;
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(global);
    });
    auto *hiddenMenu = new QMenu(m_find->hiddenButton());
    m_find->hiddenButton()->setMenu(hiddenMenu);
    connect(hiddenMenu, &QMenu::aboutToShow, this, [this, hiddenMenu] {
        hiddenMenu->clear();
        m_trackMenu->addHiddenActions(hiddenMenu);
    });
    connect(m_view, &TimelineView::cursorTimeChanged, this, &MainWindow::onCursorTime);
    connect(m_view, &TimelineView::gutterWidthChanged, m_overview, &OverviewStrip::setLeftMargin);
    connect(m_view, &TimelineView::gutterWidthChanged, m_steps->graph(), &StepGraph::setLeftMargin);
    connect(m_details, &DetailsPanel::eventActivated, this,
            [this](EventRef ref) { m_view->selectEvent(ref, true); });
    connect(m_details, &DetailsPanel::pointActivated, m_view, &TimelineView::revealPoint);
    connect(m_legend, &LegendBar::nameClicked, this, [this](const QString &name) {
        m_find->findEdit()->setText(name);
        m_find->focusFind();
    });
    connect(m_stats, &StatsPanel::statsReady, this, [this] {
        // Legend order (LegendOrder, shared with the image export): the stats table's rows.
        std::vector<StatsRow> rows;
        for (int r = 0; r < m_stats->model()->rowCount(); ++r)
            rows.push_back(m_stats->model()->row(r));
        m_legend->setNames(LegendOrder::byTotal(rows));
        if (!m_keepStatsName.isEmpty() && m_timeline) { // the row chosen before a reload
            const uint32_t id = m_timeline->names.find(m_keepStatsName.toStdString());
            if (id != UINT32_MAX)
                m_stats->selectName(id);
            m_keepStatsName.clear();
        }
    });
    connect(m_comparePanel, &ComparePanel::nameActivated, this, [this](const QString &name) {
        m_find->findEdit()->setText(name);
        m_find->focusFind();
    });
    connect(m_clocks, &ClockPanel::clockModeChanged, this, &MainWindow::setClockMode);
    connect(m_view->zoomControl(), &ZoomControl::selectionChanged, this,
            [this](qint64 s, qint64 e) {
                m_stats->setSelectedRange(s, e);
                updateStatus();
            });
    connect(m_view->zoomControl(), &ZoomControl::rangeChanged, this, &MainWindow::updateStatus);
    connect(m_view->zoomControl(), &ZoomControl::rangeChanged, m_steps,
            &StepPanel::setVisibleRange);
    // Box selection (Shift+drag) → the stats of exactly those tracks × that range; a histogram
    // bin → find marks on its events.
    connect(m_view, &TimelineView::boxSelected, this,
            [this](const std::vector<int> &models, qint64 s, qint64 e) {
                std::vector<std::pair<uint32_t, uint32_t>> tracks;
                for (int m : models)
                    tracks.emplace_back(uint32_t(m_scene->model(m).worker()),
                                        uint32_t(m_scene->model(m).trackIndex()));
                m_stats->setBoxSelection(std::move(tracks), s, e);
                updateStatus();
            });
    connect(m_stats, &StatsPanel::histogramBinClicked, this,
            [this](quint32 name, qint64 lo, qint64 hi, int rank) {
                m_findControl->findDurations(name, lo, hi, rank);
            });
}

void MainWindow::setTimeline(std::shared_ptr<Timeline> timeline, const QStringList &sources)
{
    showTimeline(std::move(timeline), sources, false);
}

void MainWindow::setLiveTimeline(std::shared_ptr<Timeline> live, const QStringList &sources)
{
    showTimeline(std::move(live), sources, true);
}

void MainWindow::showTimeline(std::shared_ptr<Timeline> timeline, const QStringList &sources,
                              bool live)
{
    if (!m_showingCompare && m_compare->active()) { // another job replaces the comparison
        m_compare->clear();
        m_compareArriving = false;
        m_comparePanel->refresh();
        m_compareDock->hide();
    }
    // The same job again (a re-align, a reload): what the user set up is kept.
    const ViewState kept =
        !live && m_scene && !m_live && sources == m_shownSources ? captureViewState() : ViewState{};
    m_shownSources = sources;
    m_live = live;
    m_timeline = std::move(timeline);
    m_sources = sources;
    m_scene = std::make_shared<TimelineScene>(m_timeline);
    m_scene->setColourByCategory(m_menus->categoryAction()->isChecked());
    m_scene->setLinksVisible(m_menus->linksAction()->isChecked());
    m_view->setScene(m_scene);
    if (!live)
        m_view->fitRowsToHeight(); // every worker on screen when it can be
    m_overview->setScene(m_scene);
    m_legend->setScene(m_scene);
    m_stats->setTimeline(live ? nullptr : m_timeline, m_scene->clockMode());
    m_exports->setTimeline(m_timeline);
    m_clocks->setTimeline(m_timeline);
    // A new job opens on corrected clocks (the scene's initial mode).
    m_clocks->setCorrected(m_scene->clockMode() == ClockMode::Corrected);
    MainMenus::setChecked(m_menus->rawAction(), m_scene->clockMode() == ClockMode::Raw);
    m_details->showEvent(m_scene.get(), {});
    m_findControl->setScene(m_scene, true);
    if (!live)
        m_scene->setWorkerStatuses(WorkerStatuses::of(*m_timeline));
    m_stats->setDiagnosis(nullptr);
    m_stepsRaised = false;
    requestDiagnosis();
    if (m_startRaw) {
        m_startRaw = false;
        setClockMode(ClockMode::Raw);
    }
    restoreViewState(kept);
    updateProblems(true);
    updateInfo();
    updateStatus();
    const QString title = sources.isEmpty() ? QString() : QFileInfo(sources.front()).fileName();
    setWindowTitle(title.isEmpty() ? QStringLiteral("syncline")
                                   : title + QStringLiteral(" — syncline"));
}

void MainWindow::liveUpdated(const LiveUpdate &u)
{
    if (!m_scene)
        return;
    const EventRef selected = m_scene->selected();
    m_scene->applyLive(u);
    sceneChanged();
    if (u.structureChanged || u.clockChanged)
        m_clocks->setTimeline(m_timeline); // one row per worker: cheap
    if (u.structureChanged)
        m_findControl->updateRankLimits();
    if (!(m_scene->selected() == selected))
        m_details->showEvent(m_scene.get(), m_scene->selected());
    if (u.newEvents || u.closedEvents || u.structureChanged || u.clockChanged)
        m_diagnoser->liveChanged(m_timeline, m_scene->clockMode());
    if (m_timeline->problems.size() != m_shownProblems)
        updateProblems(false);
    updateInfo();
}

void MainWindow::updateInfo()
{
    m_infoLabel->setText(tr("%1 workers · %L2 events · %3")
                             .arg(m_timeline->workers.size())
                             .arg(qulonglong(m_timeline->eventCount()))
                             .arg(formatDuration(m_scene->endNs() - m_scene->beginNs())));
    const TimelineWindow &w = m_timeline->window;
    if (w.active) {
        const int64_t origin = m_timeline->originNs(w.mode);
        const int m = w.mode == ClockMode::Raw ? 1 : 0;
        m_infoLabel->setText(m_infoLabel->text() +
                             tr(" · window %1 – %2 of %3 (%4)")
                                 .arg(formatDuration(w.beginNs - origin),
                                      formatDuration(w.endNs - origin),
                                      formatDuration(w.job[m].duration()),
                                      w.fromEventStore   ? tr("decoded from the event store")
                                      : w.readOnlyWindow ? tr("read from the index")
                                                         : tr("cut from a full load")));
    }
}

void MainWindow::sceneChanged()
{
    m_view->sceneChanged();
    m_overview->sceneChanged();
    if (m_scene)
        m_find->setHiddenCount(
            int(m_scene->hiddenWorkers().size() + m_scene->hiddenTracks().size()));
}

void MainWindow::setClockMode(ClockMode mode)
{
    if (!m_timeline || !m_scene)
        return;
    m_scene->setClockMode(mode); // the one place; stats, exports and panels are given it
    m_clocks->setCorrected(mode == ClockMode::Corrected);
    MainMenus::setChecked(m_menus->rawAction(), mode == ClockMode::Raw);
    sceneChanged();
    onEventSelected(m_scene->selected()); // details and the collective spread in the new mode
    m_stats->setClockMode(mode); // recomputes; a job still running for the old mode is dropped
    m_compare->setClockMode(mode);
    requestDiagnosis(); // the marks and steps are in the old mode's times until it arrives
}

void MainWindow::setDarkTheme(bool dark)
{
    static const QPalette lightPalette = QApplication::palette();
    if (dark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(ViewStyle::darkPalette());
    } else {
        QApplication::setPalette(lightPalette);
    }
    m_view->setViewStyle(dark ? ViewStyle::darkStyle() : ViewStyle::light());
    m_overview->sceneChanged();
    m_details->showEvent(m_scene.get(), m_scene ? m_scene->selected() : EventRef{}); // link colours
    if (m_menus)
        MainMenus::setChecked(m_menus->darkAction(), dark);
    QSettings().setValue(QStringLiteral("view/dark"), dark);
}

// A Problems entry: the event on the problem's thread at its time (the innermost one that
// starts at or before it), or the worker of its file when the problem has no place.
void MainWindow::showProblem(const LoadProblem &p)
{
    if (!m_scene)
        return;
    const Timeline &tl = m_scene->timeline();
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        if (tl.workers[w].info.sourceFile != p.file)
            continue;
        const auto [first, last] = m_scene->modelsOf(int(w));
        for (int mi = first; mi < last && p.localNs >= 0; ++mi) {
            const TrackModel &m = m_scene->model(mi);
            if (m.track().tid != p.tid || m.count() == 0)
                continue;
            const int64_t t = m.map(m_scene->clockMode()).toGlobal(p.localNs);
            int best = -1;
            for (int d = 0; d < m.depthCount(); ++d) {
                const size_t pos = m.rowUpperBound(d, p.localNs); // first starting after it
                if (pos == 0)
                    break;
                const int e = int(m.depthRow(d)[pos - 1]);
                if (best >= 0 && m.parentIndex(e) != best)
                    break;
                best = e;
                if (m.endTime(e, m_scene->clockMode()) < t)
                    break; // ended before: no child of it holds t
            }
            if (best >= 0) {
                m_view->selectEvent({mi, best}, true);
                return;
            }
        }
        // No place: scroll to the worker.
        if (m_scene->isCollapsed(int(w)))
            m_scene->setCollapsed(int(w), false);
        const int row = m_scene->layout().headerOf(int(w));
        if (row >= 0)
            m_view->revealRow(row);
        return;
    }
}

void MainWindow::onEventSelected(const EventRef &ref)
{
    // A collective instance: the same instance on every rank is outlined, its spread shown.
    std::optional<CollectiveSpread> spread;
    if (m_scene) {
        spread = CollectiveSpread::of(*m_scene, ref);
        m_scene->setHighlighted(spread ? spread->refs() : std::vector<EventRef>());
        m_view->viewport()->update();
    }
    m_details->showEvent(m_scene.get(), ref, spread);
}

void MainWindow::setLinksVisible(bool on)
{
    if (m_scene) {
        m_scene->setLinksVisible(on);
        sceneChanged();
    }
}

void MainWindow::onCursorTime(qint64 t, bool inside)
{
    m_cursorTime = t;
    m_cursorInside = inside;
    updateStatus();
}

// The status bar: cursor time (when the mouse is over the events), the view span and the
// selection — refreshed on every range, selection or cursor change, whatever caused it (wheel,
// W/S/A/D, F, Home, Esc, the overview, a find step).
void MainWindow::updateStatus()
{
    if (!m_scene) {
        m_cursorLabel->clear();
        return;
    }
    QStringList parts;
    if (m_cursorInside) {
        QString text = tr("cursor %1").arg(formatDuration(m_cursorTime - m_scene->originNs(), 7));
        int64_t wall = 0;
        if (m_scene->wallClock(m_cursorTime, &wall))
            text += QStringLiteral("   ") + formatWallClock(wall, 1000);
        parts << text;
    }
    const ZoomControl *z = m_view->zoomControl();
    parts << tr("view %1").arg(formatDuration(z->rangeDuration()));
    if (z->hasSelection()) // the measure: its length and the events begun in it
        parts << tr("selection %1 · %L2 events")
                     .arg(formatDuration(z->selectionEnd() - z->selectionStart()))
                     .arg(qlonglong(SelectionMeasure::eventsBetween(
                         *m_scene, z->selectionStart(), z->selectionEnd(), m_view->boxModels())));
    m_cursorLabel->setText(parts.join(QStringLiteral("   ")));
}

QString MainWindow::statusText() const
{
    return m_cursorLabel->text() + QLatin1Char('|') + m_infoLabel->text();
}

QStringList MainWindow::recentFiles() const
{
    return MainMenus::recentFiles();
}

void MainWindow::setAllCollapsed(bool collapsed)
{
    if (m_scene) {
        m_scene->setAllCollapsed(collapsed);
        sceneChanged();
    }
}

void MainWindow::setColourByCategory(bool on)
{
    if (m_scene) {
        m_scene->setColourByCategory(on);
        sceneChanged();
        m_legend->update();
    }
}

// Warnings and errors open the Problems dock; info-level notes ("1 event without an end") only
// show in the status bar, whose button opens the dock.
void MainWindow::updateProblems(bool newJob)
{
    m_shownProblems = m_timeline->problems.size();
    // The loader's problems, and a warning for each log without a close record.
    std::vector<LoadProblem> problems = m_timeline->problems;
    for (LoadProblem &p : WorkerStatuses::closeWarnings(*m_timeline, m_scene->workerStatuses()))
        problems.push_back(std::move(p));
    m_problems->setProblems(problems);
    const bool serious = std::any_of(problems.begin(), problems.end(), [](const LoadProblem &p) {
        return p.severity != LoadProblem::Severity::Info;
    });
    const int n = int(problems.size());
    const QString text = serious ? (n == 1 ? tr("⚠ 1 problem") : tr("⚠ %1 problems").arg(n))
                                 : (n == 1 ? tr("1 note") : tr("%1 notes").arg(n));
    m_problemsButton->setText(problems.empty() ? QString() : text);
    m_problemsButton->setVisible(!problems.empty());
    if (newJob || (serious && !m_seriousShown)) {
        m_problemsDock->setVisible(serious);
        if (serious)
            m_problemsDock->raise();
    }
    m_seriousShown = serious;
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("view/wallClock"), m_view->wallClock());
    m_loader->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        openPaths(paths);
    }
}

void MainWindow::setLiveWorkerStatus(const std::vector<LiveWorkerStatus> &workers)
{
    if (!m_scene || !m_live)
        return;
    std::vector<WorkerStatus> statuses = WorkerStatuses::ofLive(*m_timeline, workers);
    if (statuses == m_scene->workerStatuses())
        return;
    m_scene->setWorkerStatuses(std::move(statuses));
    sceneChanged();
    updateProblems(false);
}

// The diagnosis of what is shown, in the view's clock mode: a loaded job now; a live one through
// the controller's throttle (it copies the live Timeline); none for a comparison (its two runs'
// ranks would be judged together).
void MainWindow::requestDiagnosis()
{
    if (!m_timeline || !m_scene)
        return;
    const bool runs = !m_timeline->workers.empty() && !m_timeline->workers.front().info.run.empty();
    if (runs) {
        m_diagnoser->cancel();
        m_steps->clear(tr("no diagnosis for a comparison of two runs: open one run to see it"));
        return;
    }
    m_steps->clear(tr("diagnosing…"));
    if (m_live)
        m_diagnoser->liveChanged(m_timeline, m_scene->clockMode());
    else
        m_diagnoser->request(m_timeline, m_scene->clockMode());
}

void MainWindow::onDiagnosisReady()
{
    const DiagnosisResult &r = m_diagnoser->result();
    if (!m_scene || !r.diagnosis || r.mode != m_scene->clockMode())
        return;
    m_steps->setResult(r);
    m_stats->setDiagnosis(r.diagnosis);
    // Marks index the scene's workers: only when the diagnosed job has the same ones (a live
    // job may have grown since its copy was taken; the next diagnosis brings them).
    if (r.diagnosis->workerCount == m_timeline->workers.size())
        m_scene->setCulpritMarks(CulpritMarks::build(*m_scene, *r.diagnosis));
    m_steps->setVisibleRange(m_view->zoomControl()->rangeStart(),
                             m_view->zoomControl()->rangeEnd());
    // A culprit: the heat map shows it (once per job, so a tab the user chose stays chosen;
    // never over the Problems dock that warnings opened).
    if (!r.diagnosis->culprits.empty() && !m_stepsRaised &&
        m_stepsDock->toggleViewAction()->isChecked() &&
        !m_problemsDock->toggleViewAction()->isChecked()) {
        m_stepsRaised = true;
        m_stepsDock->raise();
    }
    sceneChanged();
}

void MainWindow::zoomToStep(int step)
{
    const DiagnosisResult &r = m_diagnoser->result();
    if (!r.series || step < 0 || size_t(step) >= r.series->size())
        return;
    const int64_t b = r.series->beginNs[size_t(step)], e = r.series->endNs[size_t(step)];
    const int64_t margin = std::max<int64_t>(1, (e - b) / 20);
    m_view->zoomControl()->setRange(b - margin, e + margin);
}

} // namespace syncline::ui
