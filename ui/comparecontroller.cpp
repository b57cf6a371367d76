#include "comparecontroller.h"

#include <QtConcurrent>

namespace syncline::ui {

CompareController::CompareController(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Job>::finished, this, &CompareController::deltasFinished);
    connect(&m_arrangeWatcher, &QFutureWatcher<Arrangement>::finished, this,
            &CompareController::arrangeFinished);
}

CompareController::~CompareController()
{
    m_watcher.waitForFinished();
    m_arrangeWatcher.waitForFinished();
}

void CompareController::setRuns(std::shared_ptr<const Timeline> a,
                                std::shared_ptr<const Timeline> b, const QStringList &pathsA,
                                const QStringList &pathsB, ClockMode mode)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_pathsA = pathsA;
    m_pathsB = pathsB;
    m_mode = mode;
    m_result.reset();
    rebuild();
    startDeltas();
}

void CompareController::clear()
{
    ++m_jobId;
    m_shownArrangeId = ++m_arrangeId;
    m_a.reset();
    m_b.reset();
    m_combined.reset();
    m_result.reset();
    m_pathsA.clear();
    m_pathsB.clear();
    m_anchorNote.clear();
}

void CompareController::setAnchor(const CompareAnchor &anchor)
{
    m_anchor = anchor;
    if (active())
        rebuild();
}

void CompareController::setLayout(CompareLayout layout)
{
    if (layout == m_layout)
        return;
    m_layout = layout;
    if (active())
        rebuild();
}

void CompareController::setClockMode(ClockMode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    if (active())
        startDeltas();
}

int64_t CompareController::anchorFromOriginNs(bool runB, ClockMode mode) const
{
    const Timeline *t = runB ? m_b.get() : m_a.get();
    if (!t)
        return 0;
    const int mi = mode == ClockMode::Raw ? 1 : 0;
    return m_anchorNs[runB ? 1 : 0][mi] - t->originNs(mode);
}

// The anchor in both runs and both clock modes (the start where it is missing), then the
// combined timeline. Runs on a worker thread: reads A and B only.
CompareController::Arrangement CompareController::arrange(uint64_t id, const Timeline &a,
                                                          const Timeline &b,
                                                          const CompareAnchor &anchor,
                                                          CompareLayout layout)
{
    Arrangement out;
    out.id = id;
    CompareAnchor used = anchor;
    const Timeline *runs[2] = {&a, &b};
    const ClockMode modes[2] = {ClockMode::Corrected, ClockMode::Raw};
    for (int attempt = 0; attempt < 2; ++attempt) {
        bool ok = true;
        for (int r = 0; r < 2 && ok; ++r)
            for (int m = 0; m < 2 && ok; ++m) {
                std::string why;
                const auto t = used.find(*runs[r], modes[m], &why);
                if (t) {
                    out.anchorNs[r][m] = *t;
                    continue;
                }
                ok = false;
                if (!used.byStart())
                    out.note = tr("anchor %1: run %2: %3; aligned at the start instead")
                                   .arg(QString::fromStdString(used.text()),
                                        r ? QStringLiteral("B") : QStringLiteral("A"),
                                        QString::fromStdString(why));
            }
        if (ok)
            break;
        if (used.byStart()) { // a run without events: nothing to align
            for (auto &run : out.anchorNs)
                run[0] = run[1] = 0;
            break;
        }
        used = CompareAnchor{};
    }
    out.shift.correctedNs = out.anchorNs[0][0] - out.anchorNs[1][0];
    out.shift.rawNs = out.anchorNs[0][1] - out.anchorNs[1][1];
    out.combined = CompareTimeline::combine(a, b, out.shift, layout);
    return out;
}

void CompareController::rebuild()
{
    ++m_arrangeId;
    if (m_arrangeWatcher.isRunning()) {
        m_arrangePending = true; // start again (with the latest anchor and layout) when it ends
        return;
    }
    const uint64_t id = m_arrangeId;
    auto a = m_a, b = m_b;
    const CompareAnchor anchor = m_anchor;
    const CompareLayout layout = m_layout;
    m_arrangeWatcher.setFuture(QtConcurrent::run(
        [id, a, b, anchor, layout] { return arrange(id, *a, *b, anchor, layout); }));
}

void CompareController::arrangeFinished()
{
    Arrangement r = m_arrangeWatcher.result();
    if (m_arrangePending) {
        m_arrangePending = false;
        if (active())
            rebuild();
    }
    if (r.id != m_arrangeId || !active())
        return; // stale
    ++m_arranged;
    m_shownArrangeId = r.id;
    m_shift = r.shift;
    std::copy(&r.anchorNs[0][0], &r.anchorNs[0][0] + 4, &m_anchorNs[0][0]);
    m_anchorNote = r.note;
    m_combined = std::move(r.combined);
    emit combinedChanged(m_combined);
}

void CompareController::startDeltas()
{
    ++m_jobId;
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    const uint64_t id = m_jobId;
    CompareQuery q;
    q.mode = m_mode;
    q.anchor = m_anchor;
    auto a = m_a, b = m_b;
    m_watcher.setFuture(QtConcurrent::run([id, q, a, b] {
        return Job{id, std::make_shared<const CompareResult>(Compare::compute(*a, *b, q))};
    }));
}

void CompareController::deltasFinished()
{
    Job j = m_watcher.result();
    if (m_pending) {
        m_pending = false;
        if (active())
            startDeltas();
    }
    if (j.id != m_jobId)
        return; // stale
    ++m_completed;
    m_result = std::move(j.result);
    emit resultReady();
}

} // namespace syncline::ui
