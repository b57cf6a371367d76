// Tests the geometry function (LOD, folding, labels), its cache, hit-testing at event edges and
// the ruler ticks — no widget involved.
#include "testjob.h"

#include "ui/timelinegeometry.h"
#include "ui/timelinepainter.h"

#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstTimelineGeometry : public QObject
{
    Q_OBJECT
private slots:
    void fullViewOfSmallJob();
    void zoomedRangeClipsAndCounts();
    void hitTestAtEdges_data();
    void hitTestAtEdges();
    void hitTestCollapsedHeaderAndGaps();
    void foldsMillionEventsBoundedByWidth_data();
    void foldsMillionEventsBoundedByWidth();
    void searchDimsAndFilterHides();
    void cacheKeysOnRequestAndRevision();
    void rulerTicks_data();
    void rulerTicks();
};

namespace {

GeometryRequest request(int64_t start, int64_t end, double width, double height = 1000)
{
    GeometryRequest r;
    r.rangeStart = start;
    r.rangeEnd = end;
    r.width = width;
    r.height = height;
    return r;
}

size_t rectCount(const TimelineGeometry &g)
{
    size_t n = 0;
    for (const auto &b : g.batches)
        n += b.rects.size();
    return n;
}

} // namespace

void TstTimelineGeometry::fullViewOfSmallJob()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    // 1 px = 10 ns: every event is at least 100 px wide.
    const TimelineGeometry g = computeGeometry(scene, request(0, 20000, 2000));
    QCOMPARE(g.eventsDrawn, int64_t(9));
    QCOMPARE(g.eventsFolded, int64_t(0));
    QCOMPARE(rectCount(g), size_t(9));
    QCOMPARE(g.labels.size(), size_t(9));
    QCOMPARE(g.openRects.size(), size_t(1)); // allreduce
    // matmul: x = (1500 - 0) * 0.1 = 150, width (2500-1500)*0.1 - 1 px gap = 99.
    const LayoutRow &row = scene.layout().rows()[3];
    bool found = false;
    for (const auto &b : g.batches) {
        for (const QRectF &r : b.rects) {
            if (qFuzzyCompare(r.x(), 150.0) && qFuzzyCompare(r.y(), row.y + 1)) {
                QCOMPARE(r.width(), 99.0);
                QCOMPARE(r.height(), row.height - 2);
                found = true;
            }
        }
    }
    QVERIFY(found);
}

void TstTimelineGeometry::zoomedRangeClipsAndCounts()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    // [5000, 6000): step 0 (d0, w0), backward (d1), step (w1 global 1000..9000) are visible.
    const TimelineGeometry g = computeGeometry(scene, request(5000, 6000, 1000));
    QCOMPARE(g.eventsDrawn, int64_t(3));
    for (const auto &b : g.batches) {
        for (const QRectF &r : b.rects) {
            QVERIFY(r.left() >= -2.0);
            QVERIFY(r.right() <= 1002.0);
        }
    }
}

void TstTimelineGeometry::hitTestAtEdges_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<int>("expected"); // index in w0/main depth 2 row (matmul = 2), -1 = none
    // 1 px = 10 ns; matmul spans x = 150 .. 250.
    QTest::newRow("inside") << 200.0 << 2;
    QTest::newRow("left edge") << 150.0 << 2;
    QTest::newRow("right edge") << 250.0 << 2;
    QTest::newRow("1 px left") << 149.0 << 2;
    QTest::newRow("1 px right") << 251.0 << 2;
    QTest::newRow("2 px left") << 148.0 << -1;
    QTest::newRow("2 px right") << 252.0 << -1;
}

void TstTimelineGeometry::hitTestAtEdges()
{
    QFETCH(double, x);
    QFETCH(int, expected);
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    const GeometryRequest req = request(0, 20000, 2000);
    const LayoutRow &row = scene.layout().rows()[3]; // w0 main depth 2
    const EventRef hit = hitTest(scene, req, QPointF(x, row.y + row.height / 2));
    QCOMPARE(hit.index, expected);
    if (expected >= 0)
        QCOMPARE(hit.model, 0);
}

void TstTimelineGeometry::hitTestCollapsedHeaderAndGaps()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    const GeometryRequest req = request(0, 20000, 2000);
    // Adjacent events at depth 0 of w1: step ends 9000, allreduce starts 9100 (x 900 / 910).
    const LayoutRow &w1 = scene.layout().rows()[6];
    QCOMPARE(hitTest(scene, req, QPointF(905, w1.y + 5)).index, -1);
    QCOMPARE(hitTest(scene, req, QPointF(909.5, w1.y + 5)).index, 1);
    QCOMPARE(hitTest(scene, req, QPointF(1500, w1.y + 5)).index, 1);
    // Expanded header rows hit nothing; collapsed ones hit depth 0 of the first thread.
    QCOMPARE(hitTest(scene, req, QPointF(500, 5)).index, -1);
    scene.setCollapsed(0, true);
    const EventRef h = hitTest(scene, req, QPointF(500, 10));
    QCOMPARE(h.model, 0);
    QCOMPARE(h.index, 0);
    QVERIFY(!hitTest(scene, req, QPointF(500, 100000)).valid());
}

void TstTimelineGeometry::foldsMillionEventsBoundedByWidth_data()
{
    QTest::addColumn<double>("width");
    QTest::newRow("300 px") << 300.0;
    QTest::newRow("1200 px") << 1200.0;
}

void TstTimelineGeometry::foldsMillionEventsBoundedByWidth()
{
    QFETCH(double, width);
    // 4 workers × 250 002 events = 1 000 008 events of 100 ns roots over 8.3 ms each.
    auto job = testjob::makeDenseJob(4, 250002, 100);
    TimelineScene scene(job);
    const TimelineGeometry g =
        computeGeometry(scene, request(scene.beginNs(), scene.endNs(), width, 5000));
    QCOMPARE(g.eventsDrawn + g.eventsFolded, int64_t(1000008));
    // 12 rows (4 workers × 3 depths): at most one primitive per kFoldPx per row, plus labels.
    const size_t bound = size_t(12 * (width / kFoldPx + 2));
    QVERIFY2(g.primitiveCount() <= bound,
             qPrintable(QStringLiteral("%1 primitives > %2").arg(g.primitiveCount()).arg(bound)));
    QVERIFY(!g.folds.empty());
    // Zoomed in to 20 µs, every event of the range is drawn individually.
    const int64_t mid = (scene.beginNs() + scene.endNs()) / 2;
    const TimelineGeometry z = computeGeometry(scene, request(mid, mid + 20000, width * 10, 5000));
    QCOMPARE(z.eventsFolded, int64_t(0));
    QVERIFY(z.eventsDrawn >= 4 * 3 * 200);
    QVERIFY(z.eventsDrawn <= 4 * 3 * 202);
}

void TstTimelineGeometry::searchDimsAndFilterHides()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    scene.setSearch(QStringLiteral("matmul"), false);
    TimelineGeometry g = computeGeometry(scene, request(0, 20000, 2000));
    size_t dimmed = 0, lit = 0;
    for (const auto &b : g.batches)
        (b.dimmed ? dimmed : lit) += b.rects.size();
    QCOMPARE(lit, size_t(1));
    QCOMPARE(dimmed, size_t(8));
    scene.setSearch(QString(), false);
    scene.setNameFilter(QStringLiteral("step"));
    g = computeGeometry(scene, request(0, 20000, 2000));
    QCOMPARE(g.eventsDrawn, int64_t(3));
}

void TstTimelineGeometry::cacheKeysOnRequestAndRevision()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    GeometryCache cache;
    cache.get(scene, request(0, 20000, 2000));
    cache.get(scene, request(0, 20000, 2000));
    QCOMPARE(cache.computeCount(), 1);
    cache.get(scene, request(0, 10000, 2000));
    QCOMPARE(cache.computeCount(), 2);
    scene.setSelected({0, 2});
    const TimelineGeometry &g = cache.get(scene, request(0, 10000, 2000));
    QCOMPARE(cache.computeCount(), 3);
    QVERIFY(!g.selectedRect.isNull());
    QCOMPARE(g.selectedRect.x(), 300.0); // 1500 ns at 0.2 px/ns
}

void TstTimelineGeometry::rulerTicks_data()
{
    QTest::addColumn<int64_t>("start");
    QTest::addColumn<int64_t>("end");
    QTest::addColumn<int64_t>("origin");
    QTest::addColumn<double>("width");
    QTest::addColumn<int64_t>("step");
    QTest::addColumn<int64_t>("firstTick");
    // 1 s over 1000 px, ticks >= 90 px apart → 90 ms → step 100 ms.
    QTest::newRow("1 s") << int64_t(0) << int64_t(1000000000) << int64_t(0) << 1000.0
                         << int64_t(100000000) << int64_t(0);
    // Offset origin: ticks count from the origin, not from zero.
    QTest::newRow("origin 7") << int64_t(10) << int64_t(1010) << int64_t(7) << 1000.0
                              << int64_t(100) << int64_t(107);
    // 50 µs over 500 px → 9 µs → 10 µs.
    QTest::newRow("50 us") << int64_t(1000000) << int64_t(1050000) << int64_t(0) << 500.0
                           << int64_t(10000) << int64_t(1000000);
    // Huge absolute values keep exact int64 maths.
    QTest::newRow("epoch") << int64_t(1764438000123456789) << int64_t(1764438000123457789)
                           << int64_t(1764438000123456000) << 1000.0 << int64_t(100)
                           << int64_t(1764438000123456800);
}

void TstTimelineGeometry::rulerTicks()
{
    QFETCH(int64_t, start);
    QFETCH(int64_t, end);
    QFETCH(int64_t, origin);
    QFETCH(double, width);
    QFETCH(int64_t, step);
    QFETCH(int64_t, firstTick);
    int64_t gotStep = 0;
    const auto ticks = TimelinePainter::rulerTicks(start, end, origin, width, 90, &gotStep);
    QCOMPARE(gotStep, step);
    QVERIFY(!ticks.empty());
    QCOMPARE(ticks.front().time, firstTick);
    for (size_t i = 1; i < ticks.size(); ++i) {
        QCOMPARE(ticks[i].time - ticks[i - 1].time, step);
        QVERIFY(ticks[i].x - ticks[i - 1].x >= 90.0 - 1e-9);
    }
    QVERIFY(ticks.back().time <= end);
}

QTEST_APPLESS_MAIN(TstTimelineGeometry)
#include "tst_timelinegeometry.moc"
