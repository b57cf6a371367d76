#include "mainwindow.h"

#include "clockpanel.h"
#include "detailspanel.h"
#include "exportactions.h"
#include "findbar.h"
#include "legendbar.h"
#include "liveattachment.h"
#include "loadcontroller.h"
#include "overviewstrip.h"
#include "problemspanel.h"
#include "shortcuts.h"
#include "statspanel.h"
#include "timeformat.h"
#include "timelineview.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QStyleFactory>
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
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    setWindowTitle(QStringLiteral("syncline"));
    setWindowIcon(QIcon(QStringLiteral(":/syncline/syncline.svg")));
    setAcceptDrops(true);
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_find);
    layout->addWidget(m_overview);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
    setCentralWidget(central);
    buildDocks();
    buildMenus();
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->hide();
    m_cancel->hide();
    statusBar()->addWidget(m_cursorLabel, 1);
    statusBar()->addPermanentWidget(m_infoLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    connect(m_loader, &LoadController::progress, this, [this](double f, const QString &what) {
        m_progress->setValue(int(f * 1000));
        m_progress->setFormat(QStringLiteral("%p% ") + QFileInfo(what).fileName());
    });
    connect(m_loader, &LoadController::finished, this, &MainWindow::onLoadFinished);
    connect(m_find, &FindBar::searchChanged, this, &MainWindow::onSearch);
    connect(m_find, &FindBar::stepRequested, this, &MainWindow::onStep);
    connect(m_find, &FindBar::nameFilterChanged, this, [this](const QString &text) {
        if (m_scene) {
            m_scene->setNameFilter(text);
            sceneChanged();
        }
    });
    connect(m_find, &FindBar::rankRangeChanged, this, [this](int lo, int hi) {
        if (m_scene) {
            m_scene->setRankFilter(lo, hi);
            sceneChanged();
        }
    });
    connect(m_view, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    connect(m_view, &TimelineView::cursorTimeChanged, this, &MainWindow::onCursorTime);
    connect(m_details, &DetailsPanel::eventActivated, this,
            [this](EventRef ref) { m_view->selectEvent(ref, true); });
    connect(m_legend, &LegendBar::nameClicked, this, [this](const QString &name) {
        m_find->findEdit()->setText(name);
        m_find->focusFind();
    });
    connect(m_stats, &StatsPanel::statsReady, this, [this] {
        // Legend order: most total time first (the stats table's whole-job or range rows).
        std::vector<std::pair<int64_t, uint32_t>> order;
        for (int r = 0; r < m_stats->model()->rowCount(); ++r)
            order.emplace_back(-m_stats->model()->row(r).totalNs, m_stats->model()->row(r).nameId);
        std::sort(order.begin(), order.end());
        std::vector<uint32_t> names;
        for (const auto &o : order)
            names.push_back(o.second);
        m_legend->setNames(std::move(names));
    });
    connect(m_clocks, &ClockPanel::clockModeChanged, this, &MainWindow::setClockMode);
    connect(m_view->zoomControl(), &ZoomControl::selectionChanged, this,
            [this](qint64 s, qint64 e) { m_stats->setSelectedRange(s, e); });
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_wallAction->setChecked(settings.value(QStringLiteral("view/wallClock"), false).toBool());
    m_categoryAction->setChecked(settings.value(QStringLiteral("view/byCategory"), false).toBool());
    setDarkTheme(settings.value(QStringLiteral("view/dark"), false).toBool());
    rebuildRecentMenu();
    if (!settings.contains(QStringLiteral("window/geometry")))
        resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *w,
                       Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    dock(tr("Details"), QStringLiteral("details"), m_details, Qt::RightDockWidgetArea);
    QDockWidget *stats =
        dock(tr("Statistics"), QStringLiteral("stats"), m_stats, Qt::BottomDockWidgetArea);
    QDockWidget *clocks =
        dock(tr("Clocks"), QStringLiteral("clocks"), m_clocks, Qt::BottomDockWidgetArea);
    m_problemsDock =
        dock(tr("Problems"), QStringLiteral("problems"), m_problems, Qt::BottomDockWidgetArea);
    tabifyDockWidget(stats, clocks);
    tabifyDockWidget(clocks, m_problemsDock);
    stats->raise();
    m_problemsDock->hide();
    resizeDocks({stats}, {230}, Qt::Vertical); // the timeline keeps most of the height
    resizeDocks({findChild<QDockWidget *>(QStringLiteral("details"))}, {300}, Qt::Horizontal);
    connect(m_problems, &ProblemsPanel::dismissed, m_problemsDock, &QDockWidget::hide);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open files…"), QKeySequence::Open, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Open logs, config or Chrome traces"), QString(),
            tr("Timelines (*.log *.jsonl *.json *.json.gz);;All files (*)"));
        if (!files.isEmpty())
            openPaths(files);
    });
    file->addAction(
        tr("Open &directory…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
            const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a job directory"));
            if (!dir.isEmpty())
                openPaths({dir});
        });
    file->addAction(tr("&Attach to running job…"), this,
                    [this] { LiveAttachment::attachDialog(this); }); // live: docs/live.md
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    m_exports->addTo(file->addMenu(tr("&Export")));
    connect(m_exports, &ExportActions::wrote, this, [this](const QString &path) {
        statusBar()->showMessage(tr("wrote %1").arg(path), 5000);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find…"), QKeySequence::Find, m_find, &FindBar::focusFind);
    view->addAction(tr("Fit whole job"), this, [this] { m_view->zoomControl()->fit(); });
    m_rawAction = view->addAction(tr("&Raw clocks (no correction)"));
    m_rawAction->setCheckable(true);
    m_rawAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_rawAction, &QAction::toggled, this,
            [this](bool raw) { setClockMode(raw ? ClockMode::Raw : ClockMode::Corrected); });
    m_wallAction = view->addAction(tr("&Wall-clock time on the ruler"));
    m_wallAction->setCheckable(true);
    m_wallAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(m_wallAction, &QAction::toggled, m_view, &TimelineView::setWallClock);
    view->addAction(tr("Collapse all workers"), this, [this] {
        if (m_scene) {
            m_scene->setAllCollapsed(true);
            sceneChanged();
        }
    });
    view->addAction(tr("Expand all workers"), this, [this] {
        if (m_scene) {
            m_scene->setAllCollapsed(false);
            sceneChanged();
        }
    });
    m_categoryAction = view->addAction(tr("Colour by &category"));
    m_categoryAction->setCheckable(true);
    m_categoryAction->setToolTip(tr("Names of one configured category (config event_kinds) share "
                                    "its colour"));
    connect(m_categoryAction, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("view/byCategory"), on);
        if (m_scene) {
            m_scene->setColourByCategory(on);
            sceneChanged();
            m_legend->update();
        }
    });
    m_darkAction = view->addAction(tr("&Dark theme"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkTheme);
    view->addSeparator();
    for (QDockWidget *d : findChildren<QDockWidget *>())
        view->addAction(d->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this,
                    &MainWindow::showShortcuts);
    help->addAction(tr("&About syncline"), this, [this] {
        QMessageBox::about(
            this, tr("About syncline"),
            tr("<b>syncline</b><br>One corrected global timeline from every worker's log."));
    });
}

void MainWindow::openPaths(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    m_sources = paths;
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_progress->show();
    m_cancel->show();
    m_infoLabel->setText(tr("loading %1…").arg(QFileInfo(paths.front()).fileName()));
    m_loader->start(paths);
}

void MainWindow::cancelLoad()
{
    m_loader->cancel();
}

bool MainWindow::isLoading() const
{
    return m_loader->isRunning();
}

void MainWindow::onLoadFinished(std::shared_ptr<Timeline> timeline, bool cancelled,
                                const QString &fatal)
{
    m_progress->hide();
    m_cancel->hide();
    if (cancelled) {
        m_infoLabel->setText(tr("loading cancelled"));
        emit loadFinished(false);
        return;
    }
    if (!timeline) {
        m_infoLabel->setText(tr("could not load"));
        QMessageBox::warning(this, tr("Cannot open"),
                             fatal.isEmpty() ? tr("Nothing could be loaded.") : fatal);
        emit loadFinished(false);
        return;
    }
    addRecent(m_sources);
    setTimeline(std::move(timeline), m_sources);
    emit loadFinished(true);
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
    m_timeline = std::move(timeline);
    m_sources = sources;
    m_scene = std::make_shared<TimelineScene>(m_timeline);
    m_scene->setColourByCategory(m_categoryAction->isChecked());
    m_view->setScene(m_scene);
    m_overview->setScene(m_scene);
    m_legend->setScene(m_scene);
    m_stats->setTimeline(live ? nullptr : m_timeline);
    m_exports->setTimeline(m_timeline);
    m_clocks->setTimeline(m_timeline);
    m_clocks->setCorrected(m_timeline->mode() == ClockMode::Corrected);
    {
        const QSignalBlocker block(m_rawAction);
        m_rawAction->setChecked(m_timeline->mode() == ClockMode::Raw);
    }
    m_details->showEvent(m_scene.get(), {});
    m_rankLimits = {1, 0}; // a new job: the find bar's rank range is reset
    updateRankLimits();
    onSearch(m_find->pattern(), m_find->isRegex());
    m_shownProblems = m_timeline->problems.size();
    m_problems->setProblems(m_timeline->problems);
    m_problemsDock->setVisible(!m_timeline->problems.empty());
    if (!m_timeline->problems.empty())
        m_problemsDock->raise();
    updateInfo();
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
        updateRankLimits();
    if (!(m_scene->selected() == selected))
        m_details->showEvent(m_scene.get(), m_scene->selected());
    if (m_timeline->problems.size() != m_shownProblems) {
        m_shownProblems = m_timeline->problems.size();
        m_problems->setProblems(m_timeline->problems);
    }
    updateInfo();
}

void MainWindow::updateRankLimits()
{
    int minRank = 0, maxRank = 0;
    for (size_t i = 0; i < m_timeline->workers.size(); ++i) {
        const int r = m_timeline->workers[i].info.rank;
        minRank = i == 0 ? r : std::min(minRank, r);
        maxRank = i == 0 ? r : std::max(maxRank, r);
    }
    if (minRank != m_rankLimits.first || maxRank != m_rankLimits.second) {
        m_rankLimits = {minRank, maxRank};
        m_find->setRankLimits(minRank, maxRank); // resets the rank filter to all ranks
        m_scene->setRankFilter(minRank, maxRank);
    }
}

void MainWindow::updateInfo()
{
    m_infoLabel->setText(tr("%1 workers · %L2 events · %3")
                             .arg(m_timeline->workers.size())
                             .arg(qulonglong(m_timeline->eventCount()))
                             .arg(formatDuration(m_scene->endNs() - m_scene->beginNs())));
}

void MainWindow::sceneChanged()
{
    m_view->sceneChanged();
    m_overview->sceneChanged();
}

void MainWindow::setClockMode(ClockMode mode)
{
    if (!m_timeline || !m_scene)
        return;
    m_timeline->setMode(mode); // exporters and stats follow the timeline's mode
    m_scene->setClockMode(mode);
    m_clocks->setCorrected(mode == ClockMode::Corrected);
    const QSignalBlocker block(m_rawAction);
    m_rawAction->setChecked(mode == ClockMode::Raw);
    sceneChanged();
    m_details->showEvent(m_scene.get(), m_scene->selected());
    m_stats->refresh();
}

void MainWindow::setDarkTheme(bool dark)
{
    static const QPalette lightPalette = QApplication::palette();
    if (dark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QPalette p;
        p.setColor(QPalette::Window, QColor(0x2b2d31));
        p.setColor(QPalette::WindowText, QColor(0xe6e7ea));
        p.setColor(QPalette::Base, QColor(0x1e1f22));
        p.setColor(QPalette::AlternateBase, QColor(0x26272b));
        p.setColor(QPalette::Text, QColor(0xe6e7ea));
        p.setColor(QPalette::Button, QColor(0x34363b));
        p.setColor(QPalette::ButtonText, QColor(0xe6e7ea));
        p.setColor(QPalette::Highlight, QColor(0x3d6fd6));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(0x2b2d31));
        p.setColor(QPalette::ToolTipText, QColor(0xe6e7ea));
        p.setColor(QPalette::Link, QColor(0x8ab4f8));
        p.setColor(QPalette::PlaceholderText, QColor(0x9aa0a8));
        QApplication::setPalette(p);
    } else {
        QApplication::setPalette(lightPalette);
    }
    m_view->setViewStyle(dark ? ViewStyle::darkStyle() : ViewStyle::light());
    m_overview->sceneChanged();
    m_details->showEvent(m_scene.get(), m_scene ? m_scene->selected() : EventRef{}); // link colours
    if (m_darkAction) {
        const QSignalBlocker block(m_darkAction);
        m_darkAction->setChecked(dark);
    }
    QSettings().setValue(QStringLiteral("view/dark"), dark);
}

void MainWindow::onSearch(const QString &pattern, bool regex)
{
    if (!m_scene)
        return;
    if (!m_scene->setSearch(pattern, regex))
        m_find->setStatus(tr("invalid regex"), true);
    else if (pattern.isEmpty())
        m_find->setStatus(QString(), false);
    else
        m_find->setStatus(tr("%n name(s) match", nullptr, m_scene->matchingNameCount()),
                          m_scene->matchingNameCount() == 0);
    sceneChanged();
}

void MainWindow::onStep(bool forward)
{
    if (!m_scene || !m_scene->searchActive())
        return;
    const EventRef next = m_scene->nextMatch(m_scene->selected(), forward);
    if (next.valid())
        m_view->selectEvent(next, true);
    else
        m_find->setStatus(forward ? tr("no more matches after this") : tr("no matches before this"),
                          false);
}

void MainWindow::onEventSelected(const EventRef &ref)
{
    m_details->showEvent(m_scene.get(), ref);
}

void MainWindow::onCursorTime(qint64 t, bool inside)
{
    if (!inside || !m_scene) {
        m_cursorLabel->clear();
        return;
    }
    QString text = tr("cursor %1").arg(formatDuration(t - m_scene->originNs(), 7));
    int64_t wall = 0;
    if (m_scene->wallClock(t, &wall))
        text += QStringLiteral("   ") + formatWallClock(wall, 1000);
    const ZoomControl *z = m_view->zoomControl();
    text += tr("   view %1").arg(formatDuration(z->rangeDuration()));
    if (z->hasSelection())
        text += tr("   selection %1").arg(formatDuration(z->selectionEnd() - z->selectionStart()));
    m_cursorLabel->setText(text);
}

QString MainWindow::statusText() const
{
    return m_cursorLabel->text() + QLatin1Char('|') + m_infoLabel->text();
}

void MainWindow::showShortcuts()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("Keyboard shortcuts"));
    box.setTextFormat(Qt::RichText);
    box.setText(shortcutsHtml());
    box.exec();
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecent(const QStringList &paths)
{
    QStringList recent = recentFiles();
    const QString entry = paths.join(QLatin1Char('\n'));
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > 10)
        recent.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString &entry : recent) {
        const QStringList paths = entry.split(QLatin1Char('\n'));
        QString label = paths.front();
        if (paths.size() > 1)
            label += tr(" (+%1 more)").arg(paths.size() - 1);
        m_recentMenu->addAction(label, this, [this, paths] { openPaths(paths); });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
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

} // namespace syncline::ui
