#include "mainmenus.h"

#include "comparecontroller.h"
#include "exportactions.h"
#include "findbar.h"
#include "liveattachment.h"
#include "mainwindow.h"
#include "openwindowdialog.h"
#include "shortcuts.h"
#include "timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace syncline::ui {

MainMenus::MainMenus(MainWindow *window) : QObject(window), m_window(window)
{
    buildFileMenu();
    buildViewMenu();
    buildClocksMenu();
    buildHelpMenu();
    rebuildRecentMenu();
}

void MainMenus::setChecked(QAction *action, bool on)
{
    if (!action)
        return;
    const QSignalBlocker block(action);
    action->setChecked(on);
}

void MainMenus::buildFileMenu()
{
    MainWindow *w = m_window;
    QMenu *file = w->menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open files…"), QKeySequence::Open, this, [w] {
        const QStringList files = QFileDialog::getOpenFileNames(
            w, tr("Open logs, config or Chrome traces"), QString(),
            tr("Timelines (*.log *.jsonl *.json *.json.gz);;All files (*)"));
        if (!files.isEmpty())
            w->openPaths(files);
    });
    file->addAction(
        tr("Open &directory…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [w] {
            const QString dir = QFileDialog::getExistingDirectory(w, tr("Open a job directory"));
            if (!dir.isEmpty())
                w->openPaths({dir});
        });
    // Compare: the run on screen is A, the chosen directory B (docs/viewer.md).
    file->addAction(tr("Co&mpare with…"), this,
                    [w] {
                        const QString dir = QFileDialog::getExistingDirectory(
                            w, tr("Compare with run B (a job directory)"));
                        if (!dir.isEmpty())
                            w->compareWith({dir});
                    })
        ->setObjectName(QStringLiteral("compareWithAction"));
    file->addAction(tr("Open &window…"), this, [w] {
        // A time window of a job (docs/viewer.md); read through the index when there is one.
        OpenWindowDialog dialog(w);
        if (!w->sources().isEmpty())
            dialog.setPath(w->sources().front());
        if (const TimelineScene *scene = w->view()->scene()) { // the visible range
            const ZoomControl *z = w->view()->zoomControl();
            dialog.beginBox()->setValue(double(z->rangeStart() - scene->originNs()) / 1e9);
            dialog.endBox()->setValue(double(z->rangeEnd() - scene->originNs()) / 1e9);
        }
        if (dialog.exec() == QDialog::Accepted)
            w->openWindow({dialog.path()}, dialog.window(), w->alignOn(), true,
                          w->alignsCollectives());
    });
    file->addAction(tr("&Attach to running job…"), this,
                    [w] { LiveAttachment::attachDialog(w); }); // live: docs/live.md
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    w->exportActions()->addTo(file->addMenu(tr("&Export")));
    connect(w->exportActions(), &ExportActions::wrote, this, [w](const QString &path) {
        w->statusBar()->showMessage(tr("wrote %1").arg(path), 5000);
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, w, &QWidget::close);
}

void MainMenus::buildViewMenu()
{
    MainWindow *w = m_window;
    QMenu *view = w->menuBar()->addMenu(tr("&View"));
    m_view = view;
    view->addAction(tr("&Find…"), QKeySequence::Find, w->findBar(), &FindBar::focusFind);
    view->addAction(tr("Fit whole job"), this, [w] { w->view()->zoomControl()->fit(); });
    m_raw = view->addAction(tr("&Raw clocks (no correction)"));
    m_raw->setCheckable(true);
    m_raw->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_raw, &QAction::toggled, w,
            [w](bool raw) { w->setClockMode(raw ? ClockMode::Raw : ClockMode::Corrected); });
    m_wall = view->addAction(tr("&Wall-clock time on the ruler"));
    m_wall->setCheckable(true);
    m_wall->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(m_wall, &QAction::toggled, w->view(), &TimelineView::setWallClock);
    // Perfetto's wheel (scrolls; Ctrl+wheel zooms) instead of Tracy's (zooms), kept.
    QAction *wheel = view->addAction(tr("Wheel scrolls, Ctrl+wheel zooms"));
    wheel->setObjectName(QStringLiteral("wheelScrollsAction"));
    wheel->setCheckable(true);
    wheel->setChecked(!QSettings().value(QStringLiteral("view/wheelZooms"), true).toBool());
    w->view()->setWheelZooms(!wheel->isChecked());
    connect(wheel, &QAction::toggled, w, [w](bool scrolls) {
        QSettings().setValue(QStringLiteral("view/wheelZooms"), !scrolls);
        w->view()->setWheelZooms(!scrolls);
    });
    view->addAction(tr("Collapse all workers"), this, [w] { w->setAllCollapsed(true); });
    view->addAction(tr("Expand all workers"), this, [w] { w->setAllCollapsed(false); });
    m_category = view->addAction(tr("Colour by &category"));
    m_category->setCheckable(true);
    m_category->setToolTip(
        tr("Names of one configured category (config event_kinds) share its colour"));
    connect(m_category, &QAction::toggled, w, [w](bool on) {
        QSettings().setValue(QStringLiteral("view/byCategory"), on);
        w->setColourByCategory(on);
    });
    // A comparison's layout (the Compare panel has the same choice).
    QAction *interleave = view->addAction(tr("&Interleave compared runs by rank"));
    interleave->setObjectName(QStringLiteral("interleaveAction"));
    interleave->setCheckable(true);
    interleave->setToolTip(
        tr("Compare: A rank 0, B rank 0, A rank 1, … instead of all A, then all B"));
    connect(interleave, &QAction::toggled, w, [w](bool on) {
        w->compareController()->setLayout(on ? CompareLayout::Interleaved : CompareLayout::Stacked);
    });
    connect(
        w->compareController(), &CompareController::combinedChanged, interleave, [w, interleave] {
            setChecked(interleave, w->compareController()->layout() == CompareLayout::Interleaved);
        });
    m_links = view->addAction(tr("&Links (messages and flows)"));
    m_links->setCheckable(true);
    m_links->setChecked(true);
    m_links->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    m_links->setToolTip(tr("Arrows from each message's send to its receive, and along flows"));
    connect(m_links, &QAction::toggled, w, [w](bool on) {
        QSettings().setValue(QStringLiteral("view/links"), on);
        w->setLinksVisible(on);
    });
    m_dark = view->addAction(tr("&Dark theme"));
    m_dark->setCheckable(true);
    connect(m_dark, &QAction::toggled, w, &MainWindow::setDarkTheme);
    view->addSeparator();
    for (QDockWidget *d : w->findChildren<QDockWidget *>())
        view->addAction(d->toggleViewAction());
}

void MainMenus::buildClocksMenu()
{
    MainWindow *w = m_window;
    QMenu *clocks = w->menuBar()->addMenu(tr("&Clocks"));
    clocks->addAction(m_raw);
    // As `--no-align` when unchecked: the job is reloaded, its view kept.
    m_alignCollectives = clocks->addAction(tr("Align clocks on &collectives"));
    m_alignCollectives->setObjectName(QStringLiteral("alignCollectivesAction"));
    m_alignCollectives->setCheckable(true);
    m_alignCollectives->setChecked(true);
    m_alignCollectives->setToolTip(
        tr("Workers without sync samples are aligned on their collectives (each collective "
           "ends at the same instant on every rank); unchecked: shown as recorded (--no-align)"));
    connect(m_alignCollectives, &QAction::toggled, w,
            [w](bool on) { w->reloadWithAlignment(on); });
    QAction *align = clocks->addAction(tr("&Align on collective…"), this, [w] {
        if (w->sources().isEmpty())
            return;
        bool ok = false;
        const QString pattern = QInputDialog::getText(
            w, tr("Align on collective"),
            tr("Align the workers' clocks on the k-th instance of the events matching (glob; "
               "without wildcards a substring), for traces without sync samples.\nEmpty: the "
               "collectives recognised by name (all_reduce, allreduce, all_gather, "
               "reduce_scatter, broadcast, barrier, all_to_all, NCCL kernels):"),
            QLineEdit::Normal, w->alignOn(), &ok);
        if (ok && pattern.trimmed() != w->alignOn())
            w->reloadAlignedOn(pattern.trimmed());
    });
    align->setObjectName(QStringLiteral("alignOnAction"));
    clocks->addAction(tr("Clear alignment"), this, [w] {
        if (!w->alignOn().isEmpty())
            w->reloadAlignedOn(QString());
    });
}

void MainMenus::addDockToggle(QDockWidget *dock)
{
    QAction *a = dock->toggleViewAction();
    if (!m_view->actions().contains(a))
        m_view->addAction(a);
}

void MainMenus::buildHelpMenu()
{
    QMenu *help = m_window->menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this,
                    &MainMenus::showShortcuts);
    help->addAction(tr("&About syncline"), this, [this] {
        QMessageBox::about(
            m_window, tr("About syncline"),
            tr("<b>syncline</b><br>One corrected global timeline from every worker's log."));
    });
}

void MainMenus::showShortcuts()
{
    QMessageBox box(m_window);
    box.setWindowTitle(tr("Keyboard shortcuts"));
    box.setTextFormat(Qt::RichText);
    box.setText(shortcutsHtml());
    box.exec();
}

QStringList MainMenus::recentFiles()
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainMenus::addRecent(const QStringList &paths)
{
    QStringList recent = recentFiles();
    const QString entry = paths.join(QLatin1Char('\n'));
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainMenus::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString &entry : recent) {
        const QStringList paths = entry.split(QLatin1Char('\n'));
        QString label = paths.front();
        if (paths.size() > 1)
            label += tr(" (+%1 more)").arg(paths.size() - 1);
        m_recentMenu->addAction(label, m_window, [w = m_window, paths] { w->openPaths(paths); });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

} // namespace syncline::ui
