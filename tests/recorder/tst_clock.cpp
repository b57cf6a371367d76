// Tests for Clock: source names, monotonicity per source, the synthetic transform and the
// wall-clock anchor.
#include "recorder/clock.h"

#include <QtTest>

using namespace syncline::rec;

class TstClock : public QObject
{
    Q_OBJECT
private slots:
    void names();
    void monotonic_data();
    void monotonic();
    void transform_data();
    void transform();
    void anchor();
};

void TstClock::names()
{
    QCOMPARE(Clock::sourceName(ClockSource::MonotonicRaw), "monotonic_raw");
    QCOMPARE(Clock::sourceName(ClockSource::Monotonic), "monotonic");
    QCOMPARE(Clock::sourceName(ClockSource::Tsc), "tsc");
    QVERIFY(Clock::sourceFromName("tsc") == ClockSource::Tsc);
    QVERIFY(!Clock::sourceFromName("realtime").has_value());
}

void TstClock::monotonic_data()
{
    QTest::addColumn<int>("source");
    QTest::newRow("monotonic_raw") << int(ClockSource::MonotonicRaw);
    QTest::newRow("monotonic") << int(ClockSource::Monotonic);
    QTest::newRow("tsc") << int(ClockSource::Tsc);
}

void TstClock::monotonic()
{
    QFETCH(int, source);
    const Clock c(static_cast<ClockSource>(source));
    if (source == int(ClockSource::Tsc) && !Clock::tscAvailable())
        QVERIFY(c.source() == ClockSource::MonotonicRaw);
    int64_t prev = c.now();
    for (int i = 0; i < 100000; ++i) {
        const int64_t t = c.now();
        QVERIFY(t >= prev);
        prev = t;
    }
    // The source agrees with CLOCK_MONOTONIC_RAW's rate to well under 1 % over 20 ms.
    const Clock raw;
    const int64_t a0 = c.now(), r0 = raw.now();
    QTest::qSleep(20);
    const int64_t a1 = c.now(), r1 = raw.now();
    QVERIFY2(std::abs(double(a1 - a0) / double(r1 - r0) - 1.0) < 0.01,
             qPrintable(QString::number(double(a1 - a0) / double(r1 - r0))));
}

void TstClock::transform_data()
{
    QTest::addColumn<qint64>("offset");
    QTest::addColumn<double>("ppm");
    QTest::addColumn<qint64>("raw");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("identity") << qint64(0) << 0.0 << qint64(123456789) << qint64(123456789);
    QTest::newRow("offset") << qint64(-1000) << 0.0 << qint64(5000) << qint64(4000);
    QTest::newRow("drift 10ppm at 1000s")
        << qint64(0) << 10.0 << qint64(1000000000000) << qint64(1000010000000);
    QTest::newRow("drift -25.5ppm + offset") << qint64(7) << -25.5 << qint64(2000000000000000)
                                             << qint64(2000000000000000 - 51000000000 + 7);
    QTest::newRow("ns exact at 30 days") << qint64(3) << 1.0 << qint64(2592000000000001)
                                         << qint64(2592000000000001 + 2592000000 + 3);
}

void TstClock::transform()
{
    QFETCH(qint64, offset);
    QFETCH(double, ppm);
    QFETCH(qint64, raw);
    QFETCH(qint64, expected);
    const Clock c(ClockSource::MonotonicRaw, offset, ppm);
    QCOMPARE(c.hasTransform(), offset != 0 || ppm != 0.0);
    QCOMPARE(qint64(c.transform(raw)), expected);
}

void TstClock::anchor()
{
    const Clock c;
    const Clock::Anchor a = c.anchor();
    const int64_t wall = Clock::wallNs();
    QVERIFY(a.spreadNs >= 0);
    QVERIFY(a.spreadNs < 10000000);
    QVERIFY(a.monoNs <= c.now());
    QVERIFY(a.wallNs <= wall);
    QVERIFY(wall - a.wallNs < 1000000000); // taken just now
    // A shifted clock emulates another host: its monotonic stamps and its wall clock are both
    // off by the offset, so wall − mono stays the same and the wall reading moves by the offset.
    const Clock shifted(ClockSource::MonotonicRaw, 5000000000, 0.0);
    const Clock::Anchor b = shifted.anchor();
    const int64_t diff = (b.wallNs - b.monoNs) - (a.wallNs - a.monoNs);
    QVERIFY2(std::llabs(diff) < 5000000, qPrintable(QString::number(diff)));
    const int64_t wallShift = b.wallNs - Clock::wallNs();
    QVERIFY2(wallShift > 4000000000 && wallShift <= 5000000000, qPrintable(QString::number(wallShift)));
    QCOMPARE(shifted.wallOffsetNs(), int64_t(5000000000));
    // The wall clock's error set apart: 0 = an exact wall clock (PTP) although the monotonic
    // clock is 5 s off; 3 ms = a wall clock 3 ms ahead. The anchor's wall time lies between two
    // plain wall reads taken around it, moved by exactly that error.
    for (const int64_t err : {int64_t(0), int64_t(3000000)}) {
        const Clock c2(ClockSource::MonotonicRaw, 5000000000, 0.0, err);
        QCOMPARE(c2.wallOffsetNs(), err);
        const int64_t before = Clock::wallNs();
        const Clock::Anchor x = c2.anchor();
        const int64_t after = Clock::wallNs();
        QVERIFY2(x.wallNs - err >= before && x.wallNs - err <= after,
                 qPrintable(QString("%1 not in [%2, %3]").arg(x.wallNs - err).arg(before).arg(after)));
        QVERIFY(x.monoNs > c.now()); // the monotonic stamps still carry the 5 s
    }
}

QTEST_APPLESS_MAIN(TstClock)
#include "tst_clock.moc"
