// Track control through the real widgets: the timeline's context menus (right-click on a group
// header, a thread label and an event) — pin to top (the pinned worker, or one pinned thread
// under its worker's label, stays above the scroll area; a pinned thread survives filters and a
// reload, and unpinning puts it back in its group), hide a worker or a thread and restore it from the Hidden list, show only this worker,
// zoom to, find all of a name, show it in Statistics, copy name / time — and the find bar's
// thread-name filter. Rows re-fit to what stays shown.
#include "testjob.h"
#include "ui/findbar.h"
#include "ui/mainwindow.h"
#include "ui/statspanel.h"
#include "ui/timelineview.h"
#include "ui/trackmenu.h"
#include "ui/viewstyle.h"
#include "ui/colourscheme.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstTrackControl : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void pinKeepsWorkerAboveScrollArea();
    void pinThreadRoundTrip();
    void hideAndRestoreRoundTrip();
    void eventMenuActions();
    void threadFilter();
    void findHighlightIsNoEventColour();

private:
    // Right-clicks viewport point pos; returns the popup menu shown (nullptr when none).
    static QMenu *rightClick(TimelineView *view, QPoint pos);
    static QAction *action(QMenu *menu, const char *name);
    static QPoint headerPoint(TimelineView *view, int worker);
};

void TstTrackControl::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_trackcontrol"));
    QSettings().clear();
}

QMenu *TstTrackControl::rightClick(TimelineView *view, QPoint pos)
{
    QContextMenuEvent ev(QContextMenuEvent::Mouse, pos, view->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(view->viewport(), &ev);
    return qobject_cast<QMenu *>(QApplication::activePopupWidget());
}

QAction *TstTrackControl::action(QMenu *menu, const char *name)
{
    for (QAction *a : menu->findChildren<QAction *>())
        if (a->objectName() == QLatin1String(name))
            return a;
    return nullptr;
}

QPoint TstTrackControl::headerPoint(TimelineView *view, int worker)
{
    const TimelineScene *s = view->scene();
    const int r = s->layout().headerOf(worker);
    if (r < 0)
        return {};
    view->revealRow(r);
    const LayoutRow &row = s->layout().rows()[size_t(r)];
    return QPoint(20, int(view->viewportY(row.y + row.height / 2)));
}

void TstTrackControl::pinKeepsWorkerAboveScrollArea()
{
    MainWindow w;
    w.resize(1000, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeDenseJob(40, 30, 1'000'000), {QStringLiteral("dense")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    QVERIFY(view->verticalScrollBar()->maximum() > 0); // 40 workers do not fit: it scrolls
    QMenu *menu = rightClick(view, headerPoint(view, 30));
    QVERIFY(menu);
    QAction *pin = action(menu, "pin");
    QVERIFY(pin);
    pin->trigger();
    menu->close();
    QVERIFY(scene->isPinned(30));
    QCOMPARE(scene->layout().rows().front().worker, 30); // laid out first
    QVERIFY(view->pinnedPx() > 0);
    // Scrolled to the end and to the start: worker 30's rows stay at the same viewport place,
    // above the scroll area, and hit-test there.
    const LayoutRow first = scene->layout().rows()[1];
    const int y = int(view->viewportY(first.y + first.height / 2));
    const int x = view->eventArea().left() + view->eventArea().width() / 2;
    for (int scroll : {view->verticalScrollBar()->maximum(), 0}) {
        view->verticalScrollBar()->setValue(scroll);
        QCOMPARE(int(view->viewportY(first.y + first.height / 2)), y);
        const EventRef ref = view->eventAt(QPoint(x, y));
        QVERIFY(ref.valid());
        QCOMPARE(int(scene->model(ref.model).worker()), 30);
    }
    // Below the band, scrolling moves the rows: the row under a point changes.
    const int below = int(view->pinnedPx()) + TimelineView::kRulerHeight + 30;
    const double c0 = view->contentY(below);
    view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
    QVERIFY(view->contentY(below) > c0);
    // Unpin from the same menu.
    menu = rightClick(view, QPoint(20, y));
    QVERIFY(menu);
    QCOMPARE(action(menu, "pin")->text(), QStringLiteral("Unpin"));
    action(menu, "pin")->trigger();
    menu->close();
    QVERIFY(!scene->isPinned(30));
    QCOMPARE(view->pinnedPx(), 0.0);
}

namespace {

// 40 workers × two threads: "main" (the dense pattern) and "loader" (one long event).
std::shared_ptr<Timeline> twoThreadJob()
{
    auto t = testjob::makeDenseJob(40, 30, 1'000'000);
    for (size_t w = 0; w < t->workers.size(); ++w) {
        EventTrack loader;
        loader.tid = 5000 + int(w);
        loader.threadName = "loader";
        testjob::addEvent(*t, loader, "load", 2000, 8'000'000, -1);
        t->workers[w].tracks.push_back(std::move(loader));
    }
    t->updateRange();
    return t;
}

} // namespace

// A thread's label menu pins that thread alone: it moves above the scroll area under its worker's
// label (the worker's other thread stays in its group), hit-tests there at any scroll, is kept
// while filters hide it and across a reload of the same job, and Unpin puts it back.
void TstTrackControl::pinThreadRoundTrip()
{
    MainWindow w;
    w.resize(1000, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(twoThreadJob(), {QStringLiteral("two-thread")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    QVERIFY(view->verticalScrollBar()->maximum() > 0);
    const int loader = scene->modelsOf(30).first + 1, main = loader - 1;
    QCOMPARE(scene->threadLabel(loader), QStringLiteral("loader (5030)"));
    const size_t rows = scene->layout().rows().size();
    auto labelPoint = [&](int model) {
        const int r = scene->layout().rowOf(model, 0);
        view->revealRow(r);
        const LayoutRow &row = scene->layout().rows()[size_t(r)];
        return QPoint(30, int(view->viewportY(row.y + row.height / 2)));
    };
    QMenu *menu = rightClick(view, labelPoint(loader));
    QVERIFY(menu);
    QAction *pin = action(menu, "pinThread");
    QVERIFY(pin);
    QCOMPARE(pin->text(), QStringLiteral("Pin thread loader (5030) to top"));
    pin->trigger();
    menu->close();
    QVERIFY(scene->isTrackPinned(loader));
    QVERIFY(!scene->isPinned(30));
    // The band: worker 30's label, then the loader's row; nothing else.
    const RowLayout &layout = scene->layout();
    QVERIFY(view->pinnedPx() > 0);
    QCOMPARE(layout.rows()[0].kind, LayoutRow::GroupHeader);
    QCOMPARE(layout.rows()[0].worker, 30);
    QVERIFY(layout.rows()[0].pinnedThreads);
    QCOMPARE(layout.rows()[1].model, loader);
    QCOMPARE(layout.pinnedHeight(), layout.rows()[1].y + layout.rows()[1].height +
                                        layout.metrics().trackGap);
    QCOMPARE(layout.rows().size(), rows + 1); // one header more, the thread's rows moved
    // Worker 30's own group below keeps its main thread and its header.
    QVERIFY(layout.rows()[size_t(layout.headerOf(30))].y >= layout.pinnedHeight());
    QVERIFY(layout.rows()[size_t(layout.rowOf(main, 0))].y >= layout.pinnedHeight());
    const LayoutRow pinnedRow = layout.rows()[1];
    const int y = int(view->viewportY(pinnedRow.y + pinnedRow.height / 2));
    const int x = view->eventArea().left() + view->eventArea().width() / 2;
    for (int scroll : {view->verticalScrollBar()->maximum(), 0}) {
        view->verticalScrollBar()->setValue(scroll);
        QCOMPARE(int(view->viewportY(pinnedRow.y + pinnedRow.height / 2)), y);
        QCOMPARE(view->eventAt(QPoint(x, y)).model, loader);
    }
    // Filters: the thread filter and the rank range hide it, the pin stays and shows again.
    QTest::keyClicks(w.findBar()->threadFilterEdit(), QStringLiteral("main"));
    QCOMPARE(view->pinnedPx(), 0.0);
    QVERIFY(scene->isTrackPinned(loader));
    w.findBar()->threadFilterEdit()->clear();
    QCOMPARE(scene->layout().rows()[1].model, loader);
    w.findBar()->maxRankBox()->setValue(20);
    QCOMPARE(view->pinnedPx(), 0.0);
    w.findBar()->maxRankBox()->setValue(39);
    QCOMPARE(scene->layout().rows()[1].model, loader);
    // A reload of the same job keeps it pinned.
    w.setTimeline(twoThreadJob(), {QStringLiteral("two-thread")});
    QVERIFY(view->scene() != scene);
    scene = view->scene();
    QVERIFY(scene->isTrackPinned(loader));
    QVERIFY(!scene->isTrackPinned(main));
    QCOMPARE(scene->layout().rows()[1].model, loader);
    // Unpin from the pinned row's own label menu: back in its group, after its worker's main.
    menu = rightClick(view, QPoint(30, int(view->viewportY(pinnedRow.y + pinnedRow.height / 2))));
    QVERIFY(menu);
    QCOMPARE(action(menu, "pinThread")->text(), QStringLiteral("Unpin thread loader (5030)"));
    action(menu, "pinThread")->trigger();
    menu->close();
    QVERIFY(!scene->isTrackPinned(loader));
    QCOMPARE(view->pinnedPx(), 0.0);
    QCOMPARE(scene->layout().rows().size(), rows);
    QCOMPARE(scene->layout().rowOf(loader, 0), scene->layout().rowOf(main, 1) + 1);
}

void TstTrackControl::hideAndRestoreRoundTrip()
{
    MainWindow w;
    w.resize(1000, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    const size_t rows = scene->layout().rows().size();
    // Hide the thread "loader" (model 1) from its label's menu.
    const int loaderRow = scene->layout().rowOf(1, 0);
    QVERIFY(loaderRow >= 0);
    const LayoutRow lr = scene->layout().rows()[size_t(loaderRow)];
    QMenu *menu = rightClick(view, QPoint(30, int(view->viewportY(lr.y + lr.height / 2))));
    QVERIFY(menu);
    QVERIFY(action(menu, "hideThread"));
    action(menu, "hideThread")->trigger();
    menu->close();
    QVERIFY(!scene->modelShown(1));
    QCOMPARE(scene->layout().rowOf(1, 0), -1);
    QCOMPARE(scene->layout().rows().size(), rows - 1);
    QVERIFY(w.findBar()->hiddenButton()->isVisible());
    QCOMPARE(w.findBar()->hiddenButton()->text(), QStringLiteral("Hidden (1)"));
    // Hide worker 1 from its header's menu; both listed; restore the thread from the list.
    menu = rightClick(view, headerPoint(view, 1));
    action(menu, "hideWorker")->trigger();
    menu->close();
    QCOMPARE(scene->layout().headerOf(1), -1);
    QCOMPARE(w.findBar()->hiddenButton()->text(), QStringLiteral("Hidden (2)"));
    menu = rightClick(view, headerPoint(view, 0));
    QMenu *hidden = menu->findChild<QMenu *>(QStringLiteral("hiddenMenu"));
    QVERIFY(hidden);
    QStringList listed;
    for (QAction *a : hidden->actions())
        if (a->objectName() == QLatin1String("restore"))
            listed << a->text();
    QCOMPARE(listed.size(), 2);
    QVERIFY2(listed.join(';').contains(QStringLiteral("loader (101)")), qPrintable(listed.join(';')));
    for (QAction *a : hidden->actions())
        if (a->text().contains(QStringLiteral("loader")))
            a->trigger();
    menu->close();
    QVERIFY(scene->modelShown(1));
    // Show only worker 0, then Show all from the find bar's Hidden list.
    menu = rightClick(view, headerPoint(view, 0));
    action(menu, "showOnly")->trigger();
    menu->close();
    QCOMPARE(scene->hiddenWorkers(), std::vector<int>{1});
    QMenu *barMenu = w.findBar()->hiddenButton()->menu();
    QVERIFY(barMenu);
    emit barMenu->aboutToShow();
    QAction *all = action(barMenu, "showAll");
    QVERIFY(all);
    all->trigger();
    QVERIFY(scene->hiddenWorkers().empty() && scene->hiddenTracks().empty());
    QCOMPARE(scene->layout().rows().size(), rows);
    QVERIFY(!w.findBar()->hiddenButton()->isVisible());
}

void TstTrackControl::eventMenuActions()
{
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    // Worker 0's "backward" (model 0, event 3, depth 1).
    const EventRef target{0, 3};
    const LayoutRow row = scene->layout().rows()[size_t(scene->layout().rowOf(0, 1))];
    const int64_t mid = (scene->model(0).startTime(3, scene->clockMode()) +
                         scene->model(0).endTime(3, scene->clockMode())) /
                        2;
    const QPoint p(view->eventArea().left() +
                       int(view->zoomControl()->xOf(mid, view->eventArea().width())),
                   int(view->viewportY(row.y + row.height / 2)));
    QCOMPARE(view->eventAt(p), target);
    QMenu *menu = rightClick(view, p);
    QVERIFY(menu);
    action(menu, "copyName")->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("backward"));
    action(menu, "copyTime")->trigger();
    QVERIFY2(QApplication::clipboard()->text().endsWith(QStringLiteral("(3.00000000 µs)")),
             qPrintable(QApplication::clipboard()->text()));
    QVERIFY(!action(menu, "copyArgs")->isEnabled()); // no args
    action(menu, "zoomTo")->trigger();
    QVERIFY(view->zoomControl()->rangeStart() <= 5000 && view->zoomControl()->rangeEnd() >= 8000);
    QVERIFY(view->zoomControl()->rangeDuration() < 4000);
    QCOMPARE(scene->selected(), target);
    action(menu, "findName")->trigger();
    QCOMPARE(w.findBar()->findEdit()->text(), QStringLiteral("^backward$"));
    QVERIFY(w.findBar()->isRegex());
    QCOMPARE(scene->matchingEventCount(), 1);
    QVERIFY2(w.findBar()->statusText().startsWith(QStringLiteral("1 / 1 event")),
             qPrintable(w.findBar()->statusText())); // the selected event is the match
    action(menu, "showStats")->trigger();
    menu->close();
    auto *stats = w.findChild<QDockWidget *>(QStringLiteral("stats"));
    QVERIFY(stats->isVisible());
    // The table fills in the background; the chosen row follows once it has.
    QTRY_VERIFY(w.statsPanel()->selectName(scene->model(0).nameId(3)));
    QCOMPARE(w.statsPanel()->table()->currentIndex().data().toString(), QStringLiteral("backward"));
}

void TstTrackControl::threadFilter()
{
    MainWindow w;
    w.resize(1000, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(testjob::makeSmallJob(), {QStringLiteral("small")});
    TimelineScene *scene = w.view()->scene();
    QTest::keyClicks(w.findBar()->threadFilterEdit(), QStringLiteral("LOAD"));
    QVERIFY(!scene->modelShown(0));
    QVERIFY(scene->modelShown(1));
    QVERIFY(!scene->modelShown(2));
    for (const LayoutRow &r : scene->layout().rows())
        QVERIFY(r.kind == LayoutRow::GroupHeader || r.model == 1);
    w.findBar()->threadFilterEdit()->clear();
    for (int m = 0; m < 3; ++m)
        QVERIFY(scene->modelShown(m));
}

// The find mark (folds, overview) must not read as an event: far from every colour a name can
// take, in both themes (the orange it had was the demo's `backward`).
void TstTrackControl::findHighlightIsNoEventColour()
{
    ColourScheme scheme;
    for (const ViewStyle &style : {ViewStyle::light(), ViewStyle::darkStyle()}) {
        const QColor m = style.match;
        for (int i = 0; i < scheme.colourCount(); ++i) {
            const QColor c = scheme.colour(i, style.dark);
            const int d = std::abs(c.red() - m.red()) + std::abs(c.green() - m.green()) +
                          std::abs(c.blue() - m.blue());
            QVERIFY2(d > 120, qPrintable(QStringLiteral("palette %1 (%2) is %3 from the match "
                                                        "colour %4")
                                             .arg(i)
                                             .arg(c.name())
                                             .arg(d)
                                             .arg(m.name())));
        }
    }
}

QTEST_MAIN(TstTrackControl)
#include "tst_trackcontrol.moc"
