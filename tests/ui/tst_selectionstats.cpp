// Selection statistics through the real widgets (offscreen): a Shift+drag box over some tracks
// and a time range gives the stats of exactly those (equal to Stats::compute with that track
// subset and range); the duration histogram of a chosen name has the expected log-scale bin
// counts per rank, and clicking a bin finds exactly its events; the ruler measure reports the
// time between two points and the events begun between them.
#include "testjob.h"

#include "timeline/report/stats.h"
#include "ui/findbar.h"
#include "ui/histogramchart.h"
#include "ui/mainwindow.h"
#include "ui/selectionmeasure.h"
#include "ui/statspanel.h"
#include "ui/timeformat.h"
#include "ui/timelineview.h"

#include <QComboBox>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstSelectionStats : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void boxSelectionStatsEqualDirectStats();
    void histogramBinsAndFindFromABin();
    void histogramBinEdges_data();
    void histogramBinEdges();
    void measureCountsEventsBetweenTwoPoints();
};

namespace {

// 3 ranks × 2 threads ("main": steps with op children of known durations; "io": reads), so a
// box over some of them differs from the whole job and from a plain time range.
// op durations: rank 0: 1000, 1000, 1500, 20000; rank 1: 1000, 20000, 20000; rank 2: 5000.
std::shared_ptr<Timeline> selectionJob()
{
    auto t = std::make_shared<Timeline>();
    const std::vector<std::vector<int64_t>> ops = {
        {1000, 1000, 1500, 20000}, {1000, 20000, 20000}, {5000}};
    for (int r = 0; r < 3; ++r) {
        Worker w = testjob::makeWorker(r, "host-a");
        w.info.worldSize = 3;
        EventTrack main;
        main.tid = 10 + r;
        main.threadName = "main";
        int64_t at = 0;
        for (int64_t d : ops[size_t(r)]) {
            const int root = int(main.count());
            testjob::addEvent(*t, main, "step", at, at + d + 2000, -1);
            testjob::addEvent(*t, main, "op", at + 1000, at + 1000 + d, root);
            at += d + 10000;
        }
        EventTrack io;
        io.tid = 20 + r;
        io.threadName = "io";
        for (int k = 0; k < 4; ++k)
            testjob::addEvent(*t, io, "read", 7000 * k, 7000 * k + 3000 + 500 * r, -1);
        w.tracks.push_back(std::move(main));
        w.tracks.push_back(std::move(io));
        t->workers.push_back(std::move(w));
    }
    t->updateRange();
    return t;
}

std::vector<StatsRow> allRankRows(std::vector<StatsRow> rows)
{
    std::erase_if(rows, [](const StatsRow &r) { return r.rank.has_value(); });
    return rows;
}

} // namespace

void TstSelectionStats::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_selectionstats"));
}

void TstSelectionStats::boxSelectionStatsEqualDirectStats()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto job = selectionJob();
    StatsPanel *stats = w.statsPanel();
    QSignalSpy ready(stats, &StatsPanel::statsReady);
    w.setTimeline(job, {QStringLiteral("selection")});
    QVERIFY(ready.wait(20000));
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    const QRect area = view->eventArea();
    const RowLayout &layout = scene->layout();
    auto rowY = [&](int model, int depth) {
        const LayoutRow &r = layout.rows()[size_t(layout.rowOf(model, depth))];
        return int(area.top() + r.y - view->verticalScrollBar()->value() + r.height / 2);
    };
    auto xAt = [&](int64_t t) {
        const ZoomControl *z = view->zoomControl();
        return int(area.left() +
                   double(t - z->rangeStart()) * area.width() / double(z->rangeDuration()));
    };
    // From rank 0's io row to rank 1's main depth-1 row (rank 0 io, rank 1 main): 2 threads.
    const int io0 = scene->modelsOf(0).first + 1, main1 = scene->modelsOf(1).first;
    const int64_t t0 = scene->beginNs() + 5000, t1 = scene->beginNs() + 36000;
    const QPoint p0(xAt(t0), rowY(io0, 0)), p1(xAt(t1), rowY(main1, 1));
    QTest::mousePress(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, p0);
    QTest::mouseMove(view->viewport(), (p0 + p1) / 2);
    QTest::mouseMove(view->viewport(), p1);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, p1);
    QCOMPARE(view->boxModels(), (std::vector<int>{io0, main1}));
    QVERIFY(ready.wait(20000));
    QCOMPARE(stats->scopeBox()->currentIndex(), 2);
    QVERIFY2(stats->statusText().contains(QStringLiteral("on 2 threads")),
             qPrintable(stats->statusText()));
    // Exactly the stats of those tracks × that range, computed directly.
    const auto [b0, b1] = view->boxRange();
    QVERIFY(std::abs(b0 - t0) < 200 && std::abs(b1 - t1) < 200); // a pixel's worth
    StatsQuery q;
    q.useRange = true;
    q.beginNs = b0;
    q.endNs = b1;
    q.tracks = {{0, 1}, {1, 0}};
    const std::vector<StatsRow> direct = allRankRows(Stats::compute(*job, q));
    QCOMPARE(stats->model()->rowCount(), int(direct.size()));
    QVERIFY(!direct.empty());
    for (int r = 0; r < stats->model()->rowCount(); ++r) {
        const StatsRow &got = stats->model()->row(r);
        const StatsRow &want = direct[size_t(r)];
        QCOMPARE(got.nameId, want.nameId);
        QCOMPARE(got.count, want.count);
        QCOMPARE(got.totalNs, want.totalNs);
        QCOMPARE(got.p99Ns, want.p99Ns);
    }
    // ... and not the time range alone (rank 2 and rank 1's io are outside the box).
    StatsQuery rangeOnly = q;
    rangeOnly.tracks.clear();
    const auto wide = allRankRows(Stats::compute(*job, rangeOnly));
    int64_t boxCount = 0, wideCount = 0;
    for (const StatsRow &r : direct)
        boxCount += r.count;
    for (const StatsRow &r : wide)
        wideCount += r.count;
    QVERIFY(boxCount < wideCount);
    // The drawn box covers exactly its tracks' rows, and follows them when the rows are
    // re-fitted to a new window height.
    auto tracksExtent = [&] {
        const RowLayout &l = scene->layout();
        double top = 1e300, bottom = -1e300;
        for (const LayoutRow &r : l.rows())
            if (r.kind == LayoutRow::EventRow && (r.model == io0 || r.model == main1)) {
                top = std::min(top, r.y);
                bottom = std::max(bottom, r.y + r.height);
            }
        return std::pair{top, bottom};
    };
    QCOMPARE(view->boxExtent(), tracksExtent());
    const double oldTop = tracksExtent().first;
    w.resize(1400, 600);
    QTRY_VERIFY(tracksExtent().first != oldTop);
    QCOMPARE(view->boxExtent(), tracksExtent());
    // The measure counts the box's events; Esc clears the box (stats back to the whole job).
    QVERIFY2(w.statusText().contains(
                 QStringLiteral("%L1 events")
                     .arg(SelectionMeasure::eventsBetween(*scene, b0, b1, {io0, main1}))),
             qPrintable(w.statusText()));
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(view->boxModels().empty());
    QVERIFY(ready.wait(20000));
    QCOMPARE(stats->scopeBox()->currentIndex(), 0);
}

void TstSelectionStats::histogramBinsAndFindFromABin()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto job = selectionJob();
    StatsPanel *stats = w.statsPanel();
    QSignalSpy ready(stats, &StatsPanel::statsReady);
    QSignalSpy histReady(stats, &StatsPanel::histogramReady);
    w.setTimeline(job, {QStringLiteral("selection")});
    QVERIFY(ready.wait(20000));
    const uint32_t op = job->names.find("op");
    stats->chooseName(op);
    QVERIFY(histReady.wait(20000));
    const DurationHistogram &h = stats->histogram()->histogram();
    QCOMPARE(h.nameId, op);
    // 1000 ns → bin 24 [1 µs, 1.33 µs); 1500 → 25 [1.33 µs, 1.78 µs); 5000 → 29
    // [4.22 µs, 5.62 µs); 20000 → 34 [17.8 µs, 23.7 µs).
    QCOMPARE(h.firstBin, 24);
    QCOMPARE(h.binCount(), 11);
    QCOMPARE(h.ranks, (std::vector<int>{0, 1, 2}));
    QCOMPARE(h.counts[0], (std::vector<int64_t>{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    QCOMPARE(h.counts[1], (std::vector<int64_t>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}));
    QCOMPARE(h.counts[2], (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
    QCOMPARE(h.total, (std::vector<int64_t>{3, 1, 0, 0, 0, 1, 0, 0, 0, 0, 3}));
    // The same as the report layer computes directly.
    const DurationHistogram direct = Stats::histogram(*job, op);
    QCOMPARE(direct.counts, h.counts);
    // Click the 20 µs bar (all ranks): exactly its 3 events are the find matches.
    HistogramChart *chart = stats->histogram();
    QTest::mouseClick(chart, Qt::LeftButton, {}, chart->cellRect(10, -1).center().toPoint());
    TimelineScene *scene = w.view()->scene();
    QCOMPARE(scene->matchingEventCount(), int64_t(3));
    // The first match is selected: its place among them leads ("1 / 3").
    QVERIFY2(w.findBar()->statusText().startsWith(QStringLiteral("1 / 3 events · 1 name · ")),
             qPrintable(w.findBar()->statusText()));
    const EventRef sel = scene->selected();
    QVERIFY(sel.valid());
    QCOMPARE(scene->model(sel.model).duration(sel.index, scene->clockMode()), int64_t(20000));
    // Only those are lit: an `op` of 1 µs is dimmed, a 20 µs one is not.
    QVERIFY(scene->eventMatches(sel.model, sel.index));
    QVERIFY(!scene->eventMatches(scene->modelsOf(0).first, 1)); // rank 0's first op (1 µs)
    // Rank 1's cell of the 1 µs bin: one event.
    QTest::mouseClick(chart, Qt::LeftButton, {}, chart->cellRect(0, 1).center().toPoint());
    QCOMPARE(scene->matchingEventCount(), int64_t(1));
    QVERIFY2(w.findBar()->statusText().endsWith(QStringLiteral("rank 1")),
             qPrintable(w.findBar()->statusText()));
    // Typing another search drops the bin.
    w.findBar()->findEdit()->setText(QStringLiteral("op"));
    QCOMPARE(scene->matchingEventCount(), int64_t(8));
}

void TstSelectionStats::histogramBinEdges_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<int>("bin");
    QTest::newRow("1 ns") << qint64(1) << 0;
    QTest::newRow("2 ns") << qint64(2) << 1; // 1 ns bins below 10 ns
    QTest::newRow("9 ns") << qint64(9) << 7;
    QTest::newRow("10 ns") << qint64(10) << 8;
    QTest::newRow("999 ns") << qint64(999) << 23;
    QTest::newRow("1 µs") << qint64(1000) << 24;
    QTest::newRow("1.333 µs") << qint64(1333) << 24;
    QTest::newRow("1.334 µs") << qint64(1334) << 25; // edge(25) = round(10^3.125) = 1334
    QTest::newRow("10 ms") << qint64(10000000) << 56;
    QTest::newRow("31.6 ms") << qint64(31622777) << 60;
}

void TstSelectionStats::histogramBinEdges()
{
    QFETCH(qint64, ns);
    QFETCH(int, bin);
    QCOMPARE(DurationHistogram::binOf(ns), bin);
    QVERIFY(DurationHistogram::edge(bin) <= ns);
    QVERIFY(DurationHistogram::edge(bin + 1) > ns);
}

// Drag on the ruler between two points: the status bar gives the time between them and the
// events begun between them, equal to a count over every event.
void TstSelectionStats::measureCountsEventsBetweenTwoPoints()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto job = selectionJob();
    w.setTimeline(job, {QStringLiteral("selection")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    const QRect area = view->eventArea();
    const QPoint a(area.left() + area.width() / 5, TimelineView::kRulerHeight / 2);
    const QPoint b(area.left() + area.width() * 3 / 5, TimelineView::kRulerHeight / 2);
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, a);
    QTest::mouseMove(view->viewport(), b);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, b);
    const ZoomControl *z = view->zoomControl();
    QVERIFY(z->hasSelection());
    const int64_t s = z->selectionStart(), e = z->selectionEnd();
    int64_t brute = 0;
    for (const Worker &wk : job->workers)
        for (const EventTrack &t : wk.tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t g = wk.map(scene->clockMode()).toGlobal(t.localStart[i]);
                brute += g >= s && g <= e;
            }
    QVERIFY(brute > 0);
    QCOMPARE(SelectionMeasure::eventsBetween(*scene, s, e), brute);
    QVERIFY2(w.statusText().contains(
                 QStringLiteral("selection %1 · %L2 events").arg(formatDuration(e - s)).arg(brute)),
             qPrintable(w.statusText()));
}

QTEST_MAIN(TstSelectionStats)
#include "tst_selectionstats.moc"
