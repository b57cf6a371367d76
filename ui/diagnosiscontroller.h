// DiagnosisController — runs Diagnoser::run (timeline/report/diagnosis.h) off the GUI thread
// for the viewer's step graph, heat map, culprit marks and the blame chart, and derives what they
// need from it in the same job (StepSeries: per step the median of the workers' own durations).
// Jobs carry an id; a result whose id is not the latest, or whose timeline or clock mode is not
// the one asked for last, is dropped (hotspot's pattern, as in StatsPanel). A request while a job
// runs marks it pending: the job that starts when it ends computes the latest request only.
// Diagnoser has no stop flag: cancel() makes the running job's result stale (it is dropped when
// it arrives) and forgets a pending request.
// Live jobs: the Timeline on screen is mutated on the GUI thread, so the job gets a copy
// (liveChanged() takes one at most every max(2 s, 10 × the last job's cost)).
// Threading: create and call on the GUI thread; ready() arrives on the GUI thread. The job
// reads only its own shared_ptr to a const Timeline. The destructor waits for a running job.
#pragma once

#include "stepseries.h"

#include "timeline/report/diagnosis.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <memory>

namespace syncline::ui {

// A finished diagnosis and what the viewer derives from it.
struct DiagnosisResult
{
    uint64_t jobId = 0;
    ClockMode mode = ClockMode::Corrected;
    std::shared_ptr<const Timeline> timeline; // the one it was computed on
    std::shared_ptr<const Diagnosis> diagnosis;
    std::shared_ptr<const StepSeries> series;
    qint64 costMs = 0;
};

class DiagnosisController : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMinLiveGapMs = 2000;

    explicit DiagnosisController(QObject *parent = nullptr);
    ~DiagnosisController() override;
    // Diagnose `timeline` in `mode` (a loaded job: it must not be mutated while shown).
    void request(std::shared_ptr<const Timeline> timeline, ClockMode mode);
    // A live job: `live` changed (a commit); a copy is diagnosed, throttled.
    void liveChanged(std::shared_ptr<const Timeline> live, ClockMode mode);
    void cancel(); // drops the running job's result and any pending request
    bool isRunning() const { return m_watcher.isRunning(); }
    // The latest accepted result (empty before the first).
    const DiagnosisResult &result() const { return m_result; }
    uint64_t completedJobs() const { return m_completed; }

signals:
    void ready(); // result() holds a new diagnosis
    void started();

private:
    void start();
    void finished();
    void snapshotLive();

    QFutureWatcher<DiagnosisResult> m_watcher;
    std::shared_ptr<const Timeline> m_timeline; // of the latest request
    std::shared_ptr<const Timeline> m_live;     // the live Timeline (copied when the timer fires)
    ClockMode m_mode = ClockMode::Corrected;
    uint64_t m_jobId = 0;
    uint64_t m_completed = 0;
    bool m_pending = false;
    DiagnosisResult m_result;
    QTimer m_liveTimer;
    QElapsedTimer m_sinceLive;
    qint64 m_lastCostMs = 0;
};

} // namespace syncline::ui
