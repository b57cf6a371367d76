// Tests for StepDetector, WindowSelector and the robust line of CollectiveAligner on exact
// synthetic data.
#include "sync/collectivealigner.h"
#include "sync/piecewiselinear.h"
#include "sync/stepdetector.h"
#include "sync/windowselector.h"

#include <QtTest>

using namespace syncline::sync;

namespace {

// One burst a second; θ = drift·t (+ step after stepAt), interval ±halfWidth around θ.
std::vector<BurstBound> series(int n, double drift, int stepAt, int64_t stepNs, int64_t halfWidth)
{
    std::vector<BurstBound> out;
    for (int k = 0; k < n; ++k) {
        BurstBound b;
        b.tUpper = b.tLower = int64_t(k) * 1'000'000'000;
        const int64_t theta =
            int64_t(std::llround(drift * double(b.tUpper))) + (k >= stepAt ? stepNs : 0);
        b.upper = theta + halfWidth;
        b.lower = theta - halfWidth;
        out.push_back(b);
    }
    return out;
}

// n seconds of bursts from `sources` processes of one host (one clock): process s bursts at
// k s + s·1.3 ms, with its own interval width and deterministic queueing inside it; θ = drift·t,
// minus stepNs from second stepAt on.
std::vector<BurstBound> pooled(int n, int sources, double drift, int stepAt, int64_t stepNs)
{
    std::vector<BurstBound> out;
    for (int k = 0; k < n; ++k) {
        for (int s = 0; s < sources; ++s) {
            BurstBound b;
            b.source = s;
            b.tUpper = int64_t(k) * 1'000'000'000 + int64_t(s) * 1'300'000;
            b.tLower = b.tUpper + 400'000;
            auto theta = [&](int64_t t) {
                return int64_t(std::llround(drift * double(t))) - (k >= stepAt ? stepNs : 0);
            };
            const int64_t hw = 4'000 + 700 * s;
            b.upper = theta(b.tUpper) + hw + (k * 7919 + s * 104729) % 3001;
            b.lower = theta(b.tLower) - hw - (k * 104729 + s * 7919) % 3001;
            out.push_back(b);
        }
    }
    std::sort(out.begin(), out.end(),
              [](const BurstBound &a, const BurstBound &b) { return a.tMid() < b.tMid(); });
    return out;
}

} // namespace

class TstStepDetector : public QObject
{
    Q_OBJECT
private slots:
    void steps_data();
    void steps();
    void pooledProcesses_data();
    void pooledProcesses();
    void tentsInPlace_data();
    void tentsInPlace();
    void windowCandidates();
    void windowPrefersLongForStraightLine();
    void windowShortForCurvedDenseRun();
    void windowParabolaForSparseCurvedRun();
    void robustLine_data();
    void robustLine();
};

void TstStepDetector::steps_data()
{
    QTest::addColumn<int>("stepAt");
    QTest::addColumn<qint64>("stepNs");
    QTest::addColumn<qint64>("halfWidth");
    QTest::addColumn<int>("expected"); // index found, -1 none
    QTest::newRow("none") << 1000 << qint64(0) << qint64(10'000) << -1;
    QTest::newRow("down 100us at 40") << 40 << qint64(-100'000) << qint64(10'000) << 40;
    QTest::newRow("up 50us at 25") << 25 << qint64(50'000) << qint64(10'000) << 25;
    QTest::newRow("smaller than interval: not detectable")
        << 30 << qint64(-5'000) << qint64(10'000) << -1;
}

void TstStepDetector::steps()
{
    QFETCH(int, stepAt);
    QFETCH(qint64, stepNs);
    QFETCH(qint64, halfWidth);
    QFETCH(int, expected);
    const auto b = series(80, 42e-6, stepAt, stepNs, halfWidth);
    const std::vector<size_t> found = StepDetector().detect(b);
    if (expected < 0) {
        QVERIFY(found.empty());
    } else {
        QCOMPARE(found.size(), size_t(1));
        QCOMPARE(found[0], size_t(expected));
    }
}

void TstStepDetector::pooledProcesses_data()
{
    QTest::addColumn<int>("sources");
    QTest::addColumn<int>("stepAt");
    QTest::addColumn<qint64>("stepNs");
    QTest::addColumn<int>("expected"); // second of the step found, -1 none
    QTest::newRow("8 processes, no step") << 8 << 1000 << qint64(0) << -1;
    QTest::newRow("2 processes, no step") << 2 << 1000 << qint64(0) << -1;
    QTest::newRow("8 processes, 100 us step at 40") << 8 << 40 << qint64(100'000) << 40;
    QTest::newRow("4 processes, -60 us step at 25") << 4 << 25 << qint64(-60'000) << 25;
}

// Several processes of one host pooled into one domain: each process's bursts are compared with
// its own history (pooled, a history of 8 bursts spans 10 ms, its slope is noise, and the next
// second's bursts "miss": a false step almost every second). A real step is one cut, before the
// first burst after it.
void TstStepDetector::pooledProcesses()
{
    QFETCH(int, sources);
    QFETCH(int, stepAt);
    QFETCH(qint64, stepNs);
    QFETCH(int, expected);
    const auto b = pooled(80, sources, 42e-6, stepAt, stepNs);
    std::vector<size_t> ambiguous;
    const std::vector<size_t> found = StepDetector().detect(b, &ambiguous);
    QVERIFY(ambiguous.empty());
    if (expected < 0) {
        QCOMPARE(found, std::vector<size_t>{});
    } else {
        QCOMPARE(found, std::vector<size_t>{size_t(expected * sources)});
    }
}

void TstStepDetector::tentsInPlace_data()
{
    QTest::addColumn<bool>("timeOrder");
    QTest::newRow("tents in time order") << true;
    QTest::newRow("tents in any order") << false;
}

// The in-place merge used by causality repair gives the same function as maxWith.
void TstStepDetector::tentsInPlace()
{
    QFETCH(bool, timeOrder);
    PiecewiseLinear whole, inPlace;
    for (int i = 0; i < 300; ++i) {
        const int j = timeOrder ? i : (i * 37) % 300;
        const double peak = 1000.0 * j + (j % 7) * 90.0;
        const PiecewiseLinear t = PiecewiseLinear::tent(peak - 300.0 - (j % 5) * 100.0, peak,
                                                        5.0 + j % 11, 0.01 + 0.1 * (j % 3));
        whole = whole.maxWith(t);
        inPlace.maxWithInPlace(t);
    }
    for (double x = -2000.0; x < 400'000.0; x += 37.0)
        QVERIFY2(std::fabs(whole.value(x) - inPlace.value(x)) < 1e-9,
                 qPrintable(QString::number(x)));
    for (size_t k = 1; k < inPlace.knots().size(); ++k)
        QVERIFY(inPlace.knots()[k].t > inPlace.knots()[k - 1].t);
}

void TstStepDetector::windowCandidates()
{
    const std::vector<int> c = WindowSelector::candidates(16);
    QCOMPARE(c, (std::vector<int>{2, 3, 4, 6, 8, 12, 16}));
}

void TstStepDetector::windowPrefersLongForStraightLine()
{
    // Exact straight line: every window length fits perfectly; ties go to the longest that still
    // has 3 joints (200 bursts: 48 → 4 windows; 64 would leave only 2 joints).
    const auto b = series(200, 10e-6, 1000, 0, 1000);
    const WindowSelector::Choice c = WindowSelector(64).select(b);
    QCOMPARE(c.window, 48);
    QVERIFY(!c.quadratic); // 1 s apart: not sparse
    QVERIFY(c.disagreementNs < 1.0);
}

// A dense run on a bent clock (θ'' = 2.6e-9/s, a 0.5 ppm thermal swing of 20 minutes; exact
// intervals ±1.6 µs): every window's envelope line is the same Chebyshev compromise of its arc,
// biased to one side by k·W²/16, so neighbouring windows agree at their joints whatever W — the
// joint RMS alone picked the longest (48 bursts: 190 ns of bias). The burst midpoints see the
// bias: short windows win (up to 8 bursts, 5 ns of bias; scores within 1 ns are ties).
void TstStepDetector::windowShortForCurvedDenseRun()
{
    std::vector<BurstBound> b;
    for (int k = 0; k < 200; ++k) {
        BurstBound x;
        x.tUpper = x.tLower = int64_t(k) * 1'000'000'000;
        const double ts = k - 100.0;
        const int64_t th = int64_t(std::llround(1.3 * ts * ts)) + 7 * k;
        x.upper = th + 1600;
        x.lower = th - 1600;
        b.push_back(x);
    }
    const WindowSelector::Choice c = WindowSelector(64).select(b);
    QVERIFY(!c.quadratic);
    QVERIFY2(c.window <= 8, qPrintable(QString::number(c.window))); // bias k·W²/16 <= 5 ns
}

void TstStepDetector::windowParabolaForSparseCurvedRun()
{
    // One burst a minute for an hour, θ bent by a thermal swing (0.5 ppm, 20 min period), bounds
    // ±10 µs with a ±300 ns wobble: the sparse run gets parabolic windows of a few bursts.
    std::vector<BurstBound> b;
    for (int k = 0; k < 61; ++k) {
        const double t = 60e9 * k;
        const double th = 2e-5 * t + 0.5e-6 * 1200e9 / (2 * M_PI) * std::cos(2 * M_PI * t / 1200e9);
        const int64_t wob = (k * 7919) % 601 - 300;
        BurstBound x;
        x.tUpper = x.tLower = int64_t(t);
        x.upper = int64_t(th) + 10'000 + wob;
        x.lower = int64_t(th) - 10'000 + wob;
        b.push_back(x);
    }
    QVERIFY(WindowSelector::isSparse(b));
    const WindowSelector::Choice c = WindowSelector().select(b);
    QVERIFY(c.quadratic);
    QVERIFY(c.window >= 4 && c.window <= 9);
}

void TstStepDetector::robustLine_data()
{
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("slope");
    QTest::newRow("flat") << 1234.0 << 0.0;
    QTest::newRow("drift") << -5e5 << 3e-5;
}

void TstStepDetector::robustLine()
{
    QFETCH(double, offset);
    QFETCH(double, slope);
    std::vector<double> t, d;
    for (int i = 0; i < 400; ++i) {
        t.push_back(1e9 * i);
        // Every 10th point is a gross outlier (a straggler's late end); the fit must ignore it.
        d.push_back(offset + slope * t.back() + (i % 10 == 3 ? 5e6 : 0.0));
    }
    const CollectiveAligner::Fit f = CollectiveAligner::robustLine(t, d);
    QVERIFY(f.valid);
    QVERIFY(std::fabs(f.slope - slope) < 1e-12);
    QVERIFY(std::fabs(f.offset - offset) < 1.0);
}

QTEST_APPLESS_MAIN(TstStepDetector)
#include "tst_stepdetector.moc"
