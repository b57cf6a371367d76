// Tests of the recorder's live reference-time estimate (exact values, worked examples).
#include "recorder/syncestimator.h"

#include <QtTest>

using syncline::rec::SyncEstimator;

class TstSyncEstimator : public QObject
{
    Q_OBJECT
private slots:
    void emptyHasNoEstimate();
    void estimate_data();
    void estimate();
    void inconsistentBurstIgnored();
    void windowKeepsRecentBursts();
    void largeOffsetsKeepNanoseconds();
};

void TstSyncEstimator::emptyHasNoEstimate()
{
    SyncEstimator e;
    int64_t g = -1, b = -1;
    QVERIFY(!e.estimate(0, &g, &b));
    QCOMPARE(g, int64_t(-1));
}

void TstSyncEstimator::estimate_data()
{
    // bursts: (local, lower, upper) triples; then the query and the exact answer.
    QTest::addColumn<QList<qint64>>("bursts");
    QTest::addColumn<qint64>("query");
    QTest::addColumn<qint64>("global");
    QTest::addColumn<qint64>("bound");
    const qint64 s = 1'000'000'000;
    // One burst: constant offset (centre 1000, half-width 10); 100 ppm of drift allowed per ns
    // away from it: 1 s later the bound is 10 + 100'000.
    QTest::newRow("one burst, at it")
        << QList<qint64>{5 * s, 990, 1010} << 5 * s << 5 * s + 1000 << qint64(10);
    QTest::newRow("one burst, 1 s later")
        << QList<qint64>{5 * s, 990, 1010} << 6 * s << 6 * s + 1000 << qint64(100'010);
    // The header's worked example: slope 100 ns/s, uncertainty 40 ns/s.
    QTest::newRow("worked example")
        << QList<qint64>{0, 990, 1010, s, 1090, 1110} << 2 * s << 2 * s + 1200 << qint64(50);
    QTest::newRow("worked example, between")
        << QList<qint64>{0, 990, 1010, s, 1090, 1110} << s / 2 << s / 2 + 1050 << qint64(30);
    // Three bursts on a line (2 µs/s): an exact fit, the bound is the half-width.
    QTest::newRow("three on a line")
        << QList<qint64>{0, -5000, -4000, s, -3000, -2000, 2 * s, -1000, 0} << 2 * s << 2 * s - 500
        << qint64(500);
}

void TstSyncEstimator::estimate()
{
    QFETCH(QList<qint64>, bursts);
    QFETCH(qint64, query);
    QFETCH(qint64, global);
    QFETCH(qint64, bound);
    SyncEstimator e;
    for (int i = 0; i + 2 < bursts.size(); i += 3)
        e.addBurst(bursts[i], bursts[i + 1], bursts[i + 2]);
    int64_t g = 0, b = 0;
    QVERIFY(e.estimate(query, &g, &b));
    QCOMPARE(qint64(g), global);
    QCOMPARE(qint64(b), bound);
}

void TstSyncEstimator::inconsistentBurstIgnored()
{
    SyncEstimator e;
    e.addBurst(0, 100, 50); // lower > upper: impossible, dropped
    QCOMPARE(e.burstCount(), 0);
    e.addBurst(0, 50, 100);
    QCOMPARE(e.burstCount(), 1);
}

void TstSyncEstimator::windowKeepsRecentBursts()
{
    SyncEstimator e;
    const int64_t s = 1'000'000'000;
    for (int i = 0; i < 40; ++i) // offset 0 for the first 20 s, then a 1 ms jump
        e.addBurst(i * s, i < 20 ? -10 : 999'990, i < 20 ? 10 : 1'000'010);
    QCOMPARE(e.burstCount(), SyncEstimator::kWindow);
    int64_t g = 0, b = 0;
    QVERIFY(e.estimate(39 * s, &g, &b));
    QCOMPARE(g, 39 * s + 1'000'000); // only the last 16 bursts: all after the jump
    QCOMPARE(b, int64_t(10));
}

void TstSyncEstimator::largeOffsetsKeepNanoseconds()
{
    // Reference 3 days ahead of local, and local ~1 year of uptime: exact to the ns.
    const int64_t local = 365LL * 86400 * 1'000'000'000;
    const int64_t offset = 3LL * 86400 * 1'000'000'000 + 7;
    SyncEstimator e;
    e.addBurst(local, offset - 3, offset + 3);
    e.addBurst(local + 1'000'000'000, offset - 3, offset + 3);
    int64_t g = 0, b = 0;
    QVERIFY(e.estimate(local + 500'000'000, &g, &b));
    QCOMPARE(g, local + 500'000'000 + offset);
    QCOMPARE(b, int64_t(9)); // 3 + 0.5 s × (6 + 6) ns/s
}

QTEST_APPLESS_MAIN(TstSyncEstimator)
#include "tst_syncestimator.moc"
