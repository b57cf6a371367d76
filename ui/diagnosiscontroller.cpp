#include "diagnosiscontroller.h"

#include <QtConcurrent>

#include <algorithm>

namespace syncline::ui {

DiagnosisController::DiagnosisController(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<DiagnosisResult>::finished, this,
            &DiagnosisController::finished);
    m_liveTimer.setSingleShot(true);
    connect(&m_liveTimer, &QTimer::timeout, this, &DiagnosisController::snapshotLive);
}

DiagnosisController::~DiagnosisController()
{
    m_watcher.waitForFinished();
}

void DiagnosisController::request(std::shared_ptr<const Timeline> timeline, ClockMode mode)
{
    m_live.reset();
    m_liveTimer.stop();
    m_timeline = std::move(timeline);
    m_mode = mode;
    ++m_jobId; // anything still running is now stale
    if (!m_timeline) {
        m_pending = false;
        m_result = {};
        return;
    }
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    start();
}

void DiagnosisController::liveChanged(std::shared_ptr<const Timeline> live, ClockMode mode)
{
    m_live = std::move(live);
    m_mode = mode;
    if (m_liveTimer.isActive())
        return;
    const qint64 gap = std::max<qint64>(kMinLiveGapMs, 10 * m_lastCostMs);
    const qint64 elapsed = m_sinceLive.isValid() ? m_sinceLive.elapsed() : gap;
    m_liveTimer.start(int(std::max<qint64>(0, gap - elapsed)));
}

// A copy of the live Timeline (O(events)): the job must not read what the GUI thread mutates.
void DiagnosisController::snapshotLive()
{
    if (!m_live)
        return;
    std::shared_ptr<const Timeline> live = m_live;
    request(std::make_shared<const Timeline>(*live), m_mode);
    m_live = std::move(live); // request() forgets it; keep following
    m_sinceLive.start();
}

void DiagnosisController::cancel()
{
    ++m_jobId;
    m_pending = false;
    m_liveTimer.stop();
    m_live.reset();
    m_timeline.reset();
}

void DiagnosisController::start()
{
    const uint64_t id = m_jobId;
    const ClockMode mode = m_mode;
    std::shared_ptr<const Timeline> timeline = m_timeline;
    emit started();
    m_watcher.setFuture(QtConcurrent::run([id, mode, timeline] {
        QElapsedTimer cost;
        cost.start();
        DiagnoseQuery query;
        query.mode = mode;
        auto diagnosis = std::make_shared<const Diagnosis>(Diagnoser::run(*timeline, query));
        auto series = std::make_shared<const StepSeries>(StepSeries::from(*diagnosis));
        return DiagnosisResult{
            id, mode, timeline, std::move(diagnosis), std::move(series), cost.elapsed()};
    }));
}

void DiagnosisController::finished()
{
    DiagnosisResult r = m_watcher.result();
    m_lastCostMs = r.costMs;
    if (m_pending && m_timeline) {
        m_pending = false;
        start();
    }
    if (r.jobId != m_jobId || r.mode != m_mode || r.timeline != m_timeline)
        return; // stale
    ++m_completed;
    m_result = std::move(r);
    emit ready();
}

} // namespace syncline::ui
