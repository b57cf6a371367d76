// Tests the step graph's geometry and binning, the heat map's binning and colours, worker states
// and the close-record warnings, and culprit-mark placement — plain functions, no window.
#include "testjob.h"

#include "ui/culpritmarks.h"
#include "ui/diagnosiscontroller.h"
#include "ui/stepgraph.h"
#include "ui/stepheatmap.h"
#include "ui/stepseries.h"
#include "ui/timelinegeometry.h"
#include "ui/timelinescene.h"
#include "ui/workerstatus.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace syncline;
using namespace syncline::ui;

class TstStepViews : public QObject
{
    Q_OBJECT
private slots:
    void seriesTakesMediansOverWorkers();
    void graphOneSlotPerStep();
    void graphBinsStepsPerPixelColumn();
    void graphCostFollowsPixels();
    void heatBinsKeepTheMax_data();
    void heatBinsKeepTheMax();
    void heatMapOnThousandRanksShowsTheSlowRow();
    void heatColours();
    void crashedEndedFinished();
    void liveStates();
    void culpritMarksOnTheCollectiveRow();
    void controllerKeepsOnlyTheLatestJob();
};

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A diagnosis with `steps` steps of 100 ns on `workers` workers, worker `slow` taking `factor`
// × as long in compute, the others waiting for it.
Diagnosis makeDiagnosis(size_t steps, size_t workers, size_t slow, float factor)
{
    Diagnosis d;
    d.workerCount = workers;
    d.cellDurationNs.assign(steps * workers, 0);
    d.cellWaitNs.assign(steps * workers, 0);
    for (size_t k = 0; k < steps; ++k) {
        DiagnosisStep s;
        s.index = int64_t(k);
        s.beginNs = int64_t(k) * 1000;
        s.endNs = s.beginNs + int64_t(100 * factor);
        s.whatIfEndNs = s.beginNs + 100;
        d.steps.push_back(s);
        for (size_t w = 0; w < workers; ++w) {
            d.cellDurationNs[k * workers + w] = 100 * factor;
            d.cellWaitNs[k * workers + w] = w == slow ? 0 : 100 * factor - 100;
        }
    }
    return d;
}

StepSeries series(std::vector<int64_t> maxNs, std::vector<int64_t> median,
                  std::vector<int64_t> whatIf)
{
    StepSeries s;
    s.maxNs = std::move(maxNs);
    s.medianNs = std::move(median);
    s.whatIfNs = std::move(whatIf);
    s.computeMedianNs = s.medianNs;
    for (size_t k = 0; k < s.maxNs.size(); ++k) {
        s.beginNs.push_back(int64_t(k) * 1000);
        s.endNs.push_back(int64_t(k) * 1000 + s.maxNs[k]);
    }
    return s;
}

} // namespace

void TstStepViews::seriesTakesMediansOverWorkers()
{
    Diagnosis d = makeDiagnosis(2, 4, 2, 1.5f);
    // Step 1: durations 10, 40, 20, NaN (worker 3 has no such step) → lower median 20.
    d.cellDurationNs[4] = 10;
    d.cellDurationNs[5] = 40;
    d.cellDurationNs[6] = 20;
    d.cellDurationNs[7] = kNaN;
    d.cellWaitNs[4] = 5;
    d.cellWaitNs[5] = 0;
    d.cellWaitNs[6] = 30; // more wait than duration: compute 0
    const StepSeries s = StepSeries::from(d);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s.maxNs[0], int64_t(150));
    QCOMPARE(s.medianNs[0], int64_t(150));
    QCOMPARE(s.computeMedianNs[0], int64_t(100)); // three of 100 and one of 150
    QCOMPARE(s.whatIfNs[0], int64_t(100));
    QCOMPARE(s.medianNs[1], int64_t(20));
    QCOMPARE(s.computeMedianNs[1], int64_t(5)); // {5, 40, 0} → 5
    QCOMPARE(s.beginNs[1], int64_t(1000));
}

void TstStepViews::graphOneSlotPerStep()
{
    const StepSeries s = series({10, 20, 40, 20}, {10, 10, 20, 10}, {10, 20, 30, 20});
    const StepGraphGeometry g = computeStepGraph(s, QRectF(0, 0, 100, 40));
    QCOMPARE(g.yMaxNs, int64_t(40));
    QCOMPARE(g.bars.size(), size_t(4));
    // Slots of 25 px, bars 80 % of them (20 px) centred: x = 2.5 + 25·k.
    QCOMPARE(g.bars[0], QRectF(2.5, 30, 20, 10));
    QCOMPARE(g.bars[2], QRectF(52.5, 0, 20, 40));
    QCOMPARE(g.median[1], QPointF(37.5, 30));
    QCOMPARE(g.whatIf[2], QPointF(62.5, 10));
    QCOMPARE(g.columnAt(0), 0);
    QCOMPARE(g.columnAt(74.9), 2);
    QCOMPARE(g.columnAt(100), -1);
    QCOMPARE(g.columnStep[3], size_t(3));
}

void TstStepViews::graphBinsStepsPerPixelColumn()
{
    // 10 steps on 4 px: columns hold steps [0,2), [2,5), [5,7), [7,10); each shows its max.
    std::vector<int64_t> maxNs = {1, 2, 3, 9, 4, 5, 5, 6, 7, 8};
    std::vector<int64_t> median(10, 1);
    median[6] = 4;
    const StepSeries s = series(maxNs, median, maxNs);
    const StepGraphGeometry g = computeStepGraph(s, QRectF(10, 0, 4, 9));
    QCOMPARE(g.bars.size(), size_t(4));
    QCOMPARE(g.columnFirst, (std::vector<size_t>{0, 2, 5, 7, 10}));
    QCOMPARE(g.columnStep, (std::vector<size_t>{1, 3, 5, 9}));
    QCOMPARE(g.bars[1], QRectF(11, 0, 1, 9)); // step 3's 9 ns is the top
    QCOMPARE(g.bars[0], QRectF(10, 7, 1, 2));
    QCOMPARE(g.median[2], QPointF(12.5, 5)); // max of the medians of steps 5 and 6
    QCOMPARE(g.columnAt(11.5), 1);
}

void TstStepViews::graphCostFollowsPixels()
{
    const size_t steps = 20000, workers = 1024;
    Diagnosis d = makeDiagnosis(steps, workers, 37, 1.3f);
    const StepSeries s = StepSeries::from(d);
    QElapsedTimer t;
    t.start();
    const StepGraphGeometry g = computeStepGraph(s, QRectF(120, 18, 1400, 90));
    const qint64 graphMs = t.elapsed();
    QCOMPARE(g.bars.size(), size_t(1400)); // one per pixel column, not one per step
    // The heat map: bins (built once per diagnosis and size) never exceed the pixels.
    std::vector<size_t> rows(workers);
    for (size_t w = 0; w < workers; ++w)
        rows[w] = w;
    t.restart();
    const HeatBins b = binHeatMap(d, s, HeatMode::Compute, rows, 1400, 300);
    const qint64 binMs = t.elapsed();
    QCOMPARE(b.cols, 1400);
    QCOMPARE(b.rows, 300);
    qInfo("20,000 steps × 1,024 ranks: step graph geometry %lld ms, heat map bins %lld ms (once "
          "per diagnosis and size)",
          graphMs, binMs);
    QVERIFY(graphMs < 16);
}

void TstStepViews::heatBinsKeepTheMax_data()
{
    QTest::addColumn<int>("maxCols");
    QTest::addColumn<int>("maxRows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("hotRow");
    QTest::newRow("one bin per cell") << 100 << 100 << 6 << 8 << 5;
    QTest::newRow("two workers a row") << 100 << 4 << 6 << 4 << 2;
    QTest::newRow("three steps a column") << 2 << 8 << 2 << 8 << 5;
    QTest::newRow("one bin") << 1 << 1 << 1 << 1 << 0;
}

// 6 steps × 8 workers, worker 5 at 1.5 × the median compute: its bin row holds 1.5, all else 1.
void TstStepViews::heatBinsKeepTheMax()
{
    QFETCH(int, maxCols);
    QFETCH(int, maxRows);
    QFETCH(int, cols);
    QFETCH(int, rows);
    QFETCH(int, hotRow);
    Diagnosis d = makeDiagnosis(6, 8, 5, 1.5f);
    d.cellDurationNs[0 * 8 + 1] = kNaN; // worker 1 misses step 0
    const StepSeries s = StepSeries::from(d);
    const std::vector<size_t> order = {0, 1, 2, 3, 4, 5, 6, 7};
    const HeatBins b = binHeatMap(d, s, HeatMode::Compute, order, maxCols, maxRows);
    QCOMPARE(b.cols, cols);
    QCOMPARE(b.rows, rows);
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c) {
            if (cols == 6 && rows == 8 && r == 1 && c == 0) {
                QVERIFY(std::isnan(b.at(r, c))); // no cell in this bin
                continue;
            }
            QCOMPARE(b.at(r, c), r == hotRow ? 1.5f : 1.0f);
        }
    // Wait: worker 5 waited nothing; the others 50 of a 150 median.
    const HeatBins w = binHeatMap(d, s, HeatMode::Wait, order, 100, 100);
    QCOMPARE(w.at(5, 3), 0.0f);
    QCOMPARE(w.at(4, 3), 50.0f / 150.0f);
    // Duration: every rank's step lasts as long (the collective ends it): all at 1.
    const HeatBins du = binHeatMap(d, s, HeatMode::Duration, order, 100, 100);
    QCOMPARE(du.at(5, 3), 1.0f);
    QCOMPARE(du.at(4, 3), 1.0f);
}

void TstStepViews::heatMapOnThousandRanksShowsTheSlowRow()
{
    Diagnosis d = makeDiagnosis(400, 1024, 37, 1.3f);
    const StepSeries s = StepSeries::from(d);
    std::vector<size_t> order(1024);
    for (size_t w = 0; w < order.size(); ++w)
        order[w] = w;
    // 1,024 rows on 256 px: 4 workers a row; rank 37 is in row 9 (workers 36..39).
    const HeatBins b = binHeatMap(d, s, HeatMode::Compute, order, 400, 256);
    QCOMPARE(b.rows, 256);
    for (int r = 0; r < b.rows; ++r) {
        QCOMPARE(b.at(r, 17) > 1.2f, r == 9);
        QCOMPARE(b.rowMeans[size_t(r)], r == 9 ? 1.3f : 1.0f); // the row summary
    }
}

void TstStepViews::heatColours()
{
    QCOMPARE(heatColour(1.0f, HeatMode::Compute), qRgb(0xf7, 0xf7, 0xf7));
    QCOMPARE(heatColour(1.05f, HeatMode::Compute), qRgb(0xf7, 0xf7, 0xf7)); // within 5 %
    QCOMPARE(heatColour(0.95f, HeatMode::Duration), qRgb(0xf7, 0xf7, 0xf7));
    QCOMPARE(heatColour(1.15f, HeatMode::Compute), // half way from the band to full red
             qRgb((0xf7 + 0xb2 + 1) / 2, (0xf7 + 0x18 + 1) / 2, (0xf7 + 0x2b + 1) / 2));
    QCOMPARE(heatColour(1.25f, HeatMode::Compute), qRgb(0xb2, 0x18, 0x2b));
    QCOMPARE(heatColour(9.0f, HeatMode::Duration), qRgb(0xb2, 0x18, 0x2b));
    QCOMPARE(heatColour(0.75f, HeatMode::Compute), qRgb(0x21, 0x66, 0xac));
    QCOMPARE(heatColour(0.0f, HeatMode::Wait), qRgb(0xf7, 0xf7, 0xf7));
    QCOMPARE(heatColour(kNaN, HeatMode::Wait), qRgb(0x9a, 0x9a, 0x9a));
}

// makeSmallJob: worker 0 closed nothing and has no open event (ended), worker 1 has an open
// all_reduce (crashed); with a close record worker 0 is finished.
void TstStepViews::crashedEndedFinished()
{
    auto tl = testjob::makeSmallJob();
    tl->workers[0].info.closedCleanly = false;
    tl->workers[1].info.closedCleanly = false;
    std::vector<WorkerStatus> s = WorkerStatuses::of(*tl);
    QCOMPARE(s, (std::vector<WorkerStatus>{WorkerStatus::Ended, WorkerStatus::Crashed}));
    tl->workers[0].info.closedCleanly = true;
    s = WorkerStatuses::of(*tl);
    QCOMPARE(s[0], WorkerStatus::Finished);
    QCOMPARE(WorkerStatuses::name(s[1]), QStringLiteral("crashed"));
    const std::vector<LoadProblem> warn = WorkerStatuses::closeWarnings(*tl, s);
    QCOMPARE(warn.size(), size_t(1));
    QCOMPARE(warn[0].severity, LoadProblem::Severity::Warning);
    QCOMPARE(warn[0].kind, LoadProblem::Kind::NoCloseRecord);
    QCOMPARE(warn[0].tid, int64_t(200));
    QCOMPARE(warn[0].localNs, int64_t(9600)); // its last begun event: the open allreduce
    QVERIFY(warn[0].message.find("crashed") != std::string::npos);
    tl->workers[1].info.kind = SourceKind::ChromeTrace; // no close record to miss
    QCOMPARE(WorkerStatuses::of(*tl)[1], WorkerStatus::Unknown);
    // The scene keeps the states; the header tint follows them.
    TimelineScene scene(tl);
    scene.setWorkerStatuses({WorkerStatus::Finished, WorkerStatus::Crashed});
    QCOMPARE(scene.workerStatus(1), WorkerStatus::Crashed);
    QCOMPARE(scene.workerStatus(7), WorkerStatus::Unknown);
}

void TstStepViews::liveStates()
{
    auto tl = testjob::makeSmallJob();
    tl->workers[1].info.closedCleanly = false;
    tl->workers[0].info.sourceFile = "a.log";
    tl->workers[1].info.sourceFile = "b.log";
    std::vector<LiveWorkerStatus> live(2);
    live[0].sourceFile = "b.log";
    live[0].state = WorkerState::EndedWithoutClose;
    live[1].sourceFile = "a.log";
    live[1].state = WorkerState::Silent;
    const std::vector<WorkerStatus> s = WorkerStatuses::ofLive(*tl, live);
    QCOMPARE(s, (std::vector<WorkerStatus>{WorkerStatus::Silent, WorkerStatus::Crashed}));
    live[0].state = WorkerState::Running;
    QCOMPARE(WorkerStatuses::ofLive(*tl, live)[1], WorkerStatus::Running);
    QVERIFY(WorkerStatuses::closeWarnings(*tl, WorkerStatuses::ofLive(*tl, live)).empty());
}

// Worker 1 (rank 1) was last at its allreduce (global 9100): a mark on that row when zoomed in
// enough, none when the marks would crowd.
void TstStepViews::culpritMarksOnTheCollectiveRow()
{
    auto tl = testjob::makeSmallJob();
    tl->kinds.assign(tl->names.size(), NameKind{});
    tl->kinds[tl->names.intern("allreduce")].collective = true;
    TimelineScene scene(tl);
    Diagnosis d;
    d.workerCount = 2;
    d.lastArrivals = {{}, {9100}};
    DiagnosisRank r0, r1;
    r0.rank = 0;
    r1.rank = 1;
    r1.culprit = true;
    d.ranks = {r0, r1};
    d.culprits = {1};
    scene.setCulpritMarks(CulpritMarks::build(scene, d));
    const CulpritMarks &c = scene.culpritMarks();
    QVERIFY(c.isCulprit(1));
    QVERIFY(!c.isCulprit(0));
    QCOMPARE(c.marks(1).size(), size_t(1));
    QCOMPARE(c.marks(1)[0].model, 2); // worker 1's thread
    QCOMPARE(c.marks(1)[0].depth, 0);
    GeometryRequest req;
    req.rangeStart = 0;
    req.rangeEnd = 20000;
    req.width = 1000;
    req.height = 1000;
    const auto placed = CulpritMarks::place(scene, req);
    QCOMPARE(placed.size(), size_t(1));
    const int row = scene.layout().rowOf(2, 0);
    QCOMPARE(placed[0].tip, QPointF(455, scene.layout().rows()[size_t(row)].y));
    QCOMPARE(computeGeometry(scene, req).culpritMarks.size(), size_t(1));
    const QString tip = CulpritMarks::tooltipAt(scene, req, placed[0].tip + QPointF(1, 3));
    QVERIFY2(tip.contains(QStringLiteral("last to arrive at allreduce: the others waited")),
             qPrintable(tip));
    req.width = 4; // one mark on 4 px: fewer than kMinSpacingPx apart on average → hidden
    QVERIFY(CulpritMarks::place(scene, req).empty());
    scene.setClockMode(ClockMode::Raw); // the marks are in corrected times
    req.width = 1000;
    QVERIFY(CulpritMarks::place(scene, req).empty());
}

// Two requests in a row: the first job's result is stale and dropped, the second's accepted;
// a cancelled request never arrives; a live request diagnoses a copy.
void TstStepViews::controllerKeepsOnlyTheLatestJob()
{
    DiagnosisController c;
    QSignalSpy ready(&c, &DiagnosisController::ready);
    QVERIFY(ready.isValid());
    std::shared_ptr<const Timeline> first = testjob::makeDenseJob(4, 3000, 1000);
    std::shared_ptr<const Timeline> second = testjob::makeDenseJob(3, 300, 1000);
    c.request(first, ClockMode::Corrected);
    c.request(second, ClockMode::Corrected);
    QVERIFY(ready.wait(30000));
    QTRY_VERIFY(!c.isRunning());
    QTest::qWait(50);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(c.completedJobs(), uint64_t(1));
    QCOMPARE(c.result().timeline, second);
    QCOMPARE(c.result().diagnosis->workerCount, size_t(3));
    QCOMPARE(c.result().series->size(), c.result().diagnosis->steps.size());
    QVERIFY(c.result().series->size() > 0);
    c.request(first, ClockMode::Corrected);
    c.cancel();
    QTRY_VERIFY(!c.isRunning());
    QVERIFY(!ready.wait(200));
    QCOMPARE(c.result().timeline, second); // unchanged
    c.liveChanged(first, ClockMode::Raw);
    QVERIFY(ready.wait(30000));
    QVERIFY(c.result().timeline != first); // a copy of it
    QCOMPARE(c.result().diagnosis->workerCount, size_t(4));
    QCOMPARE(c.result().mode, ClockMode::Raw);
}

QTEST_MAIN(TstStepViews)
#include "tst_stepviews.moc"
