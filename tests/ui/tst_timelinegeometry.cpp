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
    void foldsTakeTheColourOfWhatTheyHold();
    void foldsFollowTheNameFilter();
    void largeFoldsReadBucketSummaries();
    void foldsShowTheThreadsWaitShare();
    void findMarksMatchesInsideFolds();
    void collapsedGroupSummarisesAllThreads();
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

// One worker, one thread, one depth: `na` back-to-back 10 ns events named a, then `nb` named b,
// then (optionally) the event at index `needleAt` renamed "needle".
std::shared_ptr<Timeline> twoNameRow(int na, int nb, int needleAt = -1)
{
    auto t = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "host-a");
    EventTrack tr;
    tr.tid = 1;
    tr.threadName = "main";
    for (int i = 0; i < na + nb; ++i) {
        const char *name = i == needleAt ? "needle" : i < na ? "allreduce" : "matmul";
        testjob::addEvent(*t, tr, name, int64_t(i) * 10, int64_t(i) * 10 + 10, -1);
    }
    w.tracks.push_back(std::move(tr));
    t->workers.push_back(std::move(w));
    t->updateRange();
    return t;
}

// The fold segments (colour rects) of the row at content y `rowY`, left to right.
std::vector<std::pair<QRectF, ColourBatch>> segmentsAt(const TimelineGeometry &g, double rowY)
{
    std::vector<std::pair<QRectF, ColourBatch>> out;
    for (const ColourBatch &b : g.foldBatches)
        for (const QRectF &r : b.rects)
            if (qFuzzyCompare(r.y(), rowY))
                out.push_back({r, ColourBatch{b.colourIndex, b.dimmed, {}}});
    std::sort(out.begin(), out.end(),
              [](const auto &a, const auto &b) { return a.first.x() < b.first.x(); });
    return out;
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
    // Expanded header rows hit nothing; collapsed ones hit what their summary draws there: the
    // innermost event over the worker's threads (t = 5000: backward, depth 1 of main).
    QCOMPARE(hitTest(scene, req, QPointF(500, 5)).index, -1);
    scene.setCollapsed(0, true);
    const EventRef h = hitTest(scene, req, QPointF(500, 10));
    QCOMPARE(h.model, 0);
    QCOMPARE(h.index, 3);
    // t = 700: only the loader thread has an event (load, model 1).
    const EventRef l = hitTest(scene, req, QPointF(70, 10));
    QCOMPARE(l.model, 1);
    QCOMPARE(l.index, 0);
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

// 1500 allreduce then 500 matmul events of 10 ns (0.1 px each at 200 px for 20 µs): one fold
// block, but painted allreduce over [0, 150] and matmul over [150, 200] — whole-job zoom still
// shows where time goes. Windows are 30 events (3 px); window 50 starts exactly at event 1500.
// 1000 steps of 100 ns, each [forward 0–80][allreduce 80–100] one depth down (the first one's
// allreduce holds a nested collective, counted once): the folds show the thread's wait share,
// exactly 0.2 per column at 100 ns/px, and 0, 0.4, 0, 0.4, … at 50 ns/px (20 of 50 ns); the
// depth-1 fold shows the same shares as the depth-0 one (the thread's, not the row's).
void TstTimelineGeometry::foldsShowTheThreadsWaitShare()
{
    auto job = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "host-a");
    EventTrack tr;
    tr.tid = 1;
    tr.threadName = "main";
    for (int64_t k = 0; k < 1000; ++k) {
        const int step = int(tr.count());
        testjob::addEvent(*job, tr, "step", k * 100, k * 100 + 100, -1);
        testjob::addEvent(*job, tr, "forward", k * 100, k * 100 + 80, step);
        testjob::addEvent(*job, tr, "allreduce", k * 100 + 80, k * 100 + 100, step);
        if (k == 0)
            testjob::addEvent(*job, tr, "nccl:all_reduce", 85, 95, step + 2);
    }
    w.tracks.push_back(std::move(tr));
    job->workers.push_back(std::move(w));
    job->kinds.resize(job->names.size());
    job->kinds[job->names.find("allreduce")].collective = true;
    job->kinds[job->names.find("nccl:all_reduce")].collective = true;
    job->updateRange();
    TimelineScene scene(job);
    const TrackModel &m = scene.model(0);
    QCOMPARE(m.waitNsIn(0, 100000), int64_t(20000));
    QCOMPARE(m.waitNsIn(50, 190), int64_t(30)); // [80, 100) + [180, 190)
    QCOMPARE(m.waitNsIn(90, 90), int64_t(0));

    const TimelineGeometry g = computeGeometry(scene, request(0, 100000, 1000));
    const LayoutRow &row0 = scene.layout().rows()[1];
    QCOMPARE(row0.depth, 0);
    const FoldBlock *top = nullptr;
    const FoldBlock *deeper = nullptr;
    for (const FoldBlock &f : g.folds)
        (qFuzzyCompare(f.rect.y(), row0.y + 1) ? top : deeper) = &f;
    QVERIFY(top && deeper);
    QCOMPARE(deeper->waitShares, top->waitShares);
    QCOMPARE(top->count, int64_t(1000));
    QCOMPARE(top->firstColumn, 0);
    QCOMPARE(top->waitShares.size(), size_t(1000));
    for (float s : top->waitShares)
        QCOMPARE(s, 0.2f);
    // One bar per row: 0.2 of the row height, the block's full width, at its bottom.
    QCOMPARE(g.waitRects.size(), size_t(2));
    const double h = row0.height - 2;
    QCOMPARE(g.waitRects[0],
             QRectF(0, row0.y + 1 + h - std::round(0.2 * h), 1000, std::round(0.2 * h)));

    const TimelineGeometry z = computeGeometry(scene, request(0, 50000, 1000));
    const auto it = std::find_if(z.folds.begin(), z.folds.end(),
                                 [&](const FoldBlock &f) { return !f.waitShares.empty(); });
    QVERIFY(it != z.folds.end());
    QCOMPARE(it->waitShares.size(), size_t(1000));
    for (size_t c = 0; c < it->waitShares.size(); ++c)
        QCOMPARE(it->waitShares[c], c % 2 == 0 ? 0.f : 0.4f);
    QCOMPARE(z.waitRects.size(), size_t(2 * 500)); // one bar per waiting column, on both rows

    // Live growth: a step whose allreduce is still open is appended, then the allreduce ends
    // sooner than the data did: extendFrom re-indexes the waits whose end may have moved.
    EventTrack &lt = job->workers[0].tracks[0];
    TrackModel live(job.get(), 0, 0);
    const int n = int(lt.count());
    testjob::addEvent(*job, lt, "step", 100000, 100100, -1);
    testjob::addEvent(*job, lt, "allreduce", 100080, 100100, n, EventOpen);
    live.extendFrom(size_t(n));
    QCOMPARE(live.waitNsIn(0, 200000), int64_t(20020));
    lt.flags.back() = 0;
    lt.localEnd.back() = 100090;
    live.extendFrom(size_t(n + 1));
    QCOMPARE(live.waitNsIn(0, 200000), int64_t(20010));
    QCOMPARE(live.waitNsIn(99990, 100085), TrackModel(job.get(), 0, 0).waitNsIn(99990, 100085));
    QCOMPARE(live.waitNsIn(99990, 100085), int64_t(15));
}

void TstTimelineGeometry::foldsTakeTheColourOfWhatTheyHold()
{
    auto job = twoNameRow(1500, 500);
    TimelineScene scene(job);
    const uint32_t a = job->names.find("allreduce");
    const uint32_t b = job->names.find("matmul");
    QVERIFY(scene.colours().colourIndex(a) != scene.colours().colourIndex(b));
    const TimelineGeometry g = computeGeometry(scene, request(0, 20000, 200));
    QCOMPARE(g.eventsDrawn, int64_t(0));
    QCOMPARE(g.eventsFolded, int64_t(2000));
    QCOMPARE(g.folds.size(), size_t(1));
    QCOMPARE(g.folds[0].count, int64_t(2000));
    QCOMPARE(g.folds[0].nameId, a); // 150 of its 200 px
    const LayoutRow &row = scene.layout().rows()[1];
    const auto segs = segmentsAt(g, row.y + 1);
    QCOMPARE(segs.size(), size_t(2));
    QCOMPARE(segs[0].second.colourIndex, scene.colours().colourIndex(a));
    QCOMPARE(segs[0].first.x(), 0.0);
    QCOMPARE(segs[0].first.right(), 150.0);
    QCOMPARE(segs[1].second.colourIndex, scene.colours().colourIndex(b));
    QCOMPARE(segs[1].first.x(), 150.0);
    QCOMPARE(segs[1].first.right(), 200.0);
    QVERIFY(!segs[0].second.dimmed && !segs[1].second.dimmed);
    // A row of one name is one colour: the first 1000 events only.
    const TimelineGeometry one = computeGeometry(scene, request(0, 10000, 100));
    const auto only = segmentsAt(one, row.y + 1);
    QCOMPARE(only.size(), size_t(1));
    QCOMPARE(only[0].second.colourIndex, scene.colours().colourIndex(a));
    // The exact rule for small windows: 3 events [a 10 ns][b 30 ns][a 10 ns] → b (30 > 20).
    auto small = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "h");
    EventTrack tr;
    testjob::addEvent(*small, tr, "allreduce", 0, 10, -1);
    testjob::addEvent(*small, tr, "matmul", 10, 40, -1);
    testjob::addEvent(*small, tr, "allreduce", 40, 50, -1);
    w.tracks.push_back(std::move(tr));
    small->workers.push_back(std::move(w));
    small->updateRange();
    TimelineScene smallScene(small);
    uint32_t name = 0;
    QVERIFY(dominantName(smallScene, 0, 0, 0, 3, &name));
    QCOMPARE(name, small->names.find("matmul"));
}

// Windows of more than kExactFold events take their colour from the 64-event bucket summaries:
// 9600 allreduce then 3200 matmul of 10 ns at 640 ns/px → 192-event windows; window 50 starts
// exactly at event 9600, so allreduce over [0, 150] px and matmul over [150, 200].
void TstTimelineGeometry::largeFoldsReadBucketSummaries()
{
    auto job = twoNameRow(9600, 3200);
    TimelineScene scene(job);
    const uint32_t a = job->names.find("allreduce"), b = job->names.find("matmul");
    const TimelineGeometry g = computeGeometry(scene, request(0, 128000, 200));
    const auto segs = segmentsAt(g, scene.layout().rows()[1].y + 1);
    QCOMPARE(segs.size(), size_t(2));
    QCOMPARE(segs[0].second.colourIndex, scene.colours().colourIndex(a));
    QCOMPARE(segs[0].first.right(), 150.0);
    QCOMPARE(segs[1].second.colourIndex, scene.colours().colourIndex(b));
    QCOMPARE(segs[1].first.x(), 150.0);
    QCOMPARE(g.folds.size(), size_t(1));
    QCOMPARE(g.folds[0].nameId, a);
    // Buckets weigh their time, not their count: 128 × a of 10 ns, then 64 × b of 100 ns →
    // buckets a (640 ns), a (640 ns), b (6400 ns) → b.
    auto t = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "h");
    EventTrack tr;
    int64_t at = 0;
    for (int i = 0; i < 192; ++i) {
        const int64_t d = i < 128 ? 10 : 100;
        testjob::addEvent(*t, tr, i < 128 ? "allreduce" : "matmul", at, at + d, -1);
        at += d;
    }
    w.tracks.push_back(std::move(tr));
    t->workers.push_back(std::move(w));
    t->updateRange();
    TimelineScene weighted(t);
    QCOMPARE(weighted.model(0).bucketNames(0).size(), size_t(3));
    uint32_t name = 0;
    QVERIFY(dominantName(weighted, 0, 0, 0, 192, &name));
    QCOMPARE(name, t->names.find("matmul"));
    QVERIFY(dominantName(weighted, 0, 0, 0, 128, &name)); // exact: 128 × 10 ns of allreduce
    QCOMPARE(name, t->names.find("allreduce"));
}

void TstTimelineGeometry::foldsFollowTheNameFilter()
{
    auto job = twoNameRow(1500, 500);
    TimelineScene scene(job);
    scene.setNameFilter(QStringLiteral("matmul"));
    const TimelineGeometry g = computeGeometry(scene, request(0, 20000, 200));
    const auto segs = segmentsAt(g, scene.layout().rows()[1].y + 1);
    QCOMPARE(segs.size(), size_t(1)); // only matmul's part is painted
    QCOMPARE(segs[0].second.colourIndex, scene.colours().colourIndex(job->names.find("matmul")));
    QCOMPARE(segs[0].first.x(), 150.0);
    QCOMPARE(g.folds.size(), size_t(1));
    QCOMPARE(g.folds[0].nameId, job->names.find("matmul"));
    scene.setNameFilter(QStringLiteral("nothing-has-this-name"));
    const TimelineGeometry none = computeGeometry(scene, request(0, 20000, 200));
    QVERIFY(none.folds.empty());
    QVERIFY(none.foldBatches.empty());
}

// One "needle" (event 700, x = 70 px) among 2000 folded events: its window is lit and marked,
// the rest of the fold dimmed; the scene counts 1 matching event.
void TstTimelineGeometry::findMarksMatchesInsideFolds()
{
    auto job = twoNameRow(1500, 500, 700);
    TimelineScene scene(job);
    QVERIFY(scene.setSearch(QStringLiteral("needle"), false));
    QCOMPARE(scene.matchingEventCount(), int64_t(1));
    QCOMPARE(scene.matchingNameCount(), 1);
    const TimelineGeometry g = computeGeometry(scene, request(0, 20000, 200));
    QCOMPARE(g.matchMarks.size(), size_t(1));
    // Window 23 holds events 690..719: x 69 .. 72.
    QCOMPARE(g.matchMarks[0].x(), 69.0);
    QCOMPARE(g.matchMarks[0].right(), 72.0);
    size_t lit = 0, dimmed = 0;
    for (const auto &[r, b] : segmentsAt(g, scene.layout().rows()[1].y + 1))
        (b.dimmed ? dimmed : lit) += 1;
    QCOMPARE(lit, size_t(1));
    QVERIFY(dimmed >= 2);
    // The overview and the counter see the same positions; none once the search is cleared.
    QCOMPARE(scene.matchPositions(0, 0), std::vector<uint32_t>{700});
    QVERIFY(scene.matchIn(0, 0, 690, 720));
    QVERIFY(!scene.matchIn(0, 0, 701, 2000));
    scene.setSearch(QString(), false);
    QCOMPARE(scene.matchingEventCount(), int64_t(0));
    QVERIFY(computeGeometry(scene, request(0, 20000, 200)).matchMarks.empty());
}

// A collapsed group draws, per pixel, the innermost event over all its threads (innermostAt):
// small job worker 0 at 10 ns/px (samples at t = 10·x + 5).
void TstTimelineGeometry::collapsedGroupSummarisesAllThreads()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    scene.setCollapsed(0, true);
    const TimelineGeometry g = computeGeometry(scene, request(0, 20000, 2000));
    const LayoutRow &header = scene.layout().rows()[0];
    QVERIFY(header.collapsed);
    const auto segs = segmentsAt(g, header.y + 5);
    struct Expect
    {
        const char *name;
        double x0, x1;
    };
    const Expect expected[] = {
        {"load", 50, 100},     {"forward", 100, 150},   {"matmul", 150, 250},
        {"forward", 250, 400}, {"step", 400, 500},      {"backward", 500, 800},
        {"step", 800, 900},    {"forward", 1000, 1200}, {"step", 1200, 2000}};
    QCOMPARE(segs.size(), std::size(expected));
    for (size_t i = 0; i < segs.size(); ++i) {
        const uint32_t id = job->names.find(expected[i].name);
        QCOMPARE(segs[i].second.colourIndex, scene.colours().colourIndex(id));
        QCOMPARE(segs[i].first.x(), expected[i].x0);
        QCOMPARE(segs[i].first.right(), expected[i].x1);
    }
    QCOMPARE(innermostAt(scene, 0, 2000), (EventRef{0, 2})); // matmul
    QCOMPARE(innermostAt(scene, 0, 700), (EventRef{1, 0}));  // load, on the loader thread
    QVERIFY(!innermostAt(scene, 0, 9500).valid());           // between the steps
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
