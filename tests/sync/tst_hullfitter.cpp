// Tests for BurstReducer and HullFitter: tightest bound per direction, exact line recovery.
#include "sync/burstreducer.h"
#include "sync/hullfitter.h"

#include <QtTest>

using namespace syncline::sync;

class TstHullFitter : public QObject
{
    Q_OBJECT
private slots:
    void burstTightestPerDirection();
    void burstSkipsInvalid();
    void exactLine_data();
    void exactLine();
    void headerExample();
    void exactParabola_data();
    void exactParabola();
    void twoBurstsThroughMidpoints_data();
    void twoBurstsThroughMidpoints();
};

void TstHullFitter::burstTightestPerDirection()
{
    // θ = 1000. Exchange 0: fwd 50, back 10; exchange 1: fwd 5, back 80 (both from burst 3).
    std::vector<ClockSample> s{{100, 100 + 1000 + 50, 100 + 1000 + 51, 100 + 51 + 10, 3, 0},
                               {300, 300 + 1000 + 5, 300 + 1000 + 6, 300 + 6 + 80, 3, 1}};
    BurstReducer r;
    const auto b = r.reduce(s);
    QCOMPARE(b.size(), size_t(1));
    QCOMPARE(b[0].upper, int64_t(1005)); // min t2 − t1 (exchange 1)
    QCOMPARE(b[0].tUpper, int64_t(300));
    QCOMPARE(b[0].lower, int64_t(990)); // max t3 − t4 (exchange 0)
    QCOMPARE(b[0].tLower, int64_t(161));
    QCOMPARE(b[0].count, 2);
    QCOMPARE(b[0].minRtt, int64_t(60));
}

void TstHullFitter::burstSkipsInvalid()
{
    std::vector<ClockSample> s{{100, 0, 0, 150, 0, 0},
                               {100, 10, 5, 150, 0, 1},
                               {2'000'000'000, 0, 0, 2'000'000'010, 1, 0}};
    BurstReducer r;
    const auto b = r.reduce(s);
    QCOMPARE(r.skipped(), 1);
    QCOMPARE(b.size(), size_t(2));
}

void TstHullFitter::exactLine_data()
{
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("drift");
    QTest::addColumn<int>("halfWidth");
    QTest::newRow("zero") << 0.0 << 0.0 << 100;
    QTest::newRow("+1s +100ppm") << 1e9 << 100e-6 << 2000;
    QTest::newRow("-0.5s -37ppm") << -5e8 << -37e-6 << 50;
}

void TstHullFitter::exactLine()
{
    QFETCH(double, offset);
    QFETCH(double, drift);
    QFETCH(int, halfWidth);
    // Bounds exactly θ ± halfWidth around a line, one burst per second for 60 s.
    std::vector<BurstBound> bursts;
    for (int k = 0; k < 60; ++k) {
        const int64_t t = int64_t(k) * 1'000'000'000;
        BurstBound b;
        b.tUpper = b.tLower = t;
        const int64_t theta = int64_t(std::llround(offset + drift * double(t)));
        b.upper = theta + halfWidth;
        b.lower = theta - halfWidth;
        bursts.push_back(b);
    }
    const LineFit f = HullFitter().fit(bursts, 0, 0);
    QVERIFY(f.valid && f.slopeFitted);
    QVERIFY(std::abs(f.slope - drift) < 1e-12);
    QVERIFY(std::abs(f.intercept - offset) < 1.0);
    QVERIFY(std::abs(f.margin - 2.0 * halfWidth) < 2.0);
}

void TstHullFitter::headerExample()
{
    std::vector<BurstBound> b(2);
    b[0].tUpper = b[0].tLower = 0;
    b[0].upper = 10;
    b[0].lower = 6;
    b[1].tUpper = b[1].tLower = 100;
    b[1].upper = 12;
    b[1].lower = 8;
    const LineFit f = HullFitter(1.0, 1.0).fit(b, 0, 0);
    QCOMPARE(f.slope, 0.02);
    QCOMPARE(f.intercept, 8.0);
    QCOMPARE(f.margin, 4.0);
}

void TstHullFitter::exactParabola_data()
{
    QTest::addColumn<double>("drift");
    QTest::addColumn<double>("curvature"); // ½·d²θ/dt², 1/ns
    QTest::newRow("line") << 20e-6 << 0.0;
    // A 0.5 ppm thermal swing with a 20 min period bends θ by up to 1.3e-18/ns² (c = θ''/2).
    QTest::newRow("thermal +") << -40e-6 << 1.3e-18;
    QTest::newRow("thermal -") << 3e-6 << -0.7e-18;
}

void TstHullFitter::exactParabola()
{
    QFETCH(double, drift);
    QFETCH(double, curvature);
    // Seven bursts a minute apart, bounds exactly θ ± 5 µs around θ = 1 ms + a·t + c·(t − 3 min)².
    const double centre = 180e9;
    auto theta = [&](double t) {
        return 1e6 + drift * t + curvature * (t - centre) * (t - centre);
    };
    std::vector<BurstBound> bursts;
    for (int k = 0; k < 7; ++k) {
        BurstBound b;
        b.tUpper = b.tLower = int64_t(k) * 60'000'000'000;
        const int64_t th = int64_t(std::llround(theta(double(b.tUpper))));
        b.upper = th + 5000;
        b.lower = th - 5000;
        bursts.push_back(b);
    }
    const LineFit q = HullFitter().fitQuadratic(bursts, 0, 0);
    QVERIFY(q.valid && q.slopeFitted);
    QCOMPARE(q.centre, centre);
    for (double t = 0; t <= 360e9; t += 30e9)
        QVERIFY2(std::abs(q.value(t) - theta(t)) < 2.0, qPrintable(QString::number(t)));
    QVERIFY(std::abs(q.slopeAt(centre) - drift) < 1e-12);
    QVERIFY(std::abs(q.margin - 10000.0) < 2.0);
    // A line through the same bounds cannot follow the bend: its margin shrinks by the sagitta
    // c·h² (h = 3 min); for a straight θ both fits agree.
    const LineFit l = HullFitter().fit(bursts, 0, 0);
    const double sagitta = std::abs(curvature) * 180e9 * 180e9;
    QVERIFY(std::abs(l.margin - (q.margin - sagitta)) < 2.0);
}

void TstHullFitter::twoBurstsThroughMidpoints_data()
{
    QTest::addColumn<qint64>("up0");
    QTest::addColumn<qint64>("lo0");
    QTest::addColumn<qint64>("up1");
    QTest::addColumn<qint64>("lo1");
    // θ = 10 ppm · t; bursts 60 s apart (sparse sync, a 60 s run), intervals of unequal width.
    QTest::newRow("second wider") << qint64(10'000) << qint64(-12'000) << qint64(615'000)
                                  << qint64(591'000);
    QTest::newRow("first wider") << qint64(14'000) << qint64(-13'000) << qint64(608'000)
                                 << qint64(590'000);
    QTest::newRow("equal widths") << qint64(11'000) << qint64(-11'000) << qint64(611'000)
                                  << qint64(589'000);
}

// Two bursts: the margin is flat for every slope between the chord of the uppers and the chord of
// the lowers. The fit takes the middle of that plateau — the line through both midpoints — not an
// edge (which passes through one burst's midpoint and misses the other's by half the width
// difference: 1 µs in the first row).
void TstHullFitter::twoBurstsThroughMidpoints()
{
    QFETCH(qint64, up0);
    QFETCH(qint64, lo0);
    QFETCH(qint64, up1);
    QFETCH(qint64, lo1);
    std::vector<BurstBound> b(2);
    b[0].tUpper = b[0].tLower = 0;
    b[0].upper = up0;
    b[0].lower = lo0;
    b[1].tUpper = b[1].tLower = 60'000'000'000;
    b[1].upper = up1;
    b[1].lower = lo1;
    const LineFit f = HullFitter().fit(b, 0, 0);
    QVERIFY(f.slopeFitted);
    QVERIFY(std::fabs(f.value(0.0) - 0.5 * double(up0 + lo0)) < 1.0);
    QVERIFY(std::fabs(f.value(60e9) - 0.5 * double(up1 + lo1)) < 1.0);
}

QTEST_APPLESS_MAIN(TstHullFitter)
#include "tst_hullfitter.moc"
