// MainWindow: opening jobs, windows and comparisons, and taking the loader's results (split
// from mainwindow.cpp by theme; the class is declared in mainwindow.h).
#include "mainwindow.h"

#include "clockpanel.h"
#include "collectivespread.h"
#include "comparecontroller.h"
#include "comparepanel.h"
#include "detailspanel.h"
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
#include "timeformat.h"
#include "timelineview.h"

#include "timeline/report/legendorder.h"
#include "timeline/report/stats.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
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

void MainWindow::openPaths(const QStringList &paths, const QString &alignOn, bool correct,
                           bool align)
{
    openWindow(paths, {}, alignOn, correct, align);
}

void MainWindow::openWindow(const QStringList &paths, const LoadWindow &window,
                            const QString &alignOn, bool correct, bool align)
{
    if (paths.isEmpty())
        return;
    m_window = window;
    m_sources = paths;
    m_alignOn = alignOn;
    m_correct = correct;
    setAlign(align);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_progress->show();
    m_cancel->show();
    m_infoLabel->setText(tr("loading %1…").arg(QFileInfo(paths.front()).fileName()));
    m_loader->start(paths, alignOn, correct, window, m_align);
}

void MainWindow::openCompare(const QStringList &pathsA, const QStringList &pathsB,
                             const QString &alignOn, bool correct, bool align)
{
    if (pathsA.isEmpty() || pathsB.isEmpty())
        return;
    m_window = {}; // a comparison reads both runs whole
    m_alignOn = alignOn;
    m_correct = correct;
    setAlign(align);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_progress->show();
    m_cancel->show();
    m_infoLabel->setText(
        tr("loading %1 and %2…")
            .arg(QFileInfo(pathsA.front()).fileName(), QFileInfo(pathsB.front()).fileName()));
    m_sources = pathsA;
    m_compareB = pathsB;
    m_loader->startCompare(pathsA, pathsB, alignOn, correct, nullptr, m_align);
}

void MainWindow::compareWith(const QStringList &pathsB)
{
    if (pathsB.isEmpty())
        return;
    // A: the run on screen (the comparison's A when one is shown); a live job cannot be one.
    std::shared_ptr<const Timeline> a = m_compare->active() ? m_compare->runA() : m_timeline;
    const QStringList pathsA = m_compare->active() ? m_compare->pathsA() : m_sources;
    if (!a || m_live || pathsA.isEmpty()) {
        statusBar()->showMessage(tr("Open a run first (File ▸ Open): it becomes A."), 5000);
        return;
    }
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_infoLabel->setText(tr("loading %1…").arg(QFileInfo(pathsB.front()).fileName()));
    m_sources = pathsA;
    m_compareB = pathsB;
    m_loader->startCompare(pathsA, pathsB, m_alignOn, m_correct, a, m_align);
}

void MainWindow::onCompareLoaded(std::shared_ptr<const Timeline> a,
                                 std::shared_ptr<const Timeline> b, bool cancelled,
                                 const QString &fatal)
{
    m_progress->hide();
    m_cancel->hide();
    if (cancelled || !a || !b) {
        m_infoLabel->setText(cancelled ? tr("loading cancelled") : tr("could not load"));
        if (!cancelled)
            QMessageBox::warning(this, tr("Cannot compare"),
                                 fatal.isEmpty() ? tr("Nothing could be loaded.") : fatal);
        emit loadFinished(false);
        return;
    }
    const ClockMode mode = m_scene ? m_scene->clockMode() : ClockMode::Corrected;
    // The combined view is arranged off the GUI thread: loadFinished when it arrives
    // (showCompared).
    m_infoLabel->setText(tr("arranging A and B…"));
    m_compareArriving = true;
    m_compare->setRuns(std::move(a), std::move(b), m_sources, m_compareB, mode);
}

// The combined A/B timeline (a new comparison, another anchor or layout): shown like a loaded
// job, in the clock mode and view range it replaces when it replaces a comparison.
void MainWindow::showCompared(std::shared_ptr<Timeline> combined)
{
    const bool again = m_scene && m_timeline && m_timeline->workers.size() &&
                       !m_timeline->workers.front().info.run.empty();
    const ClockMode mode = m_scene ? m_scene->clockMode() : ClockMode::Corrected;
    const int64_t start = m_view->zoomControl()->rangeStart();
    const int64_t end = m_view->zoomControl()->rangeEnd();
    m_showingCompare = true;
    showTimeline(std::move(combined), m_compare->pathsA(), false);
    m_showingCompare = false;
    if (mode == ClockMode::Raw)
        setClockMode(ClockMode::Raw);
    if (again && end > start)
        m_view->zoomControl()->setRange(start, end);
    const auto name = [](const QStringList &p) { return QFileInfo(p.front()).fileName(); };
    setWindowTitle(
        tr("%1 vs %2 — syncline").arg(name(m_compare->pathsA()), name(m_compare->pathsB())));
    if (m_compareArriving) {
        m_compareArriving = false;
        m_compareDock->show();
        m_compareDock->raise();
        emit loadFinished(true);
    }
}

void MainWindow::reloadAlignedOn(const QString &pattern)
{
    const bool align = m_align || !pattern.isEmpty();
    if (m_compare->active()) {
        openCompare(m_compare->pathsA(), m_compare->pathsB(), pattern, true, align);
        return;
    }
    if (!m_sources.isEmpty())
        openWindow(m_sources, m_window, pattern, true, align);
}

void MainWindow::reloadWithAlignment(bool align)
{
    if (align == m_align || m_live) {
        setAlign(m_align); // the menu shows what the job on screen has
        return;
    }
    const QString pattern = align ? m_alignOn : QString();
    if (m_compare->active()) {
        openCompare(m_compare->pathsA(), m_compare->pathsB(), pattern, m_correct, align);
        return;
    }
    if (!m_sources.isEmpty())
        openWindow(m_sources, m_window, pattern, m_correct, align);
    else
        setAlign(m_align);
}

void MainWindow::setAlign(bool align)
{
    m_align = align;
    MainMenus::setChecked(m_menus->alignCollectivesAction(), align);
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
    m_menus->addRecent(m_sources);
    setTimeline(std::move(timeline), m_sources);
    emit loadFinished(true);
}

} // namespace syncline::ui
