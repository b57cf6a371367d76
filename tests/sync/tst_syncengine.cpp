// Tests for runSyncEngine on synthetic inputs with known truth: line recovery and bounds,
// shared clock domains, extrapolation flags, collectives-only alignment, and causality repair.
#include "sync/causalityrepair.h"
#include "sync/syncengine.h"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace syncline::sync;

namespace {

// θ(t) = offset + drift·t; exchanges with fixed forward/backward delays plus exponential queueing.
std::vector<ClockSample> makeSamples(double offset, double drift, int bursts, int64_t everyNs,
                                     uint64_t seed, double queueNs = 5000)
{
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> q(1.0 / queueNs);
    std::vector<ClockSample> out;
    for (int b = 0; b < bursts; ++b) {
        for (int s = 0; s < 8; ++s) {
            const int64_t t1 = int64_t(b) * everyNs + s * 100'000 + 1'000'000;
            const double df = 10'000 + q(rng), db = 10'000 + q(rng);
            const double theta = offset + drift * double(t1);
            ClockSample x;
            x.t1 = t1;
            x.t2 = int64_t(std::llround(double(t1) + df + theta));
            x.t3 = x.t2 + 2000;
            x.t4 = int64_t(std::llround(double(x.t3) - theta + db));
            x.burst = b;
            x.seq = s;
            out.push_back(x);
        }
    }
    return out;
}

WorkerClockInput worker(int id, const std::string &host, std::vector<ClockSample> s, int64_t last)
{
    WorkerClockInput w;
    w.workerId = id;
    w.rank = id;
    w.host = host;
    w.bootId = "boot-" + host;
    w.clockSource = "monotonic_raw";
    w.refId = "ref";
    w.samples = std::move(s);
    w.firstLocalNs = 0;
    w.lastLocalNs = last;
    return w;
}

// Two workers on different hosts, first stamp 0, last `lastNs`.
SyncEngineInput twoRanks(int64_t lastNs)
{
    SyncEngineInput in;
    for (int w = 0; w < 2; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.host = w == 0 ? "a" : "b";
        wi.bootId = "x";
        wi.lastLocalNs = lastNs;
        in.workers.push_back(wi);
    }
    return in;
}

bool hasNote(const SyncEngineResult &r, const QString &part)
{
    for (const std::string &n : r.notes) {
        if (QString::fromStdString(n).contains(part))
            return true;
    }
    return false;
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

} // namespace

class TstSyncEngine : public QObject
{
    Q_OBJECT
private slots:
    void recoversLine_data();
    void recoversLine();
    void sharedDomain();
    void noSamplesIsIdentity();
    void collectivesAlign_data();
    void collectivesAlign();
    void collectivesOffsetOnly_data();
    void collectivesOffsetOnly();
    void collectivesNotCorresponding();
    void causalityRepair();
    void causalityRepairContradiction();
    void causalityRepairStoppedShortSaysWhy();
    void causalityRepairExtremeTimes();
    void twoReferenceClocks_data();
    void twoReferenceClocks();
    void restartedServerIsOneReference();
    void methodNames();
};

void TstSyncEngine::recoversLine_data()
{
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("drift");
    QTest::newRow("zero") << 0.0 << 0.0;
    QTest::newRow("+0.8s +80ppm") << 8e8 << 80e-6;
    QTest::newRow("-1s -100ppm") << -1e9 << -100e-6;
}

void TstSyncEngine::recoversLine()
{
    QFETCH(double, offset);
    QFETCH(double, drift);
    SyncEngineInput in;
    const int64_t span = 120'000'000'000; // 2 minutes of 1 Hz bursts
    in.workers.push_back(worker(0, "a", makeSamples(offset, drift, 120, 1'000'000'000, 7), span));
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.workers.size(), size_t(1));
    const WorkerClockResult &w = r.workers[0];
    QCOMPARE(w.method, ClockMethod::SyncSamples);
    QCOMPARE(w.sampleCount, 960);
    QVERIFY(std::fabs(w.driftPpm - drift * 1e6) < 0.01);
    // Symmetric delays: error well under a microsecond; the bound must cover it everywhere.
    for (int64_t t = 0; t <= span; t += 250'000'000) {
        const double truth = double(t) + offset + drift * double(t);
        const double err = std::fabs(double(w.map.toGlobal(t)) - truth);
        QVERIFY2(err < 500.0, qPrintable(QString("t=%1 err=%2").arg(t).arg(err)));
        QVERIFY(err <= double(w.map.segmentAt(t).boundNs));
    }
    QVERIFY(w.boundNs > 0 && w.boundNs < 20'000);
    QVERIFY(w.flags & SegExtrapolated); // after the last burst
    QVERIFY(!(w.flags & SegStepDetected));
}

void TstSyncEngine::sharedDomain()
{
    SyncEngineInput in;
    const int64_t span = 60'000'000'000;
    in.workers.push_back(worker(0, "a", makeSamples(5e5, 10e-6, 60, 1'000'000'000, 1), span));
    in.workers.push_back(worker(1, "a", makeSamples(5e5, 10e-6, 60, 1'000'000'000, 2), span));
    in.workers.push_back(worker(2, "b", makeSamples(-5e5, 0, 60, 1'000'000'000, 3), span));
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.workers[0].domain, r.workers[1].domain);
    QVERIFY(r.workers[0].domain != r.workers[2].domain);
    QCOMPARE(r.workers[0].sampleCount, 960); // union of both processes' samples
    for (int64_t t = 0; t < span; t += 1'000'000'000)
        QCOMPARE(r.workers[0].map.toGlobal(t), r.workers[1].map.toGlobal(t));
}

void TstSyncEngine::noSamplesIsIdentity()
{
    SyncEngineInput in;
    in.workers.push_back(worker(0, "a", {}, 1000));
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.workers[0].method, ClockMethod::None);
    QVERIFY(r.workers[0].map.isIdentity());
}

void TstSyncEngine::collectivesAlign_data()
{
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("drift");
    QTest::newRow("offset only") << 2.5e8 << 0.0;
    QTest::newRow("offset and drift") << -7e8 << 40e-6;
}

void TstSyncEngine::collectivesAlign()
{
    QFETCH(double, offset);
    QFETCH(double, drift);
    // Rank 0 is the reference (global = its clock). Rank 1's local = true − θ(true).
    // 600 all-reduces; begins straggle by up to 5 ms, ends within 1 µs on both ranks.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> straggle(0, 5e6), jitter(0, 1000);
    SyncEngineInput in;
    for (int w = 0; w < 2; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.host = w == 0 ? "a" : "b";
        wi.bootId = "x";
        wi.lastLocalNs = 700'000'000'000;
        in.workers.push_back(wi);
    }
    auto local1 = [&](double t) { return t - (offset + drift * t); };
    for (int k = 0; k < 600; ++k) {
        const double t = 1e9 * k;
        const double b0 = t + straggle(rng), b1 = t + straggle(rng);
        const double end = std::max(b0, b1) + 100'000;
        in.collectives.push_back({0, k, 1, int64_t(b0), int64_t(end + jitter(rng))});
        in.collectives.push_back(
            {1, k, 1, int64_t(local1(b1)), int64_t(local1(end + jitter(rng)))});
    }
    in.options.repairCausality = false;
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.workers[0].method, ClockMethod::Collectives);
    QCOMPARE(r.workers[1].method, ClockMethod::Collectives);
    QVERIFY(r.workers[1].flags & SegAligned);
    for (double t = 0; t < 6e11; t += 1e10) {
        const double err = double(r.workers[1].map.toGlobal(int64_t(local1(t)))) - t;
        QVERIFY2(std::fabs(err) < 1500.0, qPrintable(QString::number(err)));
        QVERIFY(std::fabs(err) <= double(r.workers[1].boundNs));
    }
}

void TstSyncEngine::collectivesOffsetOnly_data()
{
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("spanNs");
    QTest::addColumn<double>("slopePpm"); // the (false) trend in the end differences
    QTest::addColumn<double>("scatterNs");
    QTest::addColumn<double>("straggleNs");
    QTest::addColumn<QString>("note");
    QTest::newRow("implausible slope")
        << 24 << 2e9 << 20000.0 << 0.0 << 80e6
        << "drift 20408 ppm implausible (limit 500 ppm); offset only";
    QTest::newRow("too few instances")
        << 4 << 1e9 << 0.0 << 50e3 << 1e6 << "only 4 instance(s), too few to resolve drift";
    QTest::newRow("drift not resolvable")
        << 16 << 1e9 << 0.0 << 300e3 << 5e6
        << "drift 250 ± 281 ppm not resolvable (need ± 100 ppm); offset only";
}

void TstSyncEngine::collectivesOffsetOnly()
{
    QFETCH(int, count);
    QFETCH(double, spanNs);
    QFETCH(double, slopePpm);
    QFETCH(double, scatterNs);
    QFETCH(double, straggleNs);
    QFETCH(QString, note);
    // Rank 1's end differences d = θ0 + slope·t ± scatter (alternating −, 0, +); begins straggle.
    SyncEngineInput in = twoRanks(int64_t(spanNs) + 200'000'000);
    std::vector<double> d;
    for (int k = 0; k < count; ++k) {
        const double t = 10e6 + spanNs * k / (count - 1);
        const double theta = 3e6 + slopePpm * 1e-6 * t + scatterNs * ((k % 3) - 1);
        const int64_t end = int64_t(t + straggleNs + 100'000);
        in.collectives.push_back({0, k, 1, int64_t(t), end});
        in.collectives.push_back({1, k, 1, int64_t(t - theta), end - int64_t(theta)});
        d.push_back(double(int64_t(theta)));
    }
    in.options.repairCausality = false;
    const SyncEngineResult r = runSyncEngine(in);
    const WorkerClockResult &w1 = r.workers[1];
    QCOMPARE(w1.method, ClockMethod::Collectives);
    QVERIFY(w1.flags & SegAligned);
    QVERIFY(w1.flags & SegFewSamples);
    QCOMPARE(w1.driftPpm, 0.0);
    QVERIFY2(std::fabs(double(w1.offsetNs) - medianOf(d)) <= 1.0,
             qPrintable(QString::number(w1.offsetNs)));
    QString all;
    for (const std::string &n : r.notes)
        all += QString::fromStdString(n) + " | ";
    QVERIFY2(hasNote(r, "rank 1: collective alignment: " + note), qPrintable(all));
}

void TstSyncEngine::collectivesNotCorresponding()
{
    // The c10d::allreduce_ events of hta_sampled_kineto_2rank (µs): sampled, so the k-th
    // instances on the two ranks are different calls; rank 1 also has one more here.
    const int64_t r0[][2] = {
        {240951, 241095}, {347549, 347705}, {1069415, 1069544}, {1073259, 1073361}};
    const int64_t r1[][2] = {{240895, 241042},
                             {445847, 446004},
                             {860321, 860446},
                             {1064064, 1064177},
                             {1070000, 1070100}};
    SyncEngineInput in = twoRanks(1'100'000'000);
    for (int k = 0; k < 5; ++k) {
        if (k < 4)
            in.collectives.push_back({0, k, 1, r0[k][0] * 1000, r0[k][1] * 1000});
        in.collectives.push_back({1, k, 1, r1[k][0] * 1000, r1[k][1] * 1000});
    }
    const SyncEngineResult r = runSyncEngine(in); // causality repair on
    QVERIFY(hasNote(r, "rank 1: collective alignment: instance counts differ (5 here, 4 in "
                       "the reference)"));
    QVERIFY(hasNote(r, "rank 1: collective alignment: the 4 matched instances do not agree"));
    QCOMPARE(r.workers[1].method, ClockMethod::None);
    QVERIFY(r.workers[1].map.isIdentity());
    // Nothing false reaches the repair: the reference is not bent either.
    QCOMPARE(r.workers[0].driftPpm, 0.0);
    QCOMPARE(r.workers[0].boundNs, int64_t(0));
    QCOMPARE(r.causality.constraints, int64_t(0));
}

void TstSyncEngine::causalityRepair()
{
    // Two workers whose maps are identity; worker 1 receives 10 µs "before" the send.
    SyncEngineInput in;
    for (int w = 0; w < 2; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.lastLocalNs = 10'000'000'000;
        in.workers.push_back(wi);
    }
    for (int k = 0; k < 50; ++k) {
        const int64_t t = int64_t(k) * 100'000'000;
        in.messages.push_back({0, t + 50'000, 1, t + 40'000}); // violated by 10 µs (+latency)
        in.messages.push_back({1, t + 60'000'000, 0, t + 60'100'000}); // fine
    }
    in.options.minMessageLatencyNs = 1000;
    in.options.alignOnCollectives = false;
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.causality.constraints, int64_t(100));
    QCOMPARE(r.causality.violationsBefore, int64_t(50));
    QCOMPARE(r.causality.violationsAfter, int64_t(0));
    QCOMPARE(r.causality.eventsMoved, int64_t(50));
    // 11 µs missing, plus 2 ns clearance for rounding the maps to whole ns, plus 1.
    QVERIFY(r.causality.maxShiftNs >= 11'000 && r.causality.maxShiftNs <= 11'003);
    QVERIFY(r.workers[1].flags & SegRepaired);
    QVERIFY(!(r.workers[0].flags & SegRepaired));
    // Original order of worker 1's own events is kept (map stays monotone).
    const ClockMap &m = r.workers[1].map;
    for (int64_t t = 0; t < 5'000'000'000; t += 1000)
        QVERIFY(m.toGlobal(t + 1000) > m.toGlobal(t));
    for (const MessagePair &p : in.messages)
        QVERIFY(m.toGlobal(p.recvLocal) >= p.sendLocal + 1000 || p.recvWorker == 0);
}

// A repair that stops short of maps that exist (no contradiction) says which bound stopped it:
// rank 1 receives at 500 what rank 0 sent at 1000; raising rank 1's clock there also raises its
// send at 600, which rank 2 received at 700 — a constraint met before, violated now, that only a
// second round repairs. With one round the repair stops there and says so; with the default
// rounds it meets both.
void TstSyncEngine::causalityRepairStoppedShortSaysWhy()
{
    SyncEngineInput in;
    for (int w = 0; w < 3; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.host = "host-" + std::to_string(w);
        wi.bootId = "boot-" + std::to_string(w);
        wi.lastLocalNs = 1'000'000;
        in.workers.push_back(wi);
    }
    in.messages.push_back({0, 1000, 1, 500});
    in.messages.push_back({1, 600, 2, 700});
    auto fresh = [] {
        std::vector<WorkerClockResult> res(3);
        for (int w = 0; w < 3; ++w)
            res[size_t(w)].workerId = w;
        return res;
    };
    std::vector<WorkerClockResult> once = fresh();
    CausalityRepair oneRound(1, 0.01, 1);
    const CausalityReport r = oneRound.repair(in, once);
    QVERIFY(!r.converged);
    QVERIFY(!oneRound.contradictory());
    QCOMPARE(oneRound.stopReason(),
             std::string("each of its 1 re-checks found constraints its adjustments had newly "
                         "violated"));
    std::vector<WorkerClockResult> full = fresh();
    CausalityRepair rounds(1);
    const CausalityReport done = rounds.repair(in, full);
    QVERIFY(done.converged);
    QCOMPARE(done.violationsAfter, int64_t(0));
    QVERIFY(rounds.stopReason().empty());
}

// Event times come from logs and caches, which can hold any int64: constraints between instants
// near the ends of the range ask for adjustments past it. The repair must end with maps that
// are still clocks, without an integer overflow or a double out of int64's range on the way
// (undefined behaviour, which the sanitizer build of this test reports).
void TstSyncEngine::causalityRepairExtremeTimes()
{
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    SyncEngineInput in;
    for (int w = 0; w < 2; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.firstLocalNs = kMin + 1;
        wi.lastLocalNs = kMax - 1;
        in.workers.push_back(wi);
    }
    in.messages.push_back({0, 4'000'000'000'000'000'000, 1, -4'000'000'000'000'000'000});
    in.messages.push_back({0, kMax - 5, 1, kMin + 5});
    in.messages.push_back({1, 9'000'000'000'000'000'000, 0, -9'000'000'000'000'000'000});
    in.messages.push_back({0, 1000, 1, 0}); // and an ordinary one among them
    in.options.minMessageLatencyNs = 1000;
    in.options.alignOnCollectives = false;
    const SyncEngineResult r = runSyncEngine(in);
    QCOMPARE(r.causality.constraints, int64_t(4));
    QVERIFY(r.causality.violationsBefore >= 3);
    for (const WorkerClockResult &w : r.workers) {
        int64_t prev = kMin;
        for (int64_t t = -4'500'000'000'000'000'000; t <= 4'500'000'000'000'000'000;
             t += 500'000'000'000'000'000) {
            const int64_t g = w.map.toGlobal(t);
            QVERIFY2(g >= prev, qPrintable(QString("worker %1 at %2").arg(w.workerId).arg(t)));
            prev = g;
        }
    }
}

void TstSyncEngine::causalityRepairContradiction()
{
    // Constraints no increasing map meets: every millisecond each worker receives, at the same
    // local instant, what the other sent at that instant (1 µs latency both ways). Each pass
    // raises both maps again; the repair must still end, in a bounded number of passes, and say
    // that it did not converge.
    SyncEngineInput in;
    for (int w = 0; w < 2; ++w) {
        WorkerClockInput wi;
        wi.workerId = w;
        wi.rank = w;
        wi.lastLocalNs = 1'000'000'000;
        in.workers.push_back(wi);
    }
    for (int k = 0; k < 400; ++k) {
        const int64_t t = int64_t(k) * 1'000'000;
        in.messages.push_back({0, t, 1, t});
        in.messages.push_back({1, t, 0, t});
    }
    in.options.minMessageLatencyNs = 1000;
    in.options.alignOnCollectives = false;
    QElapsedTimer timer;
    timer.start();
    const SyncEngineResult r = runSyncEngine(in);
    QVERIFY2(timer.elapsed() < 10'000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(r.causality.constraints, int64_t(800));
    QCOMPARE(r.causality.violationsBefore, int64_t(800));
    QVERIFY(!r.causality.converged);
    QVERIFY(r.causality.passes >= 1 && r.causality.passes <= 4 * 32);
    QVERIFY(r.causality.violationsAfter > 0);
    // The note says why it stopped: the constraints contradict each other, and which bound
    // ended the repair.
    const QString why = r.causality.passes == 4 * 32
                            ? QString("its budget of 128 passes ran out")
                            : QString("its adjustment reached the size cap (16 knots per "
                                      "constrained event)");
    QVERIFY(hasNote(r, QString("causality repair stopped after %1 passes without meeting every "
                               "constraint (they contradict each other): %3; %2 violations remain")
                           .arg(r.causality.passes)
                           .arg(r.causality.violationsAfter)
                           .arg(why)));
    // Still a clock: both maps strictly increasing.
    for (const WorkerClockResult &w : r.workers)
        for (int64_t t = 0; t < 1'000'000'000; t += 997)
            QVERIFY(w.map.toGlobal(t + 997) > w.map.toGlobal(t));
}

void TstSyncEngine::twoReferenceClocks_data()
{
    QTest::addColumn<QString>("refB"); // ranks 2-3's reference id (ranks 0-1: "srv-a:29400@aa")
    QTest::addColumn<bool>("collectives");
    QTest::newRow("another server, collectives") << "srv-b:29400@bb" << true;
    QTest::newRow("another server, no collectives") << "srv-b:29400@bb" << false;
    // The same server (boot hash) under another name: one clock.
    QTest::newRow("same server, other name") << "10.0.0.1:29400@aa" << false;
}

// Ranks 0-1 synced to server A, ranks 2-3 to B, whose clock reads 1000 s more than A's (two
// unrelated clocks). A's clock (the lowest rank's) is global time; B's ranks never get a sync
// fit on it: aligned on collectives with the alignment's bound, or no map; a note either way.
void TstSyncEngine::twoReferenceClocks()
{
    QFETCH(QString, refB);
    QFETCH(bool, collectives);
    const bool other = !refB.endsWith("@aa");
    const int64_t last = 20'000'000'000;
    const int64_t serverGap = other ? 1'000'000'000'000 : 0;
    const double theta[] = {5e6, -3e6, 7e6, 1e6}; // A − local of each worker
    SyncEngineInput in;
    for (int w = 0; w < 4; ++w) {
        in.workers.push_back(worker(w, "h" + std::to_string(w),
                                    makeSamples(theta[w] + (w >= 2 ? double(serverGap) : 0.0), 0.0,
                                                20, 1'000'000'000, uint64_t(w) + 11),
                                    last));
        in.workers.back().refId = w < 2 ? "srv-a:29400@aa" : refB.toStdString();
    }
    if (collectives) {
        for (int k = 0; k < 40; ++k) {
            const int64_t end = 500'000'000 + int64_t(k) * 450'000'000; // A's clock
            for (int w = 0; w < 4; ++w) {
                const int64_t localEnd = end - int64_t(theta[w]);
                in.collectives.push_back({w, k, 1, localEnd - 2'000'000 + 300'000 * w, localEnd});
            }
        }
    }
    const SyncEngineResult r = runSyncEngine(in);
    QString all;
    for (const std::string &n : r.notes)
        all += QString::fromStdString(n) + " | ";
    for (int w = 0; w < 2; ++w) {
        QCOMPARE(r.workers[size_t(w)].method, ClockMethod::SyncSamples);
        QVERIFY(!(r.workers[size_t(w)].flags & SegOtherReference));
    }
    if (!other) {
        for (int w = 2; w < 4; ++w) {
            QCOMPARE(r.workers[size_t(w)].method, ClockMethod::SyncSamples);
            QVERIFY(std::llabs(r.workers[size_t(w)].map.toGlobal(0) - int64_t(theta[w])) < 20'000);
        }
        QVERIFY2(!hasNote(r, "reference clocks"), qPrintable(all));
        return;
    }
    QVERIFY2(hasNote(r, "workers synced to 2 unrelated reference clocks (time servers; no shared "
                        "corrected clock): ranks 0-1 to srv-a:29400@aa (the reference), ranks "
                        "2-3 to srv-b:29400@bb; ranks 2-3 " +
                            QString(collectives ? "aligned to the reference on collectives "
                                                  "(assumption-based bound)"
                                                : "not placed on the reference")),
             qPrintable(all));
    for (int w = 2; w < 4; ++w) {
        const WorkerClockResult &res = r.workers[size_t(w)];
        QVERIFY(res.flags & SegOtherReference);
        if (!collectives) {
            QCOMPARE(res.method, ClockMethod::None);
            QCOMPARE(res.boundNs, int64_t(0));
            continue;
        }
        // On A's scale through the collectives (their ends simultaneous), never through B's
        // samples (which would put it 1000 s off with a µs bound).
        QCOMPARE(res.method, ClockMethod::Collectives);
        QVERIFY(res.flags & SegAligned);
        for (const ClockSegment &seg : res.map.segments())
            QVERIFY(seg.flags & SegOtherReference);
        const int64_t error =
            std::llabs(res.map.toGlobal(10'000'000'000) - (10'000'000'000 + int64_t(theta[w])));
        QVERIFY2(error <= std::max(res.assumedBoundNs, int64_t(1000)),
                 qPrintable(QString("%1 > %2").arg(error).arg(res.assumedBoundNs)));
        QVERIFY2(res.boundNs >= 1'000'000, qPrintable(QString::number(res.boundNs)));
    }
}

// An elastic restart: the job's server (rank 0's) comes back on the same host on another port
// (torchrun picks a new MASTER_PORT), so the two incarnations of one host's workers name two
// servers of one clock (one boot hash). Both incarnations' samples fit the host's clock: the
// second is not extrapolated from the first's.
void TstSyncEngine::restartedServerIsOneReference()
{
    const int64_t second = 10'000'000'000, last = 20'000'000'000;
    const double theta = 4e6; // reference − local
    SyncEngineInput in;
    in.workers.push_back(worker(0, "a", makeSamples(theta, 0.0, 10, 1'000'000'000, 21), second));
    in.workers.back().refId = "h0:41000@aa";
    std::vector<ClockSample> later = makeSamples(theta, 0.0, 10, 1'000'000'000, 22);
    for (ClockSample &x : later) {
        x.t1 += second, x.t2 += second, x.t3 += second, x.t4 += second;
    }
    in.workers.push_back(worker(1, "a", std::move(later), last));
    in.workers.back().refId = "h0:52000@aa";
    in.workers.back().firstLocalNs = second;
    in.workers.back().rank = 0;
    const SyncEngineResult r = runSyncEngine(in);
    QString all;
    for (const std::string &n : r.notes)
        all += QString::fromStdString(n) + " | ";
    QVERIFY2(!hasNote(r, "several references"), qPrintable(all));
    for (const WorkerClockResult &w : r.workers) {
        QCOMPARE(w.method, ClockMethod::SyncSamples);
        QCOMPARE(w.sampleCount, 160); // both incarnations' samples
        for (int64_t t = 1'000'000'000; t < last - 1'000'000'000; t += 500'000'000) {
            if (t > second - 1'000'000'000 && t < second + 1'000'000'000)
                continue; // between the incarnations: no burst for a second either side
            QVERIFY2(!(w.map.segmentAt(t).flags & SegExtrapolated), qPrintable(QString::number(t)));
            QVERIFY(std::llabs(w.map.toGlobal(t) - t - int64_t(theta)) < 2'000);
        }
    }
    // Another boot behind the second server is another clock: not combined, and said.
    in.workers.back().refId = "h0:52000@bb";
    const SyncEngineResult other = runSyncEngine(in);
    QVERIFY(hasNote(other, "rank 0: samples against several references; used h0:"));
    QCOMPARE(other.workers[0].sampleCount, 80);
}

void TstSyncEngine::methodNames()
{
    QCOMPARE(QString(methodName(ClockMethod::None)), QString("none"));
    QCOMPARE(QString(methodName(ClockMethod::SyncSamples)), QString("sync"));
    QCOMPARE(QString(methodName(ClockMethod::Collectives)), QString("collectives"));
}

QTEST_APPLESS_MAIN(TstSyncEngine)
#include "tst_syncengine.moc"
