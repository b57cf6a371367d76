// MainWindow: the diagnosis of the job on screen (steps, culprits, the per-rank chart) — asking
// for it, taking its result into the panels and the view, zooming to a step.
#include "mainwindow.h"

#include "culpritmarks.h"
#include "diagnosiscontroller.h"
#include "statspanel.h"
#include "stepgraph.h"
#include "steppanel.h"
#include "timelineview.h"

#include <QAction>
#include <QDockWidget>

#include <algorithm>

namespace syncline::ui {

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
