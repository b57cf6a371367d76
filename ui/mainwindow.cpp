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
    if (m_startRaw || (m_timeline && m_timeline->clockChoice == ClockChoice::Raw)) {
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

void MainWindow::setRanks(const RankSet &ranks)
{
    m_loader->setRanks(ranks);
}

void MainWindow::setClockChoice(std::optional<ClockChoice> clock)
{
    m_loader->setClock(clock);
}

} // namespace syncline::ui
