// TimeScale, the one time ↔ x rule: exact values, the round trip time → x → time within half a
// pixel, monotonic in both directions, ranges near ±2^62 ns and the whole int64 range without
// overflow, an empty range or zero-width area guarded (and everything drawn from one refused),
// and its users agreeing with it (zoom control, geometry request, ruler ticks, counter columns).
#include "ui/countermodel.h"
#include "ui/timelinegeometry.h"
#include "ui/timelinepainter.h"
#include "ui/timescale.h"
#include "ui/zoomcontrol.h"

#include "testjob.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace syncline;
using namespace syncline::ui;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k62 = int64_t(1) << 62;

// A random scale: start anywhere in ±2^62, duration from 100 ns to 2^62, width 1 .. 32768 px.
TimeScale randomScale(std::mt19937_64 &rng, int64_t *start, int64_t *end)
{
    const int64_t s = int64_t(rng() % uint64_t(k62)) * (rng() % 2 ? 1 : -1);
    const int bits = 7 + int(rng() % 55);
    const int64_t d = std::max<int64_t>(100, int64_t(rng() % (uint64_t(1) << bits)));
    const double w = double(1 + rng() % 32768) + (rng() % 2 ? 0.5 : 0.0);
    *start = s;
    *end = s + d;
    return TimeScale(s, s + d, w);
}

} // namespace

class TstTimeScale : public QObject
{
    Q_OBJECT
private slots:
    void exactValues();
    void roundTripWithinHalfAPixel();
    void monotonic();
    void extremeRanges();
    void emptyRangeIsGuarded();
    void usersAgree();
};

void TstTimeScale::exactValues()
{
    const TimeScale s(1000, 2000, 100); // 10 ns per px
    QVERIFY(s.valid());
    QCOMPARE(s.x(1000), 0.0);
    QCOMPARE(s.x(1500), 50.0);
    QCOMPARE(s.x(2000), 100.0);
    QCOMPARE(s.x(900), -10.0);
    QCOMPARE(s.timeAt(50), int64_t(1500));
    QCOMPARE(s.timeAt(0.04), int64_t(1000)); // 0.4 ns: the nearest ns
    QCOMPARE(s.timeAt(0.05), int64_t(1001)); // 0.5 ns: halves away from zero
    QCOMPARE(s.timeAt(-0.05), int64_t(999));
    QCOMPARE(s.px(250), 25.0);
    QCOMPARE(s.ns(2.5), int64_t(25));
    QCOMPARE(s.ns(-2.5), int64_t(-25));
    QCOMPARE(TimeScale::visibleEnd(10, 10.2), 11.0); // a drawn span is at least 1 px
    QCOMPARE(TimeScale::visibleEnd(10, 14), 14.0);
    const TimeScale fine(0, 100, 1000); // 10 px per ns: every ns its own pixels
    QCOMPARE(fine.timeAt(14.9), int64_t(1));
    QCOMPARE(fine.timeAt(15.0), int64_t(2));
    QCOMPARE(fine.x(7), 70.0);
}

void TstTimeScale::roundTripWithinHalfAPixel()
{
    std::mt19937_64 rng(7);
    for (int k = 0; k < 2000; ++k) {
        int64_t s = 0, e = 0;
        const TimeScale sc = randomScale(rng, &s, &e);
        QVERIFY(sc.valid());
        for (int i = 0; i < 50; ++i) {
            const int64_t t = s + int64_t(rng() % uint64_t(e - s + 1));
            const int64_t back = sc.timeAt(sc.x(t));
            // Half a pixel's worth of ns; exact while a pixel holds at most one ns.
            const double tol = sc.nsPerPx() < 1 ? 0.0 : 0.5 * sc.nsPerPx();
            QVERIFY2(std::abs(double(back - t)) <= tol,
                     qPrintable(QStringLiteral("t %1 back %2 range %3..%4 ns/px %5")
                                    .arg(t)
                                    .arg(back)
                                    .arg(s)
                                    .arg(e)
                                    .arg(sc.nsPerPx())));
            // And x → time → x: the nearest ns, so within half a ns of x in px (≤ half a
            // pixel whenever a pixel spans at least one ns).
            const double x = double(rng() % 100000) / 100000.0 * sc.x(e);
            QVERIFY(std::abs(sc.x(sc.timeAt(x)) - x) <= 0.5 * sc.pxPerNs() * (1 + 1e-9) + 1e-9);
        }
    }
}

void TstTimeScale::monotonic()
{
    std::mt19937_64 rng(8);
    for (int k = 0; k < 300; ++k) {
        int64_t s = 0, e = 0;
        const TimeScale sc = randomScale(rng, &s, &e);
        // Neighbouring times and neighbouring x (down to a thousandth of a pixel).
        int64_t t = s - int64_t(rng() % 1000);
        double lastX = sc.x(t);
        for (int i = 0; i < 300; ++i) {
            t += int64_t(rng() % 3) * (i % 2 ? 1 : int64_t(1 + rng() % uint64_t(e - s)) / 100);
            const double x = sc.x(t);
            QVERIFY(x >= lastX);
            lastX = x;
        }
        double x = -2;
        int64_t lastT = sc.timeAt(x);
        for (int i = 0; i < 3000; ++i) {
            x += double(rng() % 1000) / (i % 3 ? 1000.0 : 10.0);
            const int64_t tx = sc.timeAt(x);
            QVERIFY(tx >= lastT);
            lastT = tx;
        }
    }
}

void TstTimeScale::extremeRanges()
{
    const TimeScale wide(-k62, k62, 1000); // 2^63 ns: more than an int64 holds
    QVERIFY(wide.valid());
    QCOMPARE(wide.x(-k62), 0.0);
    QCOMPARE(wide.x(0), 500.0);
    QCOMPARE(wide.x(k62), 1000.0);
    QCOMPARE(wide.timeAt(0), -k62);
    QCOMPARE(wide.timeAt(500), int64_t(0));
    QCOMPARE(wide.timeAt(1000), k62);
    QVERIFY(std::isfinite(wide.x(kMax)) && wide.x(kMax) > 1000);
    QVERIFY(std::isfinite(wide.x(kMin)) && wide.x(kMin) < 0);
    QCOMPARE(wide.timeAt(1e30), kMax); // saturates instead of wrapping
    QCOMPARE(wide.timeAt(-1e30), kMin);
    QCOMPARE(wide.timeAt(std::numeric_limits<double>::infinity()), kMax);
    QCOMPARE(wide.timeAt(std::nan("")), -k62); // NaN adds nothing
    // The whole int64 range, and far off to the right of a range near the top.
    const TimeScale all(kMin, kMax, 1920);
    QVERIFY(all.valid());
    QCOMPARE(all.x(kMin), 0.0);
    QCOMPARE(all.x(kMax), 1920.0);
    QCOMPARE(all.timeAt(0), kMin);
    QCOMPARE(all.timeAt(1920), kMax);
    QVERIFY(std::abs(double(all.timeAt(960))) < 1e4);
    const TimeScale top(kMax - 1000, kMax, 100);
    QCOMPARE(top.timeAt(100), kMax);
    QCOMPARE(top.timeAt(1e6), kMax);
    QCOMPARE(top.timeAt(50), kMax - 500);
    QVERIFY(std::abs(top.x(kMin) / -1.8446744073709552e18 - 1) < 1e-12); // (2^64 − 1001) / 10
    // Near +2^62: ns still exact (no float absolute times).
    const TimeScale nearTop(k62, k62 + 1000, 1000);
    QCOMPARE(nearTop.timeAt(1), k62 + 1);
    QCOMPARE(nearTop.x(k62 + 999), 999.0);
    // Spans through the same rule, no int64 wrap.
    QCOMPARE(wide.ns(1000), kMax); // 2^63 ns saturates
    QCOMPARE(wide.ns(500), k62);
}

void TstTimeScale::emptyRangeIsGuarded()
{
    for (const TimeScale &s : {TimeScale(5, 5, 100), TimeScale(5, 4, 100), TimeScale(0, 10, 0),
                               TimeScale(0, 10, -3), TimeScale(0, 10, std::nan("")),
                               TimeScale(0, 10, std::numeric_limits<double>::infinity())}) {
        QVERIFY(!s.valid());
        QVERIFY(std::isfinite(s.x(123)) && std::isfinite(s.pxPerNs()) && s.pxPerNs() > 0);
        (void)s.timeAt(77.5); // defined: a 1 ns range over 1 px
        QCOMPARE(s.timeAt(0), s.start());
    }
    // Nothing is drawn or hit from an empty range.
    auto scene = std::make_shared<TimelineScene>(testjob::makeSmallJob());
    GeometryRequest req;
    req.rangeStart = req.rangeEnd = 2000;
    req.width = 1000;
    req.height = 400;
    const TimelineGeometry g = computeGeometry(*scene, req);
    QCOMPARE(g.primitiveCount(), size_t(0));
    QVERIFY(!hitTest(*scene, req, QPointF(10, 30)).valid());
    req.rangeEnd = 3000;
    req.width = 0;
    QCOMPARE(computeGeometry(*scene, req).primitiveCount(), size_t(0));
    QVERIFY(TimelinePainter::rulerTicks(2000, 2000, 0, 1000, 90, nullptr).empty());
    QVERIFY(TimelinePainter::rulerTicks(2000, 3000, 0, 0, 90, nullptr).empty());
}

// The conversion's users give the scale's values (the view's clicks, the drawn geometry, the
// ruler, counter columns).
void TstTimeScale::usersAgree()
{
    ZoomControl z;
    z.setTrace(0, 1'000'000);
    z.setRange(12'345, 98'765);
    const TimeScale s(12'345, 98'765, 777);
    for (double x : {0.0, 0.25, 1.5, 388.5, 776.99}) {
        QCOMPARE(z.timeAt(x, 777), s.timeAt(x));
        QCOMPARE(z.scale(777).timeAt(x), s.timeAt(x));
    }
    for (int64_t t : {12'345, 50'000, 98'765, 99'999})
        QCOMPARE(z.xOf(t, 777), s.x(t));
    GeometryRequest req{12'345, 98'765, 777, 0, 100};
    QCOMPARE(req.scale().x(50'000), s.x(50'000));
    QCOMPARE(req.scale().timeAt(3.3), s.timeAt(3.3));
    int64_t step = 0;
    for (const RulerTick &tick : TimelinePainter::rulerTicks(12'345, 98'765, 0, 777, 90, &step))
        QCOMPARE(tick.x, s.x(tick.time));
    QVERIFY(step > 0);
}

QTEST_MAIN(TstTimeScale)
#include "tst_timescale.moc"
