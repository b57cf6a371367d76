// Counter tracks in the viewer: CounterModel's min/max pyramid against a
// brute-force scan, its per-pixel columns (step function: a sample holds until the next; empty
// before the first sample and after the end of data), the layout (a CounterRow per series after
// its worker's tracks), the painted pixels of a counter row (offscreen QImage through
// TimelinePainter, the path the view, the image export and bench_view share), and the real
// TimelineView widget's tooltip over a counter row.
#include "tests/ui/testjob.h"

#include "ui/counterpainter.h"
#include "ui/timelinepainter.h"
#include "ui/timelinescene.h"
#include "ui/timelineview.h"

#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QScrollBar>
#include <QToolTip>
#include <QtTest>

#include <cmath>
#include <random>

using namespace syncline;
using namespace syncline::ui;

namespace {

// One worker, one thread with step [0, 10000) ns; counter "loss": 10 @2000, 0 @6000, 5 @8000;
// end of data 10000. Plus a 100 k-sample random counter "noise" for the pyramid checks.
std::shared_ptr<Timeline> makeJob(size_t noiseSamples = 0)
{
    auto t = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "host-a");
    EventTrack main;
    main.tid = 100;
    main.threadName = "main";
    testjob::addEvent(*t, main, "step", 0, 10000, -1);
    w.tracks.push_back(std::move(main));
    w.info.lastLocalNs = 10000;
    CounterTrack loss;
    loss.name = "loss";
    loss.add(2000, 10);
    loss.add(6000, 0);
    loss.add(8000, 5);
    loss.finish();
    w.counters.push_back(std::move(loss));
    if (noiseSamples) {
        CounterTrack noise;
        noise.name = "noise";
        std::mt19937 rng(7);
        std::normal_distribution<double> d(0, 100);
        for (size_t i = 0; i < noiseSamples; ++i)
            noise.add(int64_t(i) * 10000 / int64_t(noiseSamples), d(rng));
        noise.finish();
        w.counters.push_back(std::move(noise));
    }
    t->workers.push_back(std::move(w));
    t->updateRange();
    return t;
}

int colourDistance(QRgb a, QColor b)
{
    return std::abs(qRed(a) - b.red()) + std::abs(qGreen(a) - b.green()) +
           std::abs(qBlue(a) - b.blue());
}

} // namespace

class TstCounterView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void minMaxMatchesBruteForce();
    void columnsAreAStepFunction();
    void columnsMatchBruteForce();
    void layoutPutsCountersAfterTracks();
    void paintedPixels();
    void widgetTooltip();
};

void TstCounterView::initTestCase()
{
    QVERIFY(QFontMetrics(QFont()).inFontUcs4('H')); // without fonts the labels are boxes
}

void TstCounterView::minMaxMatchesBruteForce()
{
    auto tl = makeJob(100000);
    const CounterModel m(tl.get(), 0, 1);
    const auto &v = tl->workers[0].counters[1].value;
    std::mt19937 rng(3);
    for (int k = 0; k < 2000; ++k) {
        size_t a = rng() % v.size(), b = rng() % v.size();
        if (k % 3 == 0)
            b = std::min(v.size(), a + rng() % 40); // short ranges too
        if (a > b)
            std::swap(a, b);
        if (a == b)
            ++b;
        if (b > v.size())
            continue;
        const auto [lo, hi] =
            std::minmax_element(v.begin() + ptrdiff_t(a), v.begin() + ptrdiff_t(b));
        const auto mm = m.minMax(a, b);
        QCOMPARE(mm.first, *lo);
        QCOMPARE(mm.second, *hi);
    }
    QCOMPARE(m.minMax(0, v.size()).first, tl->workers[0].counters[1].minValue);
}

void TstCounterView::columnsAreAStepFunction()
{
    auto tl = makeJob();
    const CounterModel m(tl.get(), 0, 0);
    QCOMPARE(m.axisMin(), 0.0);
    QCOMPARE(m.axisMax(), 10.0);
    // 12 columns of 1000 ns from 0: [0,1000) ... [11000, 12000).
    const auto cols = m.columns(TimeScale(0, 12000, 12), 12, ClockMode::Corrected);
    QCOMPARE(cols.size(), size_t(12));
    QVERIFY(!cols[0].has && !cols[1].has); // before the first sample
    QVERIFY(cols[2].has);
    QCOMPARE(cols[2].lo, 10.0); // the sample at 2000 opens column 2
    QCOMPARE(cols[2].hi, 10.0);
    QCOMPARE(cols[4].lo, 10.0); // carried
    QCOMPARE(cols[6].lo, 0.0);  // 10 carried in, 0 sampled at 6000: both in the column
    QCOMPARE(cols[6].hi, 10.0);
    QCOMPARE(cols[7].hi, 0.0);
    QCOMPARE(cols[8].lo, 0.0);
    QCOMPARE(cols[8].hi, 5.0);
    QCOMPARE(cols[9].lo, 5.0);
    QCOMPARE(cols[9].hi, 5.0);
    QVERIFY(cols[10].has);  // starts at the end of data (10000) inclusive
    QVERIFY(!cols[11].has); // after the end of data
    QCOMPARE(m.sampleAt(7999, ClockMode::Corrected), 1);
    QCOMPARE(m.sampleAt(1999, ClockMode::Corrected), -1);
    QCOMPARE(m.sampleAt(10001, ClockMode::Corrected), -1);
    // A worker whose corrected clock runs 500 ns behind: the same columns move right by 500.
    auto shifted = makeJob();
    shifted->workers[0].corrected = sync::ClockMap::offset(500);
    const CounterModel ms(shifted.get(), 0, 0);
    const auto c2 = ms.columns(TimeScale(0, 12000, 24), 24, ClockMode::Corrected); // 500 ns columns
    QVERIFY(!c2[4].has); // [2000, 2500) global = [1500, 2000) local: before the sample
    QVERIFY(c2[5].has);  // [2500, 3000) global = [2000, 2500) local
    const auto raw = ms.columns(TimeScale(0, 12000, 24), 24, ClockMode::Raw); // raw is the identity
    QVERIFY(raw[4].has);
}

// Columns against a direct reading of the definition, on samples spaced unevenly (bursts at one
// time, long gaps, dense stretches) at many zooms: the boundary search gallops from the last
// column's width, so widths that jump (a burst, then a gap) take both of its directions.
void TstCounterView::columnsMatchBruteForce()
{
    auto tl = makeJob();
    CounterTrack c;
    c.name = "uneven";
    std::mt19937_64 rng(11);
    int64_t t = 1000;
    for (int i = 0; i < 60000; ++i) {
        const uint64_t r = rng() % 100;
        t += r < 30 ? 0 : r < 90 ? int64_t(rng() % 50) : int64_t(rng() % 200000); // burst, dense, gap
        c.add(t, double(int64_t(rng() % 2001) - 1000));
    }
    c.finish();
    Worker &w = tl->workers[0];
    w.info.lastLocalNs = t + 5000;
    w.counters.push_back(std::move(c));
    const CounterTrack &ct = w.counters.back();
    const CounterModel m(tl.get(), 0, w.counters.size() - 1);
    const int64_t endLocal = w.info.lastLocalNs;
    for (int k = 0; k < 60; ++k) {
        const int width = 50 + int(rng() % 1500);
        const int64_t start = int64_t(rng() % uint64_t(t)) - 5000;
        const int64_t span = 1 + int64_t(rng() % uint64_t(k % 2 ? t : t / 200));
        const TimeScale scale(start, start + span, width);
        const auto cols = m.columns(scale, width, ClockMode::Raw);
        QCOMPARE(cols.size(), size_t(width));
        for (int col = 0; col < width; ++col) { // column c: [timeAt(c), timeAt(c + 1))
            const int64_t l0 = scale.timeAt(col);
            const int64_t l1 = scale.timeAt(col + 1);
            size_t a = 0;
            while (a < ct.count() && ct.localTs[a] < l0)
                ++a;
            CounterColumn want;
            if (l0 <= endLocal) {
                for (size_t i = a; i < ct.count() && ct.localTs[i] < l1; ++i) {
                    want.lo = want.has ? std::min(want.lo, ct.value[i]) : ct.value[i];
                    want.hi = want.has ? std::max(want.hi, ct.value[i]) : ct.value[i];
                    want.has = true;
                }
                if (a > 0) {
                    const double v = ct.value[a - 1];
                    want.lo = want.has ? std::min(want.lo, v) : v;
                    want.hi = want.has ? std::max(want.hi, v) : v;
                    want.has = true;
                }
            }
            const CounterColumn &got = cols[size_t(col)];
            if (got.has != want.has || got.lo != want.lo || got.hi != want.hi)
                QFAIL(qPrintable(QStringLiteral("view %1, column %2 of %3: got (%4, %5, %6), "
                                                "want (%7, %8, %9)")
                                     .arg(k).arg(col).arg(width)
                                     .arg(got.has).arg(got.lo).arg(got.hi)
                                     .arg(want.has).arg(want.lo).arg(want.hi)));
        }
    }
}

void TstCounterView::layoutPutsCountersAfterTracks()
{
    TimelineScene scene(makeJob(1000));
    const auto &rows = scene.layout().rows();
    QCOMPARE(scene.counterModels().size(), size_t(2));
    QCOMPARE(rows.size(), size_t(4)); // header, step row, loss, noise
    QCOMPARE(rows[0].kind, LayoutRow::GroupHeader);
    QCOMPARE(rows[1].kind, LayoutRow::EventRow);
    QCOMPARE(rows[2].kind, LayoutRow::CounterRow);
    QCOMPARE(rows[2].counter, 0);
    QCOMPARE(rows[3].counter, 1);
    QCOMPARE(rows[2].height, RowMetrics().counterHeight);
    QVERIFY(rows[2].y >= rows[1].y + rows[1].height);
    scene.setCollapsed(0, true);
    QCOMPARE(scene.layout().rows().size(), size_t(1)); // collapsed: the header only
    // Two ranks with the same counters: one colour slot per label, on every rank.
    auto two = makeJob(1000);
    Worker second = two->workers[0];
    second.info.rank = 1;
    std::swap(second.counters[0], second.counters[1]); // noise first here
    two->workers.push_back(second);
    TimelineScene both(two);
    QCOMPARE(both.counterModels().size(), size_t(4));
    QCOMPARE(both.counterColourSlot(0), 0); // rank 0 loss
    QCOMPARE(both.counterColourSlot(1), 1); // rank 0 noise
    QCOMPARE(both.counterColourSlot(2), 1); // rank 1 noise
    QCOMPARE(both.counterColourSlot(3), 0); // rank 1 loss
    QCOMPARE(both.layout().rows().back().counter, 3);
    QCOMPARE(both.layout().rows().back().worker, 1);
}

void TstCounterView::paintedPixels()
{
    TimelineScene scene(makeJob());
    const ViewStyle style = ViewStyle::light();
    QImage image(1200, 200, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::black);
    FrameRects rects;
    rects.ruler = QRectF(200, 0, 1000, 26);
    rects.gutter = QRectF(0, 26, 200, 174);
    rects.events = QRectF(200, 26, 1000, 174);
    GeometryRequest req;
    req.rangeStart = 0;
    req.rangeEnd = 10000; // 10 ns per px
    req.width = 1000;
    req.height = 174;
    {
        QPainter p(&image);
        TimelinePainter::paintFrame(p, rects, scene, computeGeometry(scene, req), style, {});
    }
    const LayoutRow &row = scene.layout().rows()[2];
    QCOMPARE(row.kind, LayoutRow::CounterRow);
    const double top = 26 + row.y, bottom = top + row.height;
    QCOMPARE(scene.counterColourSlot(0), 0);
    const QColor c = CounterPainter::colour(0, false);
    auto yOf = [&](double v) { return bottom - 3 - v / 10.0 * (row.height - 6); };
    // Column with the value v (x in event-area px): the stroke's colour at y(v), the fill or
    // the background above it.
    auto strokeAt = [&](int x, double v) {
        const int y = int(std::lround(yOf(v)));
        int best = 1000;
        for (int dy = -1; dy <= 1; ++dy)
            best = std::min(best, colourDistance(image.pixel(200 + x, y + dy), c));
        return best;
    };
    if (qEnvironmentVariableIsSet("SYNCLINE_TEST_IMAGE"))
        image.save(qEnvironmentVariable("SYNCLINE_TEST_IMAGE"));
    // Grid lines are at every 1000 ns (100 px): the columns checked lie between them.
    const int bg =
        colourDistance(image.pixel(200 + 150, int(top + row.height / 2)), style.background);
    QVERIFY2(bg < 10, "before the first sample the row is empty");        // x=150: t = 1500
    QVERIFY(strokeAt(430, 10) < 40);                                      // t = 4300: value 10
    QVERIFY(colourDistance(image.pixel(200 + 430, int(yOf(5))), c) > 40); // filled, not stroked
    QVERIFY(colourDistance(image.pixel(200 + 430, int(yOf(5))), style.background) > 20);
    QVERIFY(strokeAt(730, 0) < 40); // t = 7300: value 0
    QVERIFY(colourDistance(image.pixel(200 + 730, int(yOf(6))), style.background) < 10);
    QVERIFY(strokeAt(930, 5) < 40); // t = 9300: value 5
    QVERIFY(colourDistance(image.pixel(200 + 930, int(yOf(9))), style.background) < 10);
    // The gutter: the swatch in the counter's colour, and text (label, axis values).
    QVERIFY(colourDistance(image.pixel(10, int(top + 8)), c) < 10);
    int textPixels = 0;
    for (int x = 20; x < 196; ++x)
        for (int y = int(top) + 2; y < int(bottom) - 2; ++y)
            textPixels += colourDistance(image.pixel(x, y), style.gutter) > 120;
    QVERIFY(textPixels > 30);
    const QString tip = CounterPainter::tooltipAt(scene, req, QPointF(430, row.y + 10));
    QVERIFY2(tip.contains(QStringLiteral("<b>loss</b> = 10")), qPrintable(tip));
    QVERIFY(CounterPainter::tooltipAt(scene, req, QPointF(150, row.y + 10)).isEmpty());
    QCOMPARE(CounterPainter::formatValue(1073741824), QStringLiteral("1.074 G"));
    QCOMPARE(CounterPainter::formatValue(0.25), QStringLiteral("0.25"));
}

void TstCounterView::widgetTooltip()
{
    TimelineView view;
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 400);
    auto scene = std::make_shared<TimelineScene>(makeJob());
    view.setScene(scene);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const LayoutRow &row = scene->layout().rows()[2];
    const QRect area = view.eventArea();
    const double x = view.zoomControl()->xOf(4300, area.width());
    const QPoint pos(area.left() + int(x),
                     area.top() + int(row.y + 10) - view.verticalScrollBar()->value());
    QVERIFY(!view.eventAt(pos).valid()); // not an event
    QHelpEvent help(QEvent::ToolTip, pos, view.viewport()->mapToGlobal(pos));
    QApplication::sendEvent(view.viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("<b>loss</b> = 10")),
             qPrintable(QToolTip::text()));
    // The viewport shows the counter row: stroke pixels of its colour in that row.
    const QImage shot = view.viewport()->grab().toImage();
    int coloured = 0;
    for (int y = int(row.y); y < int(row.y + row.height); ++y)
        coloured += colourDistance(shot.pixel(area.left() + int(x), area.top() + y),
                                   CounterPainter::colour(0, false)) < 40;
    QVERIFY(coloured >= 1);
}

QTEST_MAIN(TstCounterView)
#include "tst_counterview.moc"
