// Tests for StepDetector, WindowSelector and the robust line of CollectiveAligner on exact
// synthetic data.
#include "sync/collectivealigner.h"
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

} // namespace

class TstStepDetector : public QObject
{
    Q_OBJECT
private slots:
    void steps_data();
    void steps();
    void windowCandidates();
    void windowPrefersLongForStraightLine();
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
