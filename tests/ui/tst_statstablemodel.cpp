// Tests the table models (StatsTableModel, ClockTableModel) under QAbstractItemModelTester and a sort
// proxy, and the straggler rule the chart uses (RankOutliers, median + max(3·MAD, 50 µs, 10 %)).
#include "timeline/report/rankoutliers.h"
#include "testjob.h"

#include "ui/clocktablemodel.h"
#include "ui/rankbarchart.h"
#include "ui/statstablemodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstStatsTableModel : public QObject
{
    Q_OBJECT
private slots:
    void statsModelSortsAndFormats();
    void clockModel();
    void stragglers_data();
    void stragglers();
};

void TstStatsTableModel::statsModelSortsAndFormats()
{
    auto job = testjob::makeSmallJob();
    StatsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(StatsTableModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    const std::vector<StatsRow> rows = Stats::compute(*job);
    model.setRows(job, rows);
    // Names with complete intervals: step, forward, matmul, backward, load (allreduce is open).
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.columnCount(), int(StatsTableModel::ColumnCount));
    proxy.sort(StatsTableModel::Total, Qt::DescendingOrder);
    // step: 8000 + 10000 (w0) + 8000 (w1) = 26000 ns total, the largest.
    QCOMPARE(proxy.index(0, StatsTableModel::Name).data().toString(), QStringLiteral("step"));
    QCOMPARE(proxy.index(0, StatsTableModel::Total).data(StatsTableModel::SortRole).toLongLong(), 26000LL);
    QCOMPARE(proxy.index(0, StatsTableModel::Count).data().toString(), QStringLiteral("3"));
    QCOMPARE(proxy.index(0, StatsTableModel::Total).data().toString(), QStringLiteral("26.0 µs"));
    QCOMPARE(proxy.index(0, StatsTableModel::Max).data(StatsTableModel::SortRole).toLongLong(), 10000LL);
    proxy.sort(StatsTableModel::Name, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, StatsTableModel::Name).data().toString(), QStringLiteral("backward"));
    QCOMPARE(model.headerData(StatsTableModel::P95, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("p95"));
    model.setRows(nullptr, {});
    QCOMPARE(model.rowCount(), 0);
}

void TstStatsTableModel::clockModel()
{
    auto job = testjob::makeSmallJob();
    job->workers[1].clock.method = sync::ClockMethod::SyncSamples;
    job->workers[1].clock.offsetNs = -500;
    job->workers[1].clock.driftPpm = 1.25;
    job->workers[1].clock.boundNs = 2100;
    job->workers[1].clock.flags = sync::SegStepDetected;
    ClockTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTimeline(job);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, ClockTableModel::Worker).data().toString(),
             QStringLiteral("rank 1 · host-b · restart 0"));
    QCOMPARE(model.index(1, ClockTableModel::Method).data().toString(), QStringLiteral("sync"));
    // Relative to the reference (row 0): worker 1's corrected map moves it back 500 ns, i.e.
    // its clock reads 500 ns ahead of rank 0's; its corrected drift 1.25 ppm means its clock runs
    // 1.25 ppm slower than rank 0's.
    QCOMPARE(model.index(1, ClockTableModel::Offset).data(ClockTableModel::SortRole).toLongLong(), 500LL);
    QCOMPARE(model.index(1, ClockTableModel::Offset).data().toString(), QStringLiteral("+500 ns"));
    QCOMPARE(model.index(0, ClockTableModel::Offset).data().toString(), QStringLiteral("reference"));
    QCOMPARE(model.index(1, ClockTableModel::Drift).data().toString(), QStringLiteral("-1.250 ppm"));
    QCOMPARE(model.index(1, ClockTableModel::Bound).data().toString(), QStringLiteral("±2.10 µs"));
    QCOMPARE(model.index(1, ClockTableModel::Flags).data().toString(), QStringLiteral("clock step"));
    QCOMPARE(model.index(0, ClockTableModel::Bound).data().toString(), QStringLiteral("none"));
}

void TstStatsTableModel::stragglers_data()
{
    QTest::addColumn<QList<qlonglong>>("values");
    QTest::addColumn<QList<bool>>("expected");
    QTest::addColumn<qlonglong>("threshold");
    // ms: median 11, |dev| {1,0,1,1,19} → MAD 1 → 3·MAD = 3 ms beats 10 % (1.1 ms) → 14 ms.
    QTest::newRow("one slow") << QList<qlonglong>{10000000, 11000000, 10000000, 12000000, 30000000}
                              << QList<bool>{false, false, false, false, true} << 14000000LL;
    // All equal: MAD 0 → the absolute minimum 50 µs above the median (5 µs).
    QTest::newRow("equal") << QList<qlonglong>{5000, 5000, 5000} << QList<bool>{false, false, false}
                           << 55000LL;
    // Even count uses the lower median: {1,2,3,100} ms → 2; devs {1,0,1,98} → 1 → 2 + 3 = 5 ms.
    QTest::newRow("even") << QList<qlonglong>{1000000, 2000000, 3000000, 100000000}
                          << QList<bool>{false, false, false, true} << 5000000LL;
    // Within the relative minimum: 5 % slower with MAD 0 is not a straggler (limit 1.1 ms).
    QTest::newRow("5 percent") << QList<qlonglong>{1000000, 1000000, 1050000, 1000000}
                               << QList<bool>{false, false, false, false} << 1100000LL;
    QTest::newRow("empty") << QList<qlonglong>{} << QList<bool>{} << 50000LL;
}

void TstStatsTableModel::stragglers()
{
    QFETCH(QList<qlonglong>, values);
    QFETCH(QList<bool>, expected);
    QFETCH(qlonglong, threshold);
    std::vector<int64_t> v(values.begin(), values.end());
    int64_t got = -1;
    const std::vector<bool> flags = RankOutliers::flag(v, &got);
    QCOMPARE(got, int64_t(threshold));
    QCOMPARE(flags, std::vector<bool>(expected.begin(), expected.end()));
}

QTEST_APPLESS_MAIN(TstStatsTableModel)
#include "tst_statstablemodel.moc"
