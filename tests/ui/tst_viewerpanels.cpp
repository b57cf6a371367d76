// The viewer's panels through the real widgets (offscreen): the status bar after keyboard
// navigation, the find counter and reveal at whole-job zoom, the overview's match marks, the
// stats chart following the scope, Esc after a range selection, the Clocks panel's relative
// offsets, the label column, keys with the focus in a dock, the fitted rows, the range label.
#include "testjob.h"

#include "ui/clockpanel.h"
#include "ui/findbar.h"
#include "ui/legendbar.h"
#include "ui/mainwindow.h"
#include "ui/overviewstrip.h"
#include "ui/statspanel.h"
#include "ui/timeformat.h"
#include "ui/timelinepainter.h"
#include "ui/timelineview.h"

#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace syncline;
using namespace syncline::ui;

class TstViewerPanels : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void statusBarFollowsKeyboardNavigation();
    void findCountsEventsAndRevealsAtWholeJobZoom();
    void overviewMarksMatches();
    void chartFollowsScopeAndEscKeepsPanelsConsistent();
    void clocksPanelShowsRelativeOffsets();
    void keysWorkWithFocusInADock();
    void labelColumnResizes();
    void rowsFitTheWindow();
    void rangeLabelIsNeverClipped();
    void problemEntryJumpsToTheEvent();
};

namespace {

// Worker 0 and 1, one thread each: steps of 1000 ns then 3000 ns (rank 1 twice as long), so
// a range over the first step gives other means than the whole job.
std::shared_ptr<Timeline> twoStepJob()
{
    auto t = std::make_shared<Timeline>();
    for (int r = 0; r < 2; ++r) {
        Worker w = testjob::makeWorker(r, r == 0 ? "host-a" : "host-b");
        EventTrack tr;
        tr.tid = 10 + r;
        tr.threadName = "main";
        testjob::addEvent(*t, tr, "step", 0, 1000 * (r + 1), -1);
        testjob::addEvent(*t, tr, "step", 5000, 8000 * (r + 1), -1);
        w.tracks.push_back(std::move(tr));
        t->workers.push_back(std::move(w));
    }
    t->updateRange();
    return t;
}

QString statusOf(const MainWindow &w)
{
    return w.statusText().section(QLatin1Char('|'), 0, 0);
}

} // namespace

void TstViewerPanels::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_viewerpanels"));
}

// Wheel, W/S/A/D, F, Home and Esc all refresh the status bar's view span and selection (it
// used to change only on mouse moves).
void TstViewerPanels::statusBarFollowsKeyboardNavigation()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(2, 3000, 1000), {QStringLiteral("dense")});
    TimelineView *view = w.view();
    ZoomControl *zoom = view->zoomControl();
    auto viewText = [&] {
        return QStringLiteral("view %1").arg(formatDuration(zoom->rangeDuration()));
    };
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
    const int64_t full = zoom->rangeDuration();
    view->setFocus();
    QTest::keyClick(view, Qt::Key_W);
    QVERIFY(zoom->rangeDuration() < full);
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
    QTest::keyClick(view, Qt::Key_W);
    QTest::keyClick(view, Qt::Key_D);
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
    QTest::keyClick(view, Qt::Key_Home);
    QCOMPARE(zoom->rangeDuration(), full);
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
    // The wheel over the events, then the cursor time follows the range under the mouse.
    const QPoint at = view->eventArea().center();
    QTest::mouseMove(view->viewport(), at);
    QWheelEvent wheel(at, view->viewport()->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view->viewport(), &wheel);
    QVERIFY(zoom->rangeDuration() < full);
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
    QVERIFY(statusOf(w).contains(QStringLiteral("cursor ")));
    // A selection appears in the status bar and Esc removes it.
    zoom->setSelection(zoom->rangeStart(), zoom->rangeStart() + 114000);
    QVERIFY2(statusOf(w).contains(QStringLiteral("selection %1").arg(formatDuration(114000))),
             qPrintable(statusOf(w)));
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(!zoom->hasSelection());
    QVERIFY2(!statusOf(w).contains(QStringLiteral("selection")), qPrintable(statusOf(w)));
    QTest::keyClick(view, Qt::Key_F);
    QVERIFY2(statusOf(w).contains(viewText()), qPrintable(statusOf(w)));
}

// At whole-job zoom every "backward" is folded; the counter gives events (and names); Enter
// zooms until the match is drawn on its own (never inside a fold), in view.
void TstViewerPanels::findCountsEventsAndRevealsAtWholeJobZoom()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(4, 30000, 1000), {QStringLiteral("dense")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    QLineEdit *find = w.findBar()->findEdit();
    find->setText(QStringLiteral("backward"));
    QCOMPARE(scene->matchingEventCount(), int64_t(4 * 10000));
    QCOMPARE(w.findBar()->statusText(), QStringLiteral("%L1 events · 1 name").arg(40000));
    QTest::keyClick(find, Qt::Key_Return);
    const EventRef sel = scene->selected();
    QVERIFY(sel.valid());
    QCOMPARE(scene->displayName(scene->model(sel.model).nameId(sel.index)),
             QStringLiteral("backward"));
    const TrackModel &m = scene->model(sel.model);
    const ZoomControl *zoom = view->zoomControl();
    const double px = double(m.duration(sel.index, scene->clockMode())) *
                      view->eventArea().width() / double(zoom->rangeDuration());
    QVERIFY2(px >= TimelineView::kRevealPx - 1, qPrintable(QString::number(px)));
    QVERIFY(m.startTime(sel.index, scene->clockMode()) >= zoom->rangeStart());
    QVERIFY(m.endTime(sel.index, scene->clockMode()) <= zoom->rangeEnd());
    // The geometry on screen draws it on its own (the selection outline exists only then).
    view->viewport()->repaint();
    QVERIFY(!computeGeometry(*scene, view->currentRequest()).selectedRect.isNull());
    // The name filter counts too: hiding "backward" leaves no matching event.
    w.findBar()->nameFilterEdit()->setText(QStringLiteral("forward"));
    QCOMPARE(scene->matchingEventCount(), int64_t(0));
    QCOMPARE(w.findBar()->statusText(), QStringLiteral("0 events · 1 name"));
}

// The overview paints find matches in the match colour; without a search, no such pixel.
void TstViewerPanels::overviewMarksMatches()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // One needle among 3000 events per worker.
    auto job = testjob::makeDenseJob(2, 3000, 1000);
    job->workers[1].tracks[0].nameId[1500] = job->names.intern("needle");
    w.setTimeline(job, {QStringLiteral("needle")});
    auto *overview = w.findChild<OverviewStrip *>();
    QVERIFY(overview);
    const QColor match = w.view()->viewStyle().match;
    auto matchPixels = [&] {
        const QImage img = overview->grab().toImage();
        int n = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                n += img.pixelColor(x, y).rgb() == match.rgb();
        return n;
    };
    QCOMPARE(matchPixels(), 0);
    w.findBar()->findEdit()->setText(QStringLiteral("needle"));
    QVERIFY(matchPixels() > 0);
    QCOMPARE(w.findBar()->statusText(), QStringLiteral("1 event · 1 name"));
}

// The per-rank chart follows Whole job ↔ Selected range; Esc after a range selection keeps
// legend, stats and chart on the whole job (never "0 names in 0 ns" beside old bars).
void TstViewerPanels::chartFollowsScopeAndEscKeepsPanelsConsistent()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto job = twoStepJob();
    StatsPanel *stats = w.statsPanel();
    QSignalSpy ready(stats, &StatsPanel::statsReady);
    w.setTimeline(job, {QStringLiteral("steps")});
    QVERIFY(ready.wait(20000));
    stats->chooseName(job->names.find("step"));
    auto bar = [&](int i) { return stats->chart()->bars().at(size_t(i)).valueNs; };
    QCOMPARE(bar(0), int64_t((1000 + 3000) / 2));
    QCOMPARE(bar(1), int64_t((2000 + 11000) / 2));
    // Selected range over the first steps only.
    w.view()->zoomControl()->setSelection(0, 2500);
    stats->scopeBox()->setCurrentIndex(1);
    QVERIFY(ready.wait(20000));
    QCOMPARE(bar(0), int64_t(1000));
    QCOMPARE(bar(1), int64_t(2000));
    QVERIFY(stats->statusText().contains(formatDuration(2500)));
    // Back to the whole job: the chart follows.
    stats->scopeBox()->setCurrentIndex(0);
    QVERIFY(ready.wait(20000));
    QCOMPARE(bar(1), int64_t((2000 + 11000) / 2));
    // Esc in Selected range: the whole job again, said so; legend and chart agree with it.
    stats->scopeBox()->setCurrentIndex(1);
    QVERIFY(ready.wait(20000));
    QCOMPARE(bar(1), int64_t(2000));
    w.view()->setFocus();
    QTest::keyClick(w.view(), Qt::Key_Escape);
    QVERIFY(ready.wait(20000));
    QCOMPARE(stats->model()->rowCount(), 1);
    QVERIFY2(stats->statusText().contains(QStringLiteral("no range selected")),
             qPrintable(stats->statusText()));
    QCOMPARE(bar(1), int64_t((2000 + 11000) / 2));
    const LegendBar *legend = w.findChild<LegendBar *>();
    QVERIFY(legend);
    QCOMPARE(legend->names().size(), size_t(1));
}

// Offsets and drifts relative to the reference worker (row 0), in readable units.
void TstViewerPanels::clocksPanelShowsRelativeOffsets()
{
    MainWindow w;
    w.show();
    auto job = testjob::makeSmallJob();
    // Worker 1's clock reads 3.2 ms ahead: its corrected map moves it back by that much.
    job->workers[1].corrected = sync::ClockMap::offset(-3200000);
    job->workers[1].clock.driftPpm = 2.5;
    job->updateRange();
    w.setTimeline(job, {QStringLiteral("small")});
    const ClockTableModel *m = w.clockPanel()->model();
    QCOMPARE(m->index(0, ClockTableModel::Offset).data().toString(), QStringLiteral("reference"));
    QCOMPARE(m->index(1, ClockTableModel::Offset).data().toString(), QStringLiteral("+3.20 ms"));
    QCOMPARE(m->index(1, ClockTableModel::Drift).data().toString(), QStringLiteral("-2.500 ppm"));
    QCOMPARE(m->headerData(ClockTableModel::Offset, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Offset vs ref"));
}

// W/S/A/D/F/Home work with the focus in the stats table; typing in the find box still types.
void TstViewerPanels::keysWorkWithFocusInADock()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(2, 3000, 1000), {QStringLiteral("dense")});
    ZoomControl *zoom = w.view()->zoomControl();
    const int64_t full = zoom->rangeDuration();
    QTableView *table = w.statsPanel()->table();
    table->setFocus();
    QTest::keyClick(table, Qt::Key_W);
    QVERIFY(zoom->rangeDuration() < full);
    const int64_t start = zoom->rangeStart();
    QTest::keyClick(table, Qt::Key_D);
    QVERIFY(zoom->rangeStart() > start);
    QTest::keyClick(table, Qt::Key_F);
    QCOMPARE(zoom->rangeDuration(), full);
    QLineEdit *find = w.findBar()->findEdit();
    find->setFocus();
    QTest::keyClicks(find, QStringLiteral("wasd"));
    QCOMPARE(find->text(), QStringLiteral("wasd"));
    QCOMPARE(zoom->rangeDuration(), full);
}

// Dragging the label column's edge resizes it; the overview follows.
void TstViewerPanels::labelColumnResizes()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    TimelineView *view = w.view();
    const int edge = view->gutterWidth();
    const int y = view->eventArea().top() + 40;
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, QPoint(edge, y));
    QTest::mouseMove(view->viewport(), QPoint(edge + 120, y));
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, QPoint(edge + 120, y));
    QCOMPARE(view->gutterWidth(), edge + 120);
    QCOMPARE(view->eventArea().left(), edge + 120);
    auto *overview = w.findChild<OverviewStrip *>();
    QCOMPARE(overview->timeAtX(edge + 120), view->scene()->beginNs());
}

// The default window shows every worker of an 8-rank job (rows shrink to fit).
void TstViewerPanels::rowsFitTheWindow()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(8, 3000, 1000), {QStringLiteral("eight")});
    const RowLayout &layout = w.view()->scene()->layout();
    QVERIFY2(layout.totalHeight() <= w.view()->eventArea().height(),
             qPrintable(QStringLiteral("%1 > %2")
                            .arg(layout.totalHeight())
                            .arg(w.view()->eventArea().height())));
}

// A range narrower than its label: the label's rect widens to the text and stays in the ruler.
void TstViewerPanels::rangeLabelIsNeverClipped()
{
    const QRectF ruler(230, 0, 900, 26);
    const QRectF narrow(500, 0, 12, 26);
    const QRectF r = TimelinePainter::selectionLabelRect(narrow, 40, ruler);
    QCOMPARE(r.width(), 48.0);
    QCOMPARE(r.center().x(), narrow.center().x());
    const QRectF atEdge = TimelinePainter::selectionLabelRect(QRectF(1125, 0, 5, 26), 40, ruler);
    QCOMPARE(atEdge.right(), ruler.right());
    const QRectF wide(300, 0, 400, 26);
    QCOMPARE(TimelinePainter::selectionLabelRect(wide, 40, ruler), wide);
}

// A log with one lost E (inner's): the Problems entry for it selects that event.
void TstViewerPanels::problemEntryJumpsToTheEvent()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("timer_events.0.log"));
    {
        std::ofstream out(path.toStdString());
        out << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":0,"
               "\"world_size\":1,\"host\":\"h\",\"pid\":1,\"clock\":\"monotonic_raw\","
               "\"anchor\":{\"mono_ns\":1000,\"wall_ns\":1700000000000000000,\"spread_ns\":40},"
               "\"start_ns\":1000}\n";
        out << "{\"t\":\"B\",\"ts\":10000,\"tid\":7,\"name\":\"outer\"}\n";
        out << "{\"t\":\"B\",\"ts\":20000,\"tid\":7,\"name\":\"inner\"}\n";
        out << "{\"t\":\"E\",\"ts\":90000,\"tid\":7,\"name\":\"outer\"}\n"; // inner's E lost
        out << "{\"t\":\"B\",\"ts\":100000,\"tid\":7,\"name\":\"later\"}\n";
        out << "{\"t\":\"E\",\"ts\":110000,\"tid\":7,\"name\":\"later\"}\n";
    }
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openPaths({path});
    QVERIFY(loaded.wait(30000));
    const TimelineScene *scene = w.view()->scene();
    QCOMPARE(scene->model(0).depth(2), 0); // "later" at depth 0, not inside outer
    auto *list = w.findChild<QListWidget *>();
    QVERIFY(list);
    int row = -1;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().contains(QStringLiteral("still open inside it")))
            row = i;
    QVERIFY2(row >= 0, qPrintable(list->count() ? list->item(0)->text() : QString()));
    emit list->itemActivated(list->item(row));
    const EventRef sel = scene->selected();
    QVERIFY(sel.valid());
    QCOMPARE(scene->displayName(scene->model(sel.model).nameId(sel.index)),
             QStringLiteral("inner"));
}

QTEST_MAIN(TstViewerPanels)
#include "tst_viewerpanels.moc"
