// End-to-end accuracy on short simulated runs: every event stamp's error is within the guaranteed
// bound the engine reports (coverage 100 %), the error is near the floor, and causality repair
// leaves no violation. Also the collectives-only path (no sync samples) against the truth.
#include "sim/accuracyevaluator.h"
#include "sim/simulator.h"
#include "sync/syncengine.h"

#include <QtTest>

using namespace syncline;

class TstSyncAccuracy : public QObject
{
    Q_OBJECT
private slots:
    void boundsCover_data();
    void boundsCover();
    void collectivesOnly();
};

void TstSyncAccuracy::boundsCover_data()
{
    QTest::addColumn<QString>("regime");
    QTest::addColumn<int>("seed");
    QTest::addColumn<double>("maxP99Excess"); // ns over the floor
    QTest::newRow("datacenter") << "datacenter" << 21 << 1000.0;
    QTest::newRow("rdma") << "rdma" << 22 << 200.0;
    QTest::newRow("sparse") << "sparse" << 23 << 3000.0;
    QTest::newRow("stress") << "stress" << 24 << 3000.0;
}

void TstSyncAccuracy::boundsCover()
{
    QFETCH(QString, regime);
    QFETCH(int, seed);
    QFETCH(double, maxP99Excess);
    sim::SimConfig cfg = sim::configFor(*sim::parseRegime(regime.toStdString()), uint64_t(seed), 6,
                                        regime == "sparse" ? 900.0 : 300.0);
    cfg.workersPerHost = 2; // shared clock domains too
    if (regime == "stress")
        cfg.stepsPerHour = 60;
    const sim::SimJob job = sim::Simulator::run(cfg);
    const sync::SyncEngineResult res = sync::runSyncEngine(job.engineInput());
    std::vector<sync::ClockMap> maps;
    for (const auto &w : res.workers) {
        QCOMPARE(w.method, sync::ClockMethod::SyncSamples);
        maps.push_back(w.map);
    }
    QCOMPARE(res.workers[0].domain, res.workers[1].domain);
    const sim::AccuracyStats st = sim::AccuracyEvaluator::evaluate(job, maps);
    QVERIFY(st.stamps > 1000);
    QCOMPARE(st.coverage, 1.0);
    QVERIFY2(st.p99Ns <= st.floorNs + maxP99Excess,
             qPrintable(QString("p99 %1 ns, floor %2 ns").arg(st.p99Ns).arg(st.floorNs)));
    QCOMPARE(res.causality.violationsAfter, int64_t(0));
    QCOMPARE(st.violations, int64_t(0)); // independent recount on the final maps
    // Common practice is far worse on the same job.
    const sim::AccuracyStats cp =
        sim::AccuracyEvaluator::evaluate(job, sim::AccuracyEvaluator::commonPractice(job));
    QVERIFY(cp.p99Ns > st.p99Ns);
}

void TstSyncAccuracy::collectivesOnly()
{
    sim::SimConfig cfg = sim::configFor(sim::Regime::Datacenter, 31, 4, 120.0);
    const sim::SimJob job = sim::Simulator::run(cfg);
    sync::SyncEngineInput in = job.engineInput(false); // no sync samples at all
    in.options.repairCausality = false;
    const sync::SyncEngineResult res = sync::runSyncEngine(in);
    // Global time is rank 0's clock: compare relative errors against rank 0's truth.
    const sim::TrueClock &c0 = job.clocks[0];
    for (size_t w = 1; w < job.workers.size(); ++w) {
        QCOMPARE(res.workers[w].method, sync::ClockMethod::Collectives);
        const sim::TrueClock &cw = job.clocks[size_t(job.workers[w].host)];
        for (const sim::SimEvent &e : job.workers[w].events) {
            const double tau = double(e.trueBegin - job.refBase);
            const int64_t rank0Local = c0.local(tau); // what rank 0's clock read at that instant
            const double err = double(res.workers[w].map.toGlobal(e.localBegin) - rank0Local);
            (void)cw;
            QVERIFY2(std::fabs(err) < 5000.0, qPrintable(QString::number(err)));
            QVERIFY(std::fabs(err) <= double(res.workers[w].map.segmentAt(e.localBegin).boundNs));
        }
    }
}

QTEST_APPLESS_MAIN(TstSyncAccuracy)
#include "tst_syncaccuracy.moc"
