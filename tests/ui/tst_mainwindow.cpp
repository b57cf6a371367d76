// Smoke test of the viewer's MainWindow on a real log file written here: loading off the GUI
// thread, the problems panel, stale-load dropping, keyboard navigation, click-to-select with the
// details panel, find stepping, the raw/corrected toggle and the stats panel.
#include "testjob.h"
#include "ui/clockpanel.h"
#include "ui/detailspanel.h"
#include "ui/exportactions.h"
#include "ui/findbar.h"
#include "ui/mainwindow.h"
#include "ui/problemspanel.h"
#include "ui/statspanel.h"
#include "ui/timelineview.h"
#include "ui/statstablemodel.h"
#include "ui/zoomcontrol.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace syncline;
using namespace syncline::ui;

class TstMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void loadsLogAndShowsProblems();
    void newerLoadWinsOverStaleOne();
    void navigationSelectionFindAndClock();
    void statsPanelFills();
    void statsModeToggleDropsStaleJob();
    void menuExportsWriteFiles();
    void notesDoNotOpenProblemsDock();
    void timelineGetsMostOfTheHeight();
    void emptyCompareDockNotRestored();
    void stateKeptAcrossRealign();
    void screenshotOfJob();

private:
    QString writeLog(const QString &name, int rank, int steps, bool withBadLine);
    QTemporaryDir m_dir;
};

void TstMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QVERIFY(m_dir.isValid());
}

QString TstMainWindow::writeLog(const QString &name, int rank, int steps, bool withBadLine)
{
    const QString path = m_dir.filePath(name);
    std::ofstream out(path.toStdString());
    out << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" << rank
        << ",\"local_rank\":0,\"world_size\":2,\"group_rank\":0,\"role\":\"trainer\",\"restart\":0,"
           "\"run_id\":\"t\",\"host\":\"host-a\",\"boot_id\":\"b\",\"pid\":1,\"clock\":\"monotonic_"
           "raw\","
           "\"anchor\":{\"mono_ns\":1000,\"wall_ns\":1700000000000000000,\"spread_ns\":40},"
           "\"config\":null,\"start_ns\":1000}\n";
    out << "{\"t\":\"thread\",\"tid\":7,\"name\":\"main\"}\n";
    if (withBadLine)
        out << "{\"t\":\"B\",\"ts\":oops}\n"; // line 3: not JSON
    int64_t t = 1000000;
    for (int s = 0; s < steps; ++s) {
        out << "{\"t\":\"B\",\"ts\":" << t
            << ",\"tid\":7,\"name\":\"step\",\"args\":{\"step\":" << s << "}}\n";
        out << "{\"t\":\"B\",\"ts\":" << t + 1000 << ",\"tid\":7,\"name\":\"forward\"}\n";
        out << "{\"t\":\"E\",\"ts\":" << t + 400000 << ",\"tid\":7,\"name\":\"forward\"}\n";
        out << "{\"t\":\"B\",\"ts\":" << t + 410000 << ",\"tid\":7,\"name\":\"backward\"}\n";
        out << "{\"t\":\"E\",\"ts\":" << t + 900000 << ",\"tid\":7,\"name\":\"backward\"}\n";
        out << "{\"t\":\"E\",\"ts\":" << t + 950000 << ",\"tid\":7,\"name\":\"step\"}\n";
        t += 1000000;
    }
    out << "{\"t\":\"B\",\"ts\":" << t << ",\"tid\":7,\"name\":\"hang\"}\n"; // never ends
    out << "{\"t\":\"hb\",\"ts\":" << t + 500000
        << ",\"events\":1,\"dropped\":0,\"buffer_full\":0,\"bytes\":1}\n";
    return path;
}

void TstMainWindow::loadsLogAndShowsProblems()
{
    const QString log = writeLog(QStringLiteral("timer_events.0.log"), 0, 20, true);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    QVERIFY(spy.isValid());
    w.openPaths({log});
    QVERIFY(w.isLoading());
    QVERIFY(spy.wait(30000));
    QCOMPARE(spy.first().at(0).toBool(), true);
    QVERIFY(w.timeline());
    QCOMPARE(w.timeline()->workers.size(), size_t(1));
    QCOMPARE(w.timeline()->eventCount(), size_t(20 * 3 + 1));
    QVERIFY(w.view()->scene());
    QVERIFY(w.problemsPanel()->count() >= 1);
    bool named = false;
    for (int i = 0; i < w.problemsPanel()->count(); ++i)
        named |= w.problemsPanel()->itemText(i).contains(QStringLiteral("timer_events.0.log:3"));
    QVERIFY2(named, qPrintable(w.problemsPanel()->itemText(0)));
    QVERIFY(w.problemsDock()->isVisible());
    w.problemsPanel()->dismissed();
    QVERIFY(!w.problemsDock()->isVisible());
    QVERIFY(w.recentFiles().contains(log));
    QVERIFY(w.statusText().contains(QStringLiteral("61 events")));
}

void TstMainWindow::newerLoadWinsOverStaleOne()
{
    const QString a = writeLog(QStringLiteral("a.log"), 0, 5, false);
    const QString b = writeLog(QStringLiteral("b.log"), 3, 7, false);
    MainWindow w;
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({a});
    w.openPaths({b});
    QVERIFY(spy.wait(30000));
    QTest::qWait(300); // a stale result, if delivered, would arrive now
    QCOMPARE(spy.count(), 1);
    QCOMPARE(w.timeline()->workers.front().info.rank, 3);
}

void TstMainWindow::navigationSelectionFindAndClock()
{
    const QString log = writeLog(QStringLiteral("nav.log"), 0, 10, false);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({log});
    QVERIFY(spy.wait(30000));
    TimelineView *view = w.view();
    ZoomControl *zoom = view->zoomControl();
    const int64_t full = zoom->rangeDuration();
    QCOMPARE(full, zoom->traceEnd() - zoom->traceStart());
    view->setFocus();
    QTest::keyClick(view, Qt::Key_W);
    QVERIFY(zoom->rangeDuration() < full);
    QTest::keyClick(view, Qt::Key_F);
    QCOMPARE(zoom->rangeDuration(), full);
    // Click the middle of the first step (depth 0 of the first thread) → details show it.
    const TimelineScene *scene = view->scene();
    const LayoutRow &row = scene->layout().rows()[size_t(scene->layout().rowOf(0, 0))];
    const TrackModel &m = scene->model(0);
    const double x = zoom->xOf((m.startTime(0, ClockMode::Corrected) + m.endTime(0, ClockMode::Corrected)) / 2, view->eventArea().width());
    const QPoint pos(view->eventArea().left() + int(x),
                     view->eventArea().top() + int(row.y + row.height / 2));
    QCOMPARE(view->eventAt(pos).index, 0);
    QSignalSpy selected(view, &TimelineView::eventSelected);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, pos);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(scene->selected().index, 0);
    QVERIFY(w.detailsPanel()->toPlainText().contains(QStringLiteral("step")));
    QVERIFY(w.detailsPanel()->toPlainText().contains(QStringLiteral("forward"))); // a child
    // Find "backward" and step with Enter.
    QLineEdit *find = w.findBar()->findEdit();
    find->setText(QStringLiteral("backward"));
    QTest::keyClick(find, Qt::Key_Return);
    const EventRef first = scene->selected();
    QVERIFY(first.valid());
    QCOMPARE(scene->displayName(scene->model(first.model).nameId(first.index)),
             QStringLiteral("backward"));
    QTest::keyClick(find, Qt::Key_Return);
    QVERIFY(scene->model(0).startTime(scene->selected().index, ClockMode::Corrected) >
            scene->model(0).startTime(first.index, ClockMode::Corrected));
    QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(scene->selected().index, first.index);
    // Screenshots for the docs when asked (SYNCLINE_UI_SCREENSHOTS=DIR), light and dark.
    if (qEnvironmentVariableIsSet("SYNCLINE_UI_SCREENSHOTS")) {
        const QString dir = qEnvironmentVariable("SYNCLINE_UI_SCREENSHOTS");
        QVERIFY(w.grab().save(dir + QStringLiteral("/mainwindow-light.png")));
        w.setDarkTheme(true);
        QTest::qWait(50);
        QVERIFY(w.grab().save(dir + QStringLiteral("/mainwindow-dark.png")));
        w.setDarkTheme(false);
    }
    // Raw/corrected toggle redraws in place and reaches the timeline.
    w.setClockMode(ClockMode::Raw);
    QCOMPARE(scene->clockMode(), ClockMode::Raw);
    QCOMPARE(w.statsPanel()->clockMode(), ClockMode::Raw); // the panels are given the mode
    QVERIFY(!w.clockPanel()->correctedToggle()->isChecked());
    w.clockPanel()->correctedToggle()->setChecked(true);
    QCOMPARE(scene->clockMode(), ClockMode::Corrected);
}

void TstMainWindow::statsPanelFills()
{
    const QString log = writeLog(QStringLiteral("stats.log"), 0, 12, false);
    MainWindow w;
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    QSignalSpy stats(w.statsPanel(), &StatsPanel::statsReady);
    w.openPaths({log});
    QVERIFY(spy.wait(30000));
    QVERIFY(stats.count() > 0 || stats.wait(30000));
    QCOMPARE(w.statsPanel()->model()->rowCount(),
             3); // step, forward, backward (open hang excluded)
    w.statsPanel()->chooseName(w.timeline()->names.find("step"));
    QCOMPARE(w.statsPanel()->chart()->stragglerFlags().size(), size_t(1)); // one rank
}

// Switching raw/corrected while a stats job runs: the job computes in the mode captured at its
// launch (never reading the Timeline's mode), its result is dropped, and only the new mode's
// stats are shown. Worker 0's corrected map runs at slope 2, so the modes' totals differ.
void TstMainWindow::statsModeToggleDropsStaleJob()
{
    std::shared_ptr<Timeline> job = testjob::makeDenseJob(2, 300000, 1000);
    job->workers[0].corrected = sync::ClockMap({sync::ClockSegment{0, 0, 2.0, 0, 0, 0}});
    StatsQuery raw;
    raw.mode = ClockMode::Raw;
    const std::vector<StatsRow> expected = Stats::compute(*job, raw);
    StatsPanel panel;
    QSignalSpy ready(&panel, &StatsPanel::statsReady);
    panel.setTimeline(job, ClockMode::Corrected); // launches a job in corrected mode
    QCOMPARE(panel.clockMode(), ClockMode::Corrected);
    panel.setClockMode(ClockMode::Raw);
    QVERIFY(ready.wait(30000));
    QTest::qWait(50); // nothing else arrives
    QCOMPARE(ready.count(), 1);
    QCOMPARE(panel.completedJobs(), uint64_t(1)); // the corrected job's result was dropped
    const uint32_t step = job->names.find("step");
    const auto it = std::find_if(expected.begin(), expected.end(),
                                 [&](const StatsRow &r) { return r.nameId == step && !r.rank; });
    QVERIFY(it != expected.end());
    bool found = false;
    for (int r = 0; r < panel.model()->rowCount(); ++r)
        if (panel.model()->row(r).nameId == step) {
            found = true;
            QCOMPARE(panel.model()->row(r).totalNs, it->totalNs);
            QCOMPARE(panel.model()->row(r).count, it->count);
        }
    QVERIFY(found);
    StatsQuery corrected;
    corrected.mode = ClockMode::Corrected;
    const auto c = Stats::compute(*job, corrected);
    QVERIFY(std::find_if(c.begin(), c.end(), [&](const StatsRow &r) {
                return r.nameId == step && !r.rank;
            })->totalNs != it->totalNs); // the test can tell the modes apart
}

void TstMainWindow::menuExportsWriteFiles()
{
    const QString log = writeLog(QStringLiteral("exports.log"), 0, 6, false);
    MainWindow w;
    w.resize(1000, 700);
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({log});
    QVERIFY(spy.wait(30000));
    ExportActions *ex = w.exportActions();
    QString error;
    const QString png = m_dir.filePath(QStringLiteral("view.png"));
    QVERIFY2(ex->writeImage(png, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(),
             QSize(std::max(800, w.view()->width() * 2), std::max(500, w.view()->height() * 2)));
    const QString svg = m_dir.filePath(QStringLiteral("view.svg"));
    QVERIFY2(ex->writeImage(svg, &error), qPrintable(error));
    QVERIFY(QFileInfo(svg).size() > 1000);
    // CSV of everything vs. of the visible range after zooming onto the first step.
    const QString all = m_dir.filePath(QStringLiteral("all.csv"));
    QVERIFY2(ex->writeCsv(all, false, &error), qPrintable(error));
    const TrackModel &m = w.view()->scene()->model(0);
    w.view()->zoomControl()->setRange(m.startTime(0, ClockMode::Corrected), m.endTime(0, ClockMode::Corrected));
    const QString part = m_dir.filePath(QStringLiteral("part.csv"));
    QVERIFY2(ex->writeCsv(part, true, &error), qPrintable(error));
    auto lines = [](const QString &path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : -1;
    };
    QCOMPARE(lines(all), 1 + 6 * 3 + 1); // header + events (the open one included)
    QVERIFY(lines(part) >= 1 + 3);
    QVERIFY(lines(part) < lines(all));
    const QString chrome = m_dir.filePath(QStringLiteral("trace.json"));
    QVERIFY2(ex->writeChrome(chrome, &error), qPrintable(error));
    QFile c(chrome);
    QVERIFY(c.open(QIODevice::ReadOnly));
    QVERIFY(c.readAll().contains("\"backward\""));
}

// Info-level notes (e.g. "1 event without an end") do not open the Problems dock; the status
// bar says "1 note" and its button opens it. A warning opens the dock.
void TstMainWindow::notesDoNotOpenProblemsDock()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    auto job = testjob::makeSmallJob();
    job->problems.push_back(
        {LoadProblem::Kind::OpenEvents, LoadProblem::Severity::Info, "w.1.log", 0, "1 event without an end (drawn open)"});
    w.setTimeline(job, {QStringLiteral("small")});
    QVERIFY(!w.problemsDock()->isVisible());
    QVERIFY(w.problemsButton()->isVisible());
    QCOMPARE(w.problemsButton()->text(), QStringLiteral("1 note"));
    QCOMPARE(w.problemsPanel()->count(), 1);
    w.problemsButton()->click();
    QVERIFY(w.problemsDock()->isVisible());

    auto bad = testjob::makeSmallJob();
    bad->problems.push_back({LoadProblem::Kind::Other, LoadProblem::Severity::Info, "w.1.log", 0, "a note"});
    bad->problems.push_back({LoadProblem::Kind::MalformedLine, LoadProblem::Severity::Warning, "w.0.log", 7, "bad record"});
    w.problemsDock()->hide();
    w.setTimeline(bad, {QStringLiteral("bad")});
    QVERIFY(w.problemsDock()->isVisible());
    QVERIFY(w.problemsButton()->text().contains(QStringLiteral("2 problems")));

    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("clean")});
    QVERIFY(!w.problemsDock()->isVisible());
    QVERIFY(!w.problemsButton()->isVisible());
}

// First run (no saved settings) at the default size: the bottom docks leave the timeline most
// of the height, and 16 workers' rows fit it (shrunk), with no blank area under them.
void TstMainWindow::timelineGetsMostOfTheHeight()
{
    QSettings().clear();
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(16, 6, 1'000'000), {QStringLiteral("dense")});
    QCoreApplication::processEvents();
    auto *stats = w.findChild<QDockWidget *>(QStringLiteral("stats"));
    QVERIFY(stats && stats->isVisible());
    QVERIFY2(stats->height() <= w.height() * 0.22,
             qPrintable(QStringLiteral("stats %1 of %2").arg(stats->height()).arg(w.height())));
    QVERIFY2(w.view()->height() >= w.height() * 0.5,
             qPrintable(QStringLiteral("view %1 of %2").arg(w.view()->height()).arg(w.height())));
    // The rows fill the area: fitted to it, or as small as rows get (then they scroll).
    const TimelineScene *scene = w.view()->scene();
    const double avail = w.view()->eventArea().height();
    const double total = scene->layout().totalHeight();
    const RowMetrics def;
    QVERIFY2((total <= avail && total > avail * 0.8) ||
                 scene->layout().metrics().rowHeight <=
                     std::floor(def.rowHeight * TimelineView::kMinRowScale),
             qPrintable(QStringLiteral("rows %1 of %2").arg(total).arg(avail)));
}

// A Compare dock left open when the window closed does not come back in a session without a
// comparison (nor an empty Problems dock).
void TstMainWindow::emptyCompareDockNotRestored()
{
    QSettings().clear();
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.compareDock()->show();
        w.problemsDock()->show();
        QVERIFY(w.compareDock()->isVisible());
        w.close(); // saves the window state
    }
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!w.compareDock()->isVisible());
    QVERIFY(!w.problemsDock()->isVisible());
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    QVERIFY(!w.compareDock()->isVisible());
    QSettings().clear();
}

// Clocks ▸ Align on collective… reloads the job: the range, clock mode, name filter, rank
// range, collapsed and pinned workers, pinned and hidden threads, the selected event and the
// Statistics row stay as they were.
void TstMainWindow::stateKeptAcrossRealign()
{
    const QString a = writeLog(QStringLiteral("keep.0.log"), 0, 20, false);
    const QString b = writeLog(QStringLiteral("keep.1.log"), 1, 20, false);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({a, b});
    QVERIFY(spy.wait(30000));
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    QCOMPARE(scene->timeline().workers.size(), size_t(2));
    // Collapse rank 1 by clicking its header; pin it.
    const LayoutRow h = scene->layout().rows()[size_t(scene->layout().headerOf(1))];
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      QPoint(20, int(view->viewportY(h.y + h.height / 2))));
    QVERIFY(scene->isCollapsed(1));
    scene->setPinned(1, true);
    scene->setTrackPinned(0, true); // rank 0's thread on its own
    w.findBar()->nameFilterEdit()->setText(QStringLiteral("ward")); // forward, backward
    w.setClockMode(ClockMode::Raw);
    const int64_t r0 = view->zoomControl()->traceStart() + 3'000'000;
    view->zoomControl()->setRange(r0, r0 + 2'500'000);
    // Select rank 0's 5th event.
    view->selectEvent({0, 5}, false);
    const QString selectedName = scene->displayName(scene->model(0).nameId(5));
    QTRY_VERIFY(w.statsPanel()->model()->rowCount() > 0);
    const uint32_t backward = scene->timeline().names.find("backward");
    QVERIFY(w.statsPanel()->selectName(backward));
    spy.clear();
    w.reloadAlignedOn(QStringLiteral("backward"));
    QVERIFY(spy.wait(30000));
    QVERIFY(spy.first().at(0).toBool());
    TimelineScene *after = view->scene();
    QVERIFY(after != scene);
    QCOMPARE(w.alignOn(), QStringLiteral("backward"));
    QCOMPARE(after->clockMode(), ClockMode::Raw);
    QCOMPARE(view->zoomControl()->rangeStart(), r0);
    QCOMPARE(view->zoomControl()->rangeEnd(), r0 + 2'500'000);
    QVERIFY(after->isCollapsed(1));
    QVERIFY(!after->isCollapsed(0));
    QVERIFY(after->isPinned(1));
    QVERIFY(after->isTrackPinned(0));
    QVERIFY(!after->isPinned(0));
    QVERIFY(!after->nameVisible(after->timeline().names.find("step")));
    QVERIFY(after->nameVisible(after->timeline().names.find("forward")));
    QCOMPARE(after->selected(), (EventRef{0, 5}));
    QCOMPARE(after->displayName(after->model(0).nameId(5)), selectedName);
    QTRY_COMPARE(w.statsPanel()->table()->currentIndex().data().toString(),
                 QStringLiteral("backward"));
}

// For the docs: SYNCLINE_UI_SCREENSHOTS=DIR and SYNCLINE_UI_SCREENSHOT_JOB=PATH (e.g. the demo
// job's log directory) write DIR/viewer-window.png — the window at 1600×1000 with that job loaded,
// zoomed to ~120 ms around rank 0's 40th all-reduce, which is selected. Skipped otherwise.
void TstMainWindow::screenshotOfJob()
{
    const QString dir = qEnvironmentVariable("SYNCLINE_UI_SCREENSHOTS");
    const QString job = qEnvironmentVariable("SYNCLINE_UI_SCREENSHOT_JOB");
    if (dir.isEmpty() || job.isEmpty())
        QSKIP("SYNCLINE_UI_SCREENSHOTS and SYNCLINE_UI_SCREENSHOT_JOB not set");
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &MainWindow::loadFinished);
    w.openPaths({job});
    QVERIFY(spy.wait(60000));
    QVERIFY(spy.first().at(0).toBool());
    const TimelineScene *scene = w.view()->scene();
    int seen = 0;
    for (int m = 0; m < int(scene->models().size()) && seen < 40; ++m) {
        const TrackModel &tm = scene->model(m);
        for (int i = 0; i < tm.count() && seen < 40; ++i)
            if (scene->displayName(tm.nameId(i)) == QStringLiteral("all_reduce") && ++seen == 40) {
                w.view()->selectEvent({m, i}, false);
                const int64_t mid = tm.startTime(i, ClockMode::Corrected);
                w.view()->zoomControl()->setRange(mid - 70'000'000, mid + 50'000'000);
            }
    }
    QTest::qWait(300); // the stats panel fills the legend
    QVERIFY(w.grab().save(dir + QStringLiteral("/viewer-window.png")));
}

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
