// The viewer's small consistencies, through the real widgets: a drag on the ruler switches
// Statistics to the selected range (as a Shift+drag box does); End resumes live follow while a
// dock has the focus; the attach placeholder names the directory being waited on; File ▸ Open
// window… starts on the visible range; export dialogs start in the job's directory; wall-clock
// ruler ticks fall on round wall times.
#include "testjob.h"
#include "ui/detailspanel.h"
#include "ui/exportactions.h"
#include "ui/keymotion.h"
#include "ui/zoomcontrol.h"
#include "ui/liveattachment.h"
#include "ui/loadcontroller.h"
#include "ui/mainwindow.h"
#include "ui/openwindowdialog.h"
#include "ui/statspanel.h"
#include "ui/timelinepainter.h"
#include "ui/timelineview.h"

#include <QApplication>
#include <QComboBox>
#include <QHelpEvent>
#include <QToolTip>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QMenuBar>
#include <QProgressBar>
#include <QScrollBar>
#include <QWheelEvent>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstViewerConsistency : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void rulerDragDrivesStatistics();
    void endFromDockResumesFollow();
    void openWindowStartsOnVisibleRange();
    void exportStartsInJobDirectory();
    void wallClockTicksAreRound();
    void detailsAndTooltip();
    void heldKeyZoomsUntilReleased();
    void wheelScrollsSetting();
    void progressTextNotClipped();
};

void TstViewerConsistency::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_viewerconsistency"));
    QSettings().clear();
}

void TstViewerConsistency::rulerDragDrivesStatistics()
{
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    QCOMPARE(w.statsPanel()->scopeBox()->currentIndex(), 0); // whole job
    QWidget *vp = w.view()->viewport();
    const int x0 = w.view()->eventArea().left() + 100, x1 = x0 + 300;
    QTest::mousePress(vp, Qt::LeftButton, {}, QPoint(x0, 10));
    QMouseEvent move(QEvent::MouseMove, QPointF(x1, 10), vp->mapToGlobal(QPointF(x1, 10)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &move);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, QPoint(x1, 10));
    QVERIFY(w.view()->zoomControl()->hasSelection());
    QCOMPARE(w.statsPanel()->scopeBox()->currentIndex(), 1); // Selected range
}

void TstViewerConsistency::endFromDockResumesFollow()
{
    QTemporaryDir dir;
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    LiveOptions o;
    o.path = dir.path().toStdString();
    QString error;
    LiveAttachment *a = LiveAttachment::attach(&w, o, {}, &error);
    QVERIFY2(a, qPrintable(error));
    QVERIFY2(w.view()->placeholderText().contains(QStringLiteral("waiting for logs in ")) &&
                 w.view()->placeholderText().contains(dir.path()),
             qPrintable(w.view()->placeholderText()));
    // The Workers and Statistics tables, and the Details panel (a text browser, which takes
    // End for its own cursor unless the window keeps it for the shortcut).
    for (QWidget *focus : {static_cast<QWidget *>(a->table()),
                           static_cast<QWidget *>(w.statsPanel()->table()),
                           static_cast<QWidget *>(w.detailsPanel())}) {
        a->setFollowing(false);
        QVERIFY(!a->isFollowing());
        focus->setFocus();
        QTest::keyClick(focus, Qt::Key_End);
        QVERIFY2(a->isFollowing(), focus->metaObject()->className());
    }
}

// Finds the visible modal dialog of type T once the event loop runs, hands it to `check` and
// closes it.
template<typename T>
static void whenModal(std::function<void(T *)> check)
{
    QTimer::singleShot(50, [check] {
        T *d = qobject_cast<T *>(QApplication::activeModalWidget());
        if (d) {
            check(d);
            d->reject();
        }
    });
}

static QAction *menuAction(MainWindow &w, const QString &text)
{
    for (QAction *a : w.menuBar()->findChildren<QAction *>())
        if (a->text().remove(QLatin1Char('&')) == text)
            return a;
    return nullptr;
}

void TstViewerConsistency::openWindowStartsOnVisibleRange()
{
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    const int64_t origin = w.view()->scene()->originNs();
    w.view()->zoomControl()->setRange(origin + 4000, origin + 9000);
    double begin = -1, end = -1;
    whenModal<OpenWindowDialog>([&](OpenWindowDialog *d) {
        begin = d->beginBox()->value();
        end = d->endBox()->value();
    });
    QAction *open = menuAction(w, QStringLiteral("Open window…"));
    QVERIFY(open);
    open->trigger();
    QCOMPARE(begin, 4e-6);
    QCOMPARE(end, 9e-6);
}

void TstViewerConsistency::exportStartsInJobDirectory()
{
    QTemporaryDir dir;
    auto job = testjob::makeSmallJob();
    for (Worker &wk : job->workers)
        wk.info.sourceFile = dir.filePath(QStringLiteral("w.log")).toStdString();
    MainWindow w;
    w.show();
    w.setTimeline(job, {dir.path()});
    QString shown;
    whenModal<QFileDialog>([&](QFileDialog *d) { shown = d->directory().absolutePath(); });
    QAction *csv = nullptr;
    for (QAction *a : w.menuBar()->findChildren<QAction *>())
        if (a->text().startsWith(QStringLiteral("Chrome trace JSON")))
            csv = a;
    QVERIFY(csv);
    csv->trigger();
    QCOMPARE(shown, QDir(dir.path()).absolutePath());
}

void TstViewerConsistency::wallClockTicksAreRound()
{
    auto job = testjob::makeSmallJob();
    job->workers[0].info.anchorMonoNs = 0;
    job->workers[0].info.anchorWallNs = 1'700'000'000'123'456'789; // not round
    TimelineScene scene(job);
    for (const auto &[b, e] : {std::pair<int64_t, int64_t>{700, 19'000}, {1'234, 5'678}}) {
        int64_t step = 0;
        const int64_t origin = TimelinePainter::tickOrigin(scene, true, b, e, 1000, 90);
        const auto ticks = TimelinePainter::rulerTicks(b, e, origin, 1000, 90, &step);
        QVERIFY(ticks.size() >= 3);
        for (const RulerTick &t : ticks) {
            int64_t wall = 0;
            QVERIFY(scene.wallClock(t.time, &wall));
            QVERIFY2(wall % step == 0, qPrintable(QStringLiteral("wall %1 step %2").arg(wall).arg(step)));
        }
    }
    // Without wall-clock labels: counted from the display origin, as before.
    QCOMPARE(TimelinePainter::tickOrigin(scene, false, 700, 19'000, 1000, 90), scene.originNs());
}

// Details: a collective instance's block comes first, its ranks latest begin first; args are a
// key/value tree, not one JSON string. The tooltip is compact: name and duration, where, clock.
void TstViewerConsistency::detailsAndTooltip()
{
    auto t = std::make_shared<Timeline>();
    const int64_t begins[] = {1000, 5000, 3000}; // rank 1 begins last, then rank 2
    for (int r = 0; r < 3; ++r) {
        Worker w = testjob::makeWorker(r, "host-a");
        w.info.sourceFile = "w" + std::to_string(r) + ".log";
        EventTrack tr;
        tr.tid = 7;
        tr.threadName = "main";
        testjob::addEvent(*t, tr, "all_reduce", begins[r], 9000, -1, EventHasArgs);
        tr.argRefs.emplace_back(0u, t->args.intern(R"({"step":3,"opt":{"lr":0.125,"name":"adam"}})"));
        w.tracks.push_back(std::move(tr));
        t->workers.push_back(std::move(w));
    }
    t->kinds.resize(t->names.size());
    t->kinds[t->names.find("all_reduce")].collective = true;
    t->updateRange();
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(t, {QStringLiteral("coll")});
    w.view()->selectEvent({0, 0}, false);
    const QString text = w.detailsPanel()->toPlainText();
    const qsizetype block = text.indexOf(QStringLiteral("Collective instance"));
    QVERIFY2(block >= 0 && block < text.indexOf(QStringLiteral("Parents")), qPrintable(text));
    const qsizetype r1 = text.indexOf(QStringLiteral("rank 1 begins")),
                    r2 = text.indexOf(QStringLiteral("rank 2 begins")),
                    r0 = text.indexOf(QStringLiteral("rank 0 begins"));
    QVERIFY2(r1 >= 0 && r1 < r2 && r2 < r0, qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("{\"step\"")), qPrintable(text)); // not raw JSON
    for (const char *part : {"Args", "step", "opt", "lr", "0.125", "name", "adam"})
        QVERIFY2(text.contains(QLatin1String(part)), part);
    QVERIFY(text.indexOf(QStringLiteral("lr")) > text.indexOf(QStringLiteral("opt")));
    // The tooltip over rank 0's all_reduce.
    TimelineView *view = w.view();
    const LayoutRow row = view->scene()->layout().rows()[size_t(view->scene()->layout().rowOf(0, 0))];
    const QPoint p(view->eventArea().left() +
                       int(view->zoomControl()->xOf(6000, view->eventArea().width())),
                   int(view->viewportY(row.y + row.height / 2)));
    QHelpEvent help(QEvent::ToolTip, p, view->viewport()->mapToGlobal(p));
    QApplication::sendEvent(view->viewport(), &help);
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QStringLiteral("all_reduce")) && tip.contains(QStringLiteral("8.00 µs")) &&
                 tip.contains(QStringLiteral("rank 0")) && tip.contains(QStringLiteral("main (7)")),
             qPrintable(tip));
    QVERIFY2(tip.count(QStringLiteral("<br>")) <= 2 && !tip.contains(QStringLiteral("adam")),
             qPrintable(tip));
}

// W held: one 1.5× step at the press, then a continuous zoom while it is down (auto-repeat
// presses add nothing), stopping at the release — no overshoot afterwards.
void TstViewerConsistency::heldKeyZoomsUntilReleased()
{
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(4, 3000, 1'000'000), {QStringLiteral("dense")});
    TimelineView *view = w.view();
    ZoomControl *z = view->zoomControl();
    view->setFocus();
    const int64_t full = z->rangeDuration();
    QKeyEvent press(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier, QStringLiteral("w"));
    QApplication::sendEvent(view, &press);
    const int64_t tapped = z->rangeDuration();
    QVERIFY(std::abs(double(full) / double(tapped) - 1.5) < 0.01);
    QKeyEvent repeat(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier, QStringLiteral("w"), true);
    QApplication::sendEvent(view, &repeat);
    QCOMPARE(z->rangeDuration(), tapped); // a repeat is not a step
    QTRY_VERIFY(z->rangeDuration() < tapped / 2); // held: it keeps zooming in
    QKeyEvent release(QEvent::KeyRelease, Qt::Key_W, Qt::NoModifier, QStringLiteral("w"));
    QApplication::sendEvent(view, &release);
    const int64_t released = z->rangeDuration();
    QVERIFY(!view->keyMotion()->moving());
    QTest::qWait(KeyMotion::kHoldDelayMs + 100);
    QCOMPARE(z->rangeDuration(), released); // stopped at the release
    // Held from a dock (the stats table): the press and the release both reach the view.
    w.statsPanel()->table()->setFocus();
    QKeyEvent dockPress(QEvent::KeyPress, Qt::Key_S, Qt::NoModifier, QStringLiteral("s"));
    QApplication::sendEvent(w.statsPanel()->table(), &dockPress);
    QVERIFY(view->keyMotion()->moving());
    QKeyEvent dockRelease(QEvent::KeyRelease, Qt::Key_S, Qt::NoModifier, QStringLiteral("s"));
    QApplication::sendEvent(w.statsPanel()->table(), &dockRelease);
    QVERIFY(!view->keyMotion()->moving());
}

// View ▸ Wheel scrolls, Ctrl+wheel zooms: the wheel scrolls the workers and keeps the range;
// Ctrl+wheel zooms. Off (the default): the wheel zooms.
void TstViewerConsistency::wheelScrollsSetting()
{
    MainWindow w;
    w.resize(1000, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(40, 30, 1'000'000), {QStringLiteral("dense")});
    TimelineView *view = w.view();
    ZoomControl *z = view->zoomControl();
    QVERIFY(view->wheelZooms());
    QAction *scrolls = w.findChild<QAction *>(QStringLiteral("wheelScrollsAction"));
    QVERIFY(scrolls);
    auto wheel = [&](Qt::KeyboardModifiers mods, int dy) {
        const QPointF at(view->eventArea().center());
        QWheelEvent e(at, view->viewport()->mapToGlobal(at), QPoint(), QPoint(0, dy),
                      Qt::NoButton, mods, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view->viewport(), &e);
    };
    const int64_t full = z->rangeDuration();
    wheel(Qt::NoModifier, 120);
    QVERIFY(z->rangeDuration() < full); // Tracy: the wheel zooms
    z->fit();
    scrolls->trigger();
    QVERIFY(!view->wheelZooms());
    QCOMPARE(QSettings().value(QStringLiteral("view/wheelZooms")).toBool(), false);
    const int scroll = view->verticalScrollBar()->value();
    wheel(Qt::NoModifier, -120);
    QCOMPARE(z->rangeDuration(), full);
    QVERIFY(view->verticalScrollBar()->value() > scroll); // scrolled down
    wheel(Qt::ControlModifier, 120);
    QVERIFY(z->rangeDuration() < full); // Ctrl+wheel zooms
    scrolls->trigger();
    QVERIFY(view->wheelZooms());
    QSettings().remove(QStringLiteral("view/wheelZooms"));
}

// The load's progress text (Clocks ▸ Align on collective… reloads with it) fits its bar.
void TstViewerConsistency::progressTextNotClipped()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *loader = w.findChild<LoadController *>();
    QVERIFY(loader);
    auto *bar = w.findChild<QProgressBar *>();
    QVERIFY(bar);
    bar->show();
    emit loader->progress(0.34, QStringLiteral("correcting clocks (pairing messages, 64 workers)"));
    QCoreApplication::processEvents();
    const int need = bar->fontMetrics().horizontalAdvance(bar->text());
    QVERIFY2(bar->width() >= need, qPrintable(QStringLiteral("%1 px for %2 px of '%3'")
                                                   .arg(bar->width())
                                                   .arg(need)
                                                   .arg(bar->text())));
}

QTEST_MAIN(TstViewerConsistency)
#include "tst_viewerconsistency.moc"
