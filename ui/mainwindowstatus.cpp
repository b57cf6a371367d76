// MainWindow: the status bar (cursor time, view span, the measure, the load's progress and
// Cancel, the problems button) and the problems it reports (the Problems dock's list, opening a
// problem's place, live workers' states).
#include "mainwindow.h"

#include "loadcontroller.h"
#include "problemspanel.h"
#include "selectionmeasure.h"
#include "timeformat.h"
#include "timelineview.h"
#include "workerstatus.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include <algorithm>

namespace syncline::ui {

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

} // namespace syncline::ui
