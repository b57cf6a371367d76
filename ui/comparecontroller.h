// CompareController — the viewer's comparison of two runs A and B (File ▸ Compare with…,
// `syncline open A --compare B`): keeps both loaded runs, the anchor (CompareAnchor) and the
// layout (stacked / interleaved by rank), builds the combined Timeline the view shows
// (CompareTimeline: "A · rank N" and "B · rank N" groups, B shifted so its anchor lies on A's, in
// both clock modes) and computes the delta table (Compare) off the GUI thread.
// When the anchor is missing from a run (no K-th instance of its name), the runs are aligned at
// the start instead and anchorNote() says why.
// Threading: GUI thread. Both the arrangement (anchor search in both runs and modes, then the
// combined Timeline: a copy of both runs' events, about 2 s for 23M events) and the delta table
// run off the GUI thread (QtConcurrent) as jobs with an id, which get both Timelines (shared,
// const) and the anchor, layout and clock mode by value; a result whose job id is not the latest
// is dropped, and a request made while a job runs starts one more job when it ends (StatsPanel's
// pattern). Until a new arrangement arrives, the view keeps showing the previous one.
#pragma once

#include "timeline/report/compare.h"
#include "timeline/report/comparetimeline.h"

#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <memory>

namespace syncline::ui {

class CompareController : public QObject
{
    Q_OBJECT
public:
    explicit CompareController(QObject *parent = nullptr);
    ~CompareController() override;

    // Starts a comparison: arranges the combined timeline (combinedChanged, later) and computes
    // the deltas (resultReady, later), both off the GUI thread.
    void setRuns(std::shared_ptr<const Timeline> a, std::shared_ptr<const Timeline> b,
                 const QStringList &pathsA, const QStringList &pathsB, ClockMode mode);
    void clear();
    bool active() const { return bool(m_a); }
    std::shared_ptr<const Timeline> runA() const { return m_a; }
    std::shared_ptr<const Timeline> runB() const { return m_b; }
    QStringList pathsA() const { return m_pathsA; }
    QStringList pathsB() const { return m_pathsB; }
    std::shared_ptr<Timeline> combined() const { return m_combined; }

    void setAnchor(const CompareAnchor &anchor); // re-arranges the combined timeline (async)
    CompareAnchor anchor() const { return m_anchor; }
    QString anchorNote() const { return m_anchorNote; } // "" when the anchor was found
    // What B was shifted by in `mode` (global ns): anchor(A) − anchor(B).
    int64_t shiftNs(ClockMode mode) const
    {
        return mode == ClockMode::Raw ? m_shift.rawNs : m_shift.correctedNs;
    }
    // Each run's anchor from its own origin in `mode` (ns).
    int64_t anchorFromOriginNs(bool runB, ClockMode mode) const;
    void setLayout(CompareLayout layout); // re-arranges the combined timeline (async)
    // Whether an arrangement is being computed (the shown one is then not the latest request).
    bool arranging() const { return active() && m_shownArrangeId != m_arrangeId; }
    uint64_t completedArrangements() const { return m_arranged; }
    CompareLayout layout() const { return m_layout; }
    void setClockMode(ClockMode mode); // recomputes the deltas
    ClockMode clockMode() const { return m_mode; }
    std::shared_ptr<const CompareResult> result() const { return m_result; }
    uint64_t completedJobs() const { return m_completed; }

signals:
    void combinedChanged(std::shared_ptr<syncline::Timeline> combined);
    void resultReady();

private:
    struct Job
    {
        uint64_t id = 0;
        std::shared_ptr<const CompareResult> result;
    };
    // What the arrangement job computes (see rebuild()).
    struct Arrangement
    {
        uint64_t id = 0;
        std::shared_ptr<Timeline> combined;
        CompareShift shift;
        int64_t anchorNs[2][2] = {};
        QString note;
    };
    static Arrangement arrange(uint64_t id, const Timeline &a, const Timeline &b,
                               const CompareAnchor &anchor, CompareLayout layout);
    void rebuild();
    void arrangeFinished();
    void startDeltas();
    void deltasFinished();

    std::shared_ptr<const Timeline> m_a, m_b;
    QStringList m_pathsA, m_pathsB;
    std::shared_ptr<Timeline> m_combined;
    CompareAnchor m_anchor;
    CompareShift m_shift;
    int64_t m_anchorNs[2][2] = {}; // [run][mode index: 0 corrected, 1 raw], global ns
    QString m_anchorNote;
    CompareLayout m_layout = CompareLayout::Stacked;
    ClockMode m_mode = ClockMode::Corrected;
    std::shared_ptr<const CompareResult> m_result;
    QFutureWatcher<Job> m_watcher;
    QFutureWatcher<Arrangement> m_arrangeWatcher;
    uint64_t m_arrangeId = 0;      // the latest arrangement asked for
    uint64_t m_shownArrangeId = 0; // the one combined() holds
    uint64_t m_arranged = 0;
    bool m_arrangePending = false;
    uint64_t m_jobId = 0;
    uint64_t m_completed = 0;
    bool m_pending = false;
};

} // namespace syncline::ui
