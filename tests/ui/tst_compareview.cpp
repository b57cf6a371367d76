// Comparing two runs in the viewer, through the real widgets offscreen: MainWindow::openCompare
// (what `syncline open A --compare B` calls) and File ▸ Compare with…'s compareWith(), the
// "A · rank N" / "B · rank N" groups in stacked and interleaved order (the Compare panel's
// layout box and View ▸ Interleave compared runs by rank), B shifted onto A's anchor, no
// duplicate-rank problems, the delta table (impact order, per-rank rows, a click finds the
// name), a missing anchor falling back to the start, and a plain open ending the comparison.
#include "ui/comparecontroller.h"
#include "ui/comparepanel.h"
#include "ui/findbar.h"
#include "ui/mainwindow.h"
#include "ui/problemspanel.h"
#include "ui/rankbarchart.h"
#include "ui/statspanel.h"
#include "ui/timelineview.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>

using namespace syncline;
using namespace syncline::ui;

namespace {

// One run: `ranks` workers, 6 "step"s each of stepNs holding a "forward" of forwardNs, steps
// every 2 ms from startNs (local), wall anchor wallNs.
QString writeRun(const QString &dir, int ranks, int64_t startNs, int64_t stepNs, int64_t forwardNs,
                 int64_t wallNs)
{
    QDir().mkpath(dir);
    for (int r = 0; r < ranks; ++r) {
        std::ofstream out((dir + QStringLiteral("/timer_events.%1.log").arg(r)).toStdString());
        out << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" << r
            << ",\"restart\":0,\"host\":\"host-a\",\"boot_id\":\"b\",\"pid\":" << 100 + r
            << ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":0,\"wall_ns\":" << wallNs
            << ",\"spread_ns\":1},\"config\":null,\"start_ns\":0}\n";
        for (int s = 0; s < 6; ++s) {
            const int64_t t = startNs + 2000000LL * s + 10000 * r;
            out << "{\"t\":\"B\",\"ts\":" << t << ",\"tid\":1,\"name\":\"step\"}\n";
            out << "{\"t\":\"B\",\"ts\":" << t + 1000 << ",\"tid\":1,\"name\":\"forward\"}\n";
            out << "{\"t\":\"E\",\"ts\":" << t + 1000 + forwardNs
                << ",\"tid\":1,\"name\":\"forward\"}\n";
            out << "{\"t\":\"E\",\"ts\":" << t + stepNs << ",\"tid\":1,\"name\":\"step\"}\n";
        }
    }
    return dir;
}

std::vector<std::string> groupLabels(const TimelineScene &scene)
{
    std::vector<std::string> out;
    for (const LayoutRow &row : scene.layout().rows())
        if (row.kind == LayoutRow::GroupHeader)
            out.push_back(scene.timeline().workers[size_t(row.worker)].label());
    return out;
}

// Global start (in `mode`) of the k-th "step" of the worker labelled `label` in the scene.
int64_t stepStart(const TimelineScene &scene, const std::string &label, int k, ClockMode mode)
{
    const Timeline &t = scene.timeline();
    for (size_t w = 0; w < t.workers.size(); ++w) {
        if (t.workers[w].label() != label)
            continue;
        const EventTrack &tr = t.workers[w].tracks[0];
        int n = 0;
        for (size_t i = 0; i < tr.count(); ++i)
            if (t.names.name(tr.nameId[i]) == "step" && ++n == k)
                return t.workers[w].map(mode).toGlobal(tr.localStart[i]);
    }
    return -1;
}

} // namespace

class TstCompareView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void openCompareStackedThenInterleaved();
    void deltaTableAndFind();
    void missingAnchorFallsBackToStart();
    void compareWithThenPlainOpen();
    void statisticsPerRun();
    void rapidChangesShowTheLatest();

private:
    QTemporaryDir m_dir;
    QString m_a, m_b;
};

void TstCompareView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_compareview"));
    QVERIFY(m_dir.isValid());
    // A: 2 ranks, steps of 1 ms with a 400 µs forward; B: 3 ranks (rank 2 new), steps of 1.3 ms
    // with a 700 µs forward, starting 3 ms later in its log, its wall clock 2 s later.
    m_a = writeRun(m_dir.filePath(QStringLiteral("runA")), 2, 1000000, 1000000, 400000,
                   1700000000000000000LL);
    m_b = writeRun(m_dir.filePath(QStringLiteral("runB")), 3, 4000000, 1300000, 700000,
                   1700000002000000000LL);
}

void TstCompareView::openCompareStackedThenInterleaved()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    QVERIFY(spy.isValid());
    w.compareController()->setAnchor({"step", 2});
    w.openCompare({m_a}, {m_b});
    QVERIFY(w.isLoading());
    QVERIFY(spy.wait(30000));
    QCOMPARE(spy.first().at(0).toBool(), true);
    QVERIFY(w.compareController()->active());
    QVERIFY(w.compareDock()->isVisible());
    const TimelineScene *scene = w.view()->scene();
    QVERIFY(scene);
    QCOMPARE(groupLabels(*scene), (std::vector<std::string>{"A · rank 0 · host-a · restart 0",
                                                            "A · rank 1 · host-a · restart 0",
                                                            "B · rank 0 · host-a · restart 0",
                                                            "B · rank 1 · host-a · restart 0",
                                                            "B · rank 2 · host-a · restart 0"}));
    // B's workers are a separate run: no duplicate-rank problem.
    for (int i = 0; i < w.problemsPanel()->count(); ++i)
        QVERIFY2(!w.problemsPanel()->itemText(i).contains(QStringLiteral("duplicate")),
                 qPrintable(w.problemsPanel()->itemText(i)));
    // Aligned by the anchor: B's 2nd step begins where A's does (rank 0 is the earliest of both
    // runs); B was shifted by (A's wall + 3 ms) − (B's wall + 6 ms) = −2.003 s.
    for (ClockMode mode : {ClockMode::Corrected, ClockMode::Raw}) {
        const int64_t a2 = stepStart(*scene, "A · rank 0 · host-a · restart 0", 2, mode);
        QCOMPARE(stepStart(*scene, "B · rank 0 · host-a · restart 0", 2, mode), a2);
        QCOMPARE(w.compareController()->shiftNs(mode), int64_t(-2003000000));
    }
    // Rank 1 of B keeps its 10 µs lag behind B's rank 0.
    QCOMPARE(stepStart(*scene, "B · rank 1 · host-a · restart 0", 2, ClockMode::Corrected) -
                 stepStart(*scene, "B · rank 0 · host-a · restart 0", 2, ClockMode::Corrected),
             int64_t(10000));
    QVERIFY(w.windowTitle().contains(QStringLiteral("runA vs runB")));

    // Interleaved by rank, from the Compare panel's layout box; the View menu follows.
    QAction *interleave = w.findChild<QAction *>(QStringLiteral("interleaveAction"));
    QVERIFY(interleave);
    QVERIFY(!interleave->isChecked());
    // Re-arranged off the GUI thread: the call returns at once with the view unchanged (the
    // copy of both runs is made on a worker thread), and the new arrangement arrives later.
    QSignalSpy arranged(w.compareController(), &CompareController::combinedChanged);
    QVERIFY(arranged.isValid());
    const auto before = w.compareController()->combined();
    w.comparePanel()->layoutBox()->setCurrentIndex(1);
    QCOMPARE(w.compareController()->combined().get(), before.get());
    QCOMPARE(w.view()->scene(), scene);
    QVERIFY(w.compareController()->arranging());
    QVERIFY(arranged.wait(30000));
    QVERIFY(!w.compareController()->arranging());
    QVERIFY(w.compareController()->combined().get() != before.get());
    scene = w.view()->scene();
    QCOMPARE(groupLabels(*scene), (std::vector<std::string>{"A · rank 0 · host-a · restart 0",
                                                            "B · rank 0 · host-a · restart 0",
                                                            "A · rank 1 · host-a · restart 0",
                                                            "B · rank 1 · host-a · restart 0",
                                                            "B · rank 2 · host-a · restart 0"}));
    QVERIFY(interleave->isChecked());
    QCOMPARE(stepStart(*scene, "B · rank 0 · host-a · restart 0", 2, ClockMode::Corrected),
             stepStart(*scene, "A · rank 0 · host-a · restart 0", 2, ClockMode::Corrected));
    // And back through the menu action.
    interleave->trigger();
    QCOMPARE(w.compareController()->layout(), CompareLayout::Stacked);
    QVERIFY(arranged.wait(30000));
    QCOMPARE(w.comparePanel()->layoutBox()->currentIndex(), 0);
    QCOMPARE(groupLabels(*w.view()->scene()).at(2), std::string("B · rank 0 · host-a · restart 0"));
}

void TstCompareView::deltaTableAndFind()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    QSignalSpy ready(w.compareController(), &CompareController::resultReady);
    QVERIFY(ready.isValid());
    w.openCompare({m_a}, {m_b});
    QVERIFY(spy.wait(30000));
    QVERIFY(ready.count() > 0 || ready.wait(30000));
    ComparePanel *panel = w.comparePanel();
    QSortFilterProxyModel *proxy = panel->proxy();
    // All-ranks rows, by impact: step (12 × 1 ms → 18 × 1.3 ms: +11.4 ms) before forward
    // (12 × 0.4 → 18 × 0.7 ms: +7.8 ms).
    QCOMPARE(proxy->rowCount(), 2);
    QCOMPARE(proxy->index(0, CompareTableModel::Name).data().toString(), QStringLiteral("step"));
    QCOMPARE(proxy->index(0, CompareTableModel::Rank).data().toString(), QStringLiteral("all"));
    QCOMPARE(
        proxy->index(0, CompareTableModel::CountA).data(CompareTableModel::SortRole).toLongLong(),
        12LL);
    QCOMPARE(
        proxy->index(0, CompareTableModel::CountB).data(CompareTableModel::SortRole).toLongLong(),
        18LL);
    QCOMPARE(proxy->index(0, CompareTableModel::DeltaTotal)
                 .data(CompareTableModel::SortRole)
                 .toLongLong(),
             11400000LL);
    QCOMPARE(proxy->index(0, CompareTableModel::RatioTotal).data().toString(),
             QStringLiteral("×1.950"));
    QCOMPARE(proxy->index(1, CompareTableModel::Name).data().toString(), QStringLiteral("forward"));
    // Impact per step: Δ mean × the smaller count — both +0.3 ms × 12 = 3.6 ms (equal: the
    // |Δ total| order stays); the B-only rank adds calls, not impact.
    QCOMPARE(proxy->index(0, CompareTableModel::Impact).data(CompareTableModel::SortRole).toLongLong(),
             3600000LL);
    QCOMPARE(proxy->index(1, CompareTableModel::Impact).data(CompareTableModel::SortRole).toLongLong(),
             3600000LL);
    // Columns that do not apply are hidden: Rank without per-rank rows; In while all are "both".
    QVERIFY(panel->table()->isColumnHidden(CompareTableModel::Rank));
    QVERIFY(panel->table()->isColumnHidden(CompareTableModel::In));
    QVERIFY(panel->summaryText().contains(
        QStringLiteral("step 'step': mean 1.000 ms (A) vs 1.300 ms (B), +0.300 ms (x1.300)")));
    QVERIFY(panel->summaryText().contains(QStringLiteral("ranks only in A: none; only in B: 2")));
    // Per rank: 2 names × (all + ranks 0, 1, 2); step's rank 2 is "B only".
    panel->perRankBox()->setChecked(true);
    QCOMPARE(proxy->rowCount(), 8);
    QCOMPARE(proxy->index(1, CompareTableModel::Rank).data().toString(), QStringLiteral("2"));
    QCOMPARE(proxy->index(1, CompareTableModel::In).data().toString(), QStringLiteral("B only"));
    QVERIFY(!panel->table()->isColumnHidden(CompareTableModel::Rank));
    QVERIFY(!panel->table()->isColumnHidden(CompareTableModel::In));
    // A click on a row finds its name.
    QTableView *table = panel->table();
    w.compareDock()->raise();
    QTest::qWait(50);
    const QRect cell = table->visualRect(proxy->index(4, CompareTableModel::Name));
    QVERIFY(cell.isValid());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(w.findBar()->findEdit()->text(), QStringLiteral("forward"));
    // Raw clocks: the deltas are recomputed in that mode (same durations here).
    const uint64_t before = w.compareController()->completedJobs();
    w.setClockMode(ClockMode::Raw);
    QVERIFY(ready.wait(30000));
    QCOMPARE(w.compareController()->completedJobs(), before + 1);
    QCOMPARE(w.compareController()->clockMode(), ClockMode::Raw);
    // Screenshot for the docs when asked (SYNCLINE_UI_SCREENSHOTS=DIR).
    if (qEnvironmentVariableIsSet("SYNCLINE_UI_SCREENSHOTS"))
        QVERIFY(w.grab().save(qEnvironmentVariable("SYNCLINE_UI_SCREENSHOTS") +
                              QStringLiteral("/compare-test.png")));
}

void TstCompareView::missingAnchorFallsBackToStart()
{
    MainWindow w;
    w.show();
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openCompare({m_a}, {m_b});
    QVERIFY(spy.wait(30000));
    // Type an anchor that A does not have 9 of: aligned at the start instead, and said so.
    QLineEdit *anchor = w.comparePanel()->anchorEdit();
    QSignalSpy arranged(w.compareController(), &CompareController::combinedChanged);
    anchor->setText(QStringLiteral("step:9"));
    QTest::keyClick(anchor, Qt::Key_Return);
    QCOMPARE(w.compareController()->anchor().text(), std::string("step:9"));
    QVERIFY(arranged.wait(30000));
    QVERIFY2(w.compareController()->anchorNote().contains(
                 QStringLiteral("run A: no rank has a 9th 'step' (at most 6 per rank); aligned "
                                "at the start instead")),
             qPrintable(w.compareController()->anchorNote()));
    QVERIFY(w.comparePanel()->summaryText().contains(QStringLiteral("aligned at the start")));
    // Start alignment: B's first event lies on A's first event.
    const TimelineScene *scene = w.view()->scene();
    QCOMPARE(stepStart(*scene, "B · rank 0 · host-a · restart 0", 1, ClockMode::Corrected),
             stepStart(*scene, "A · rank 0 · host-a · restart 0", 1, ClockMode::Corrected));
    // A malformed anchor is refused in the panel, the comparison unchanged.
    anchor->setText(QStringLiteral("step:0"));
    QTest::keyClick(anchor, Qt::Key_Return);
    QCOMPARE(w.compareController()->anchor().text(), std::string("step:9"));
    QVERIFY(w.comparePanel()->summaryText().contains(QStringLiteral("expected start, NAME")));
}

void TstCompareView::compareWithThenPlainOpen()
{
    MainWindow w;
    w.show();
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({m_a});
    QVERIFY(spy.wait(30000));
    QVERIFY(!w.compareController()->active());
    QVERIFY(w.findChild<QAction *>(QStringLiteral("compareWithAction")));
    // File ▸ Compare with… picks B; A is the run on screen (not loaded again).
    const auto shownA = w.timeline();
    w.compareWith({m_b});
    QVERIFY(spy.wait(30000));
    QVERIFY(w.compareController()->active());
    QCOMPARE(w.compareController()->runA().get(), shownA.get());
    QCOMPARE(w.timeline()->workers.size(), size_t(5));
    QCOMPARE(w.compareController()->pathsB(), QStringList{m_b});
    // Opening a job ends the comparison.
    w.openPaths({m_b});
    QVERIFY(spy.wait(30000));
    QVERIFY(!w.compareController()->active());
    QVERIFY(!w.compareDock()->isVisible());
    QCOMPARE(w.timeline()->workers.size(), size_t(3));
    QVERIFY(w.timeline()->workers.front().info.run.empty());
}

// The Statistics panel of a comparison: one row per name and run (Run column shown), A's and B's
// numbers apart (A: 2 ranks × 6 steps of 1 ms; B: 3 ranks × 6 steps of 1.3 ms), the chart of the
// chosen row's run; a plain job hides the column.
void TstCompareView::statisticsPerRun()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openCompare({m_a}, {m_b});
    QVERIFY(spy.wait(30000));
    StatsPanel *stats = w.statsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(stats->model()->rowCount() == 4, 30000);
    QVERIFY(stats->model()->hasRuns());
    QVERIFY(!stats->table()->isColumnHidden(StatsTableModel::Run));
    std::map<std::pair<QString, QString>, std::pair<qlonglong, qlonglong>> rows; // count, total
    int stepB = -1;
    for (int r = 0; r < stats->proxy()->rowCount(); ++r) {
        const QString name = stats->proxy()->index(r, StatsTableModel::Name).data().toString();
        const QString run = stats->proxy()->index(r, StatsTableModel::Run).data().toString();
        rows[{name, run}] = {stats->proxy()
                                 ->index(r, StatsTableModel::Count)
                                 .data(StatsTableModel::SortRole)
                                 .toLongLong(),
                             stats->proxy()
                                 ->index(r, StatsTableModel::Total)
                                 .data(StatsTableModel::SortRole)
                                 .toLongLong()};
        if (name == QStringLiteral("step") && run == QStringLiteral("B"))
            stepB = r;
    }
    QCOMPARE(rows.size(), size_t(4));
    QCOMPARE(rows[std::pair(QStringLiteral("step"), QStringLiteral("A"))],
             std::pair(12LL, 12000000LL));
    QCOMPARE(rows[std::pair(QStringLiteral("step"), QStringLiteral("B"))],
             std::pair(18LL, 23400000LL));
    QCOMPARE(rows[std::pair(QStringLiteral("forward"), QStringLiteral("A"))],
             std::pair(12LL, 4800000LL));
    QCOMPARE(rows[std::pair(QStringLiteral("forward"), QStringLiteral("B"))],
             std::pair(18LL, 12600000LL));
    // Choosing B's "step" row: the chart shows B's three ranks at 1.3 ms.
    QVERIFY(stepB >= 0);
    w.findChild<QDockWidget *>(QStringLiteral("stats"))->raise();
    QTest::qWait(50);
    const QRect cell =
        stats->table()->visualRect(stats->proxy()->index(stepB, StatsTableModel::Name));
    QVERIFY(cell.isValid());
    QTest::mouseClick(stats->table()->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(stats->chartRun(), QStringLiteral("B"));
    QVERIFY(stats->chart()->title().endsWith(QStringLiteral("(run B)")));
    QCOMPARE(stats->chart()->bars().size(), size_t(3));
    for (const RankBarChart::Bar &b : stats->chart()->bars())
        QCOMPARE(b.valueNs, int64_t(1300000));
    // The histogram is B's: 18 steps.
    QTRY_VERIFY_WITH_TIMEOUT(stats->histogram()->histogram().ranks.size() == 3, 30000);
    int64_t n = 0;
    for (int64_t c : stats->histogram()->histogram().total)
        n += c;
    QCOMPARE(n, int64_t(18));
    // A plain job: no Run column.
    w.openPaths({m_a});
    QVERIFY(spy.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(stats->model()->rowCount() == 2, 30000);
    QVERIFY(!stats->model()->hasRuns());
    QVERIFY(stats->table()->isColumnHidden(StatsTableModel::Run));
}

// Several layout and anchor changes in a row, faster than the arrangements: the view ends on
// the latest request (interleaved, anchored on step 3), never on a stale one.
void TstCompareView::rapidChangesShowTheLatest()
{
    MainWindow w;
    w.show();
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openCompare({m_a}, {m_b});
    QVERIFY(spy.wait(30000));
    CompareController *c = w.compareController();
    c->setLayout(CompareLayout::Interleaved);
    c->setAnchor({"step", 2});
    c->setLayout(CompareLayout::Stacked);
    c->setAnchor({"step", 3});
    c->setLayout(CompareLayout::Interleaved);
    QTRY_VERIFY_WITH_TIMEOUT(!c->arranging(), 30000);
    QTest::qWait(50);
    const TimelineScene *scene = w.view()->scene();
    QCOMPARE(groupLabels(*scene).at(1), std::string("B · rank 0 · host-a · restart 0"));
    QCOMPARE(stepStart(*scene, "B · rank 0 · host-a · restart 0", 3, ClockMode::Corrected),
             stepStart(*scene, "A · rank 0 · host-a · restart 0", 3, ClockMode::Corrected));
    QVERIFY(c->anchorNote().isEmpty());
}

QTEST_MAIN(TstCompareView)
#include "tst_compareview.moc"
