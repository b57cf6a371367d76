// The viewer's diagnosis end to end, offscreen: a hand-made job of 4 ranks (logs written per
// docs/log-format.md) whose rank 2 takes 3× as long in `forward`, each `step` holding forward then
// `all_reduce`. After the load the Steps dock shows the steps, rank 2 is the heat map's hot row,
// the Statistics chart blames rank 2 — not the ranks that waited — for all_reduce, and its header
// is a culprit's. A second job with a worker whose log stops inside an event: its header says
// crashed, and the Problems warning jumps to its last event.
#include "ui/diagnosiscontroller.h"
#include "ui/mainwindow.h"
#include "ui/problemspanel.h"
#include "ui/rankbarchart.h"
#include "ui/statspanel.h"
#include "ui/steppanel.h"
#include "ui/timelinepainter.h"
#include "ui/timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

using namespace syncline;
using namespace syncline::ui;

class TstDiagnosisView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void slowRankIsTheHotRowAndTheCulprit();
    void crashedWorkerHeaderAndWarning();
};

namespace {

constexpr int64_t kMs = 1'000'000;

void header(std::ofstream &out, int rank, int world)
{
    out << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" << rank
        << ",\"world_size\":" << world << ",\"host\":\"h\",\"boot_id\":\"b\",\"pid\":" << 100 + rank
        << ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":1000,\"wall_ns\":"
           "1700000000000000000,\"spread_ns\":40},\"start_ns\":1000}\n";
}

void record(std::ofstream &out, char t, int64_t ts, const char *name)
{
    out << "{\"t\":\"" << t << "\",\"ts\":" << ts << ",\"tid\":7,\"name\":\"" << name << "\"}\n";
}

// 4 ranks × 12 steps: forward 10 ms (rank 2: 30 ms), then all_reduce until 1 ms after rank 2
// arrives; the next step starts 1 ms later.
void writeSlowRankJob(const QString &dir)
{
    for (int rank = 0; rank < 4; ++rank) {
        std::ofstream out(dir.toStdString() + "/timer_events." + std::to_string(rank) + ".log");
        header(out, rank, 4);
        int64_t t = 10 * kMs;
        for (int step = 0; step < 12; ++step) {
            const int64_t forward = rank == 2 ? 30 * kMs : 10 * kMs;
            record(out, 'B', t, "step");
            record(out, 'B', t, "forward");
            record(out, 'E', t + forward, "forward");
            record(out, 'B', t + forward, "all_reduce");
            record(out, 'E', t + 31 * kMs, "all_reduce");
            record(out, 'E', t + 31 * kMs + 100, "step");
            t += 32 * kMs;
        }
        out << "{\"t\":\"close\",\"ts\":" << t << ",\"events\":60,\"dropped\":0,\"open\":0}\n";
    }
}

// The title of the current tab of the window's bottom dock tabs.
QString currentDockTab(const MainWindow &w)
{
    for (const QTabBar *bar : w.findChildren<QTabBar *>())
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == QStringLiteral("Statistics"))
                return bar->tabText(bar->currentIndex());
    return {};
}

bool open(MainWindow &w, const QString &path)
{
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    QSignalSpy diagnosed(w.diagnosisController(), &DiagnosisController::ready);
    w.openPaths({path});
    if (!loaded.wait(30000) || !loaded.front().front().toBool())
        return false;
    return !diagnosed.isEmpty() || diagnosed.wait(30000);
}

} // namespace

void TstDiagnosisView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_diagnosisview"));
    QSettings().clear(); // the default dock layout, not one a previous run saved
}

void TstDiagnosisView::slowRankIsTheHotRowAndTheCulprit()
{
    QTemporaryDir dir;
    writeSlowRankJob(dir.path());
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(open(w, dir.path()));
    const DiagnosisResult &r = w.diagnosisController()->result();
    QVERIFY(r.diagnosis);
    QCOMPARE(QString::fromStdString(r.diagnosis->stepName), QStringLiteral("step"));
    QCOMPARE(r.diagnosis->steps.size(), size_t(12));
    QCOMPARE(r.diagnosis->workerCount, size_t(4));
    // The step graph: 12 bars of 31 ms (first start to last end).
    StepGraph *graph = w.stepPanel()->graph();
    QVERIFY(graph->isVisible());         // the strip above the timeline
    QVERIFY(w.stepsDock()->isVisible()); // the heat map's dock, raised for the culprit
    QVERIFY(w.tabifiedDockWidgets(w.stepsDock())
                .contains(w.findChild<QDockWidget *>(QStringLiteral("stats"))));
    QTRY_COMPARE(currentDockTab(w), QStringLiteral("Steps")); // raised for the culprit
    QCOMPARE(graph->geometry().bars.size(), size_t(12));
    QCOMPARE(r.series->maxNs[3], 31 * kMs + 100);
    // The heat map: rank 2's row is the hottest (compute 31 ms — its forward and the
    // all_reduce's last millisecond — against a median of 11 ms).
    StepHeatMap *heat = w.stepPanel()->heatMap();
    QCOMPARE(heat->mode(), HeatMode::Compute);
    QVERIFY(heat->bins().rows == 4 && heat->bins().cols == 12);
    const int hot = heat->hottestWorker();
    QVERIFY(hot >= 0);
    QCOMPARE(w.timeline()->workers[size_t(hot)].info.rank, 2);
    for (int c = 0; c < heat->bins().cols; ++c) {
        QVERIFY(qAbs(heat->bins().at(hot, c) - 31.0f / 11.0f) < 1e-3f);
        QCOMPARE(heat->bins().at(0, c), 1.0f);
    }
    // In Wait mode the others are hot and rank 2 is not.
    w.stepPanel()->modeBox()->setCurrentIndex(2);
    QCOMPARE(heat->mode(), HeatMode::Wait);
    QCOMPARE(heat->bins().at(hot, 0), 0.0f);
    QVERIFY(qAbs(heat->bins().at(0, 0) - 20.0f / 31.0f) < 1e-3f); // 20 ms of a 31 ms step
    // A click on a cell of rank 2 zooms to that step.
    const QRectF plot = heat->plotRect();
    const QPoint cell(int(plot.left() + plot.width() * 5.5 / 12),
                      int(plot.top() + plot.height() * (hot + 0.5) / 4));
    QTest::mouseClick(heat, Qt::LeftButton, {}, cell);
    const ZoomControl *zoom = w.view()->zoomControl();
    QVERIFY(zoom->rangeStart() <= r.series->beginNs[5]);
    QVERIFY(zoom->rangeEnd() >= r.series->endNs[5]);
    QVERIFY(zoom->rangeDuration() < 2 * (r.series->endNs[5] - r.series->beginNs[5]));
    // Culprit marks: rank 2's header is marked; it was last at every all_reduce.
    const TimelineScene *scene = w.view()->scene();
    QVERIFY(scene->culpritMarks().isCulprit(hot));
    QCOMPARE(scene->culpritMarks().marks(hot).size(), size_t(12));
    QVERIFY(!scene->culpritMarks().isCulprit(0));
    QVERIFY(!computeGeometry(*scene, w.view()->currentRequest())
                 .culpritMarks.empty()); // zoomed to one step: the mark is drawn
    // The Statistics chart: all_reduce is a wait, judged by blame: rank 2 red, the others not
    // (their mean all_reduce is 20 ms longer than rank 2's: a mean rule would paint them).
    StatsPanel *stats = w.statsPanel();
    if (stats->completedJobs() == 0)
        QVERIFY(QSignalSpy(stats, &StatsPanel::statsReady).wait(30000));
    stats->chooseName(w.timeline()->names.find("all_reduce"));
    RankBarChart *chart = stats->chart();
    QVERIFY(chart->showsBlame());
    QCOMPARE(chart->bars().size(), size_t(4));
    for (size_t i = 0; i < chart->bars().size(); ++i) {
        QCOMPARE(chart->stragglerFlags()[i], chart->bars()[i].rank == 2);
        QCOMPARE(chart->bars()[i].valueNs > 0, chart->bars()[i].rank == 2);
    }
    // forward is compute: the mean rule, and rank 2 is its straggler too.
    stats->chooseName(w.timeline()->names.find("forward"));
    QVERIFY(!chart->showsBlame());
    for (size_t i = 0; i < chart->bars().size(); ++i)
        QCOMPARE(chart->stragglerFlags()[i], chart->bars()[i].rank == 2);
    QVERIFY(!chart->grab().isNull());
    QVERIFY(!w.stepPanel()->grab().isNull());
}

// Rank 1's log stops inside `forward` (no E, no close): crashed, tinted, warned about.
void TstDiagnosisView::crashedWorkerHeaderAndWarning()
{
    QTemporaryDir dir;
    for (int rank = 0; rank < 2; ++rank) {
        std::ofstream out(dir.path().toStdString() + "/timer_events." + std::to_string(rank) +
                          ".log");
        header(out, rank, 2);
        record(out, 'B', 10 * kMs, "step");
        record(out, 'E', 20 * kMs, "step");
        record(out, 'B', 30 * kMs, "step");
        record(out, 'B', 31 * kMs, "forward");
        if (rank == 0) {
            record(out, 'E', 35 * kMs, "forward");
            record(out, 'E', 40 * kMs, "step");
            out << "{\"t\":\"close\",\"ts\":" << 41 * kMs
                << ",\"events\":3,\"dropped\":0,\"open\":0}\n";
        }
    }
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(open(w, dir.path()));
    const TimelineScene *scene = w.view()->scene();
    int crashed = -1;
    for (size_t i = 0; i < w.timeline()->workers.size(); ++i)
        if (w.timeline()->workers[i].info.rank == 1)
            crashed = int(i);
    QVERIFY(crashed >= 0);
    QCOMPARE(scene->workerStatus(crashed), WorkerStatus::Crashed);
    QCOMPARE(scene->workerStatus(1 - crashed), WorkerStatus::Finished);
    // The header is tinted away from a plain header.
    const ViewStyle &style = w.view()->viewStyle();
    QVERIFY(TimelinePainter::headerFill(*scene, crashed, style) != style.headerBand);
    QCOMPARE(TimelinePainter::headerFill(*scene, 1 - crashed, style), style.headerBand);
    // The warning opens the Problems dock; activating it selects rank 1's last event.
    QVERIFY(w.problemsDock()->isVisible());
    ProblemsPanel *problems = w.problemsPanel();
    int row = -1;
    for (int i = 0; i < problems->count(); ++i)
        if (problems->itemText(i).contains(QStringLiteral("no close record —")))
            row = i;
    QVERIFY2(row >= 0, qPrintable(problems->count() ? problems->itemText(0) : QString()));
    QCOMPARE(problems->problemAt(row).severity, LoadProblem::Severity::Warning);
    auto *list = problems->findChild<QListWidget *>();
    QVERIFY(list);
    emit list->itemActivated(list->item(row));
    const EventRef sel = scene->selected();
    QVERIFY(sel.valid());
    QCOMPARE(int(scene->model(sel.model).worker()), crashed);
    QCOMPARE(scene->displayName(scene->model(sel.model).nameId(sel.index)),
             QStringLiteral("forward"));
}

QTEST_MAIN(TstDiagnosisView)
#include "tst_diagnosisview.moc"
