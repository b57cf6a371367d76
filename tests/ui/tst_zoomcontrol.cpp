// Tests ZoomControl: zoom/pan maths round-trips, clamping and signals.
#include "ui/zoomcontrol.h"

#include <QSignalSpy>
#include <QtTest>

using namespace syncline::ui;

class TstZoomControl : public QObject
{
    Q_OBJECT
private slots:
    void pixelRoundTrip_data();
    void pixelRoundTrip();
    void zoomKeepsAnchor_data();
    void zoomKeepsAnchor();
    void zoomInThenOutRestores();
    void panClampsToTrace();
    void minimumRangeAndSignals();
    void selection();
};

void TstZoomControl::pixelRoundTrip_data()
{
    QTest::addColumn<int64_t>("start");
    QTest::addColumn<int64_t>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<int64_t>("t");
    QTest::addColumn<double>("x");
    QTest::newRow("unit") << int64_t(0) << int64_t(1000) << 1000.0 << int64_t(250) << 250.0;
    QTest::newRow("scaled") << int64_t(1000) << int64_t(3000) << 500.0 << int64_t(2000) << 250.0;
    // Epoch-sized absolute times: double(t - start) keeps ns exactness.
    QTest::newRow("epoch") << int64_t(1764438000000000000) << int64_t(1764438000000001000) << 1000.0
                           << int64_t(1764438000000000001) << 1.0;
}

void TstZoomControl::pixelRoundTrip()
{
    QFETCH(int64_t, start);
    QFETCH(int64_t, end);
    QFETCH(double, width);
    QFETCH(int64_t, t);
    QFETCH(double, x);
    ZoomControl z;
    z.setTrace(start, end);
    QCOMPARE(z.xOf(t, width), x);
    QCOMPARE(z.timeAt(x, width), t);
}

void TstZoomControl::zoomKeepsAnchor_data()
{
    QTest::addColumn<double>("factor");
    QTest::addColumn<int64_t>("anchor");
    QTest::newRow("in 2x at 1/4") << 2.0 << int64_t(2500);
    QTest::newRow("in 10x at centre") << 10.0 << int64_t(5000);
    QTest::newRow("in 4x at start") << 4.0 << int64_t(0);
}

void TstZoomControl::zoomKeepsAnchor()
{
    QFETCH(double, factor);
    QFETCH(int64_t, anchor);
    ZoomControl z;
    z.setTrace(0, 10000);
    const double xBefore = z.xOf(anchor, 1000);
    z.zoomAt(factor, anchor);
    QCOMPARE(z.rangeDuration(), int64_t(std::llround(10000 / factor)));
    QVERIFY(std::abs(z.xOf(anchor, 1000) - xBefore) < 0.5);
}

void TstZoomControl::zoomInThenOutRestores()
{
    ZoomControl z;
    z.setTrace(0, 1000000);
    z.setRange(200000, 600000);
    z.zoomAt(8.0, 300000);
    z.zoomAt(1.0 / 8.0, 300000);
    QCOMPARE(z.rangeStart(), int64_t(200000));
    QCOMPARE(z.rangeEnd(), int64_t(600000));
}

void TstZoomControl::panClampsToTrace()
{
    ZoomControl z;
    z.setTrace(0, 10000);
    z.setRange(1000, 3000);
    z.pan(500);
    QCOMPARE(z.rangeStart(), int64_t(1500));
    z.pan(-100000);
    QCOMPARE(z.rangeStart(), int64_t(0));
    QCOMPARE(z.rangeEnd(), int64_t(2000));
    z.panFraction(100.0);
    QCOMPARE(z.rangeEnd(), int64_t(10000));
    QCOMPARE(z.rangeDuration(), int64_t(2000));
    z.zoomAt(0.001, 5000); // zooming out past the trace fits it
    QCOMPARE(z.rangeStart(), int64_t(0));
    QCOMPARE(z.rangeEnd(), int64_t(10000));
}

void TstZoomControl::minimumRangeAndSignals()
{
    ZoomControl z;
    QSignalSpy spy(&z, &ZoomControl::rangeChanged);
    QVERIFY(spy.isValid());
    z.setTrace(0, 100000);
    QCOMPARE(spy.count(), 1);
    z.setRange(5000, 5010);
    QCOMPARE(z.rangeDuration(), ZoomControl::kMinRangeNs);
    QCOMPARE(z.rangeStart(), int64_t(5005 - 50));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.last().at(0).toLongLong(), qint64(4955));
    z.setRange(4955, 5055); // unchanged → no signal
    QCOMPARE(spy.count(), 2);
    z.fit();
    QCOMPARE(z.rangeDuration(), int64_t(100000));
}

void TstZoomControl::selection()
{
    ZoomControl z;
    QSignalSpy spy(&z, &ZoomControl::selectionChanged);
    QVERIFY(spy.isValid());
    QVERIFY(!z.hasSelection());
    z.setSelection(900, 100);
    QVERIFY(z.hasSelection());
    QCOMPARE(z.selectionStart(), int64_t(100));
    QCOMPARE(z.selectionEnd(), int64_t(900));
    z.clearSelection();
    QVERIFY(!z.hasSelection());
    QCOMPARE(spy.count(), 2);
}

QTEST_APPLESS_MAIN(TstZoomControl)
#include "tst_zoomcontrol.moc"
