// tst_modelcombiner — ModelCombiner on hand-built process models: where a process has bursts its
// model decides, a model carried far beyond its bursts does not pull the others, and the combined
// map stays continuous where a process's samples begin or end.
#include "sync/modelcombiner.h"

#include <QtTest>

#include <cmath>

using namespace syncline::sync;

namespace {

constexpr int64_t kMs = 1'000'000, kS = 1'000'000'000;
constexpr double kTheta = 5e6; // reference − local, the truth everywhere

// A model as ClockModelBuilder makes it: from domainFirst extrapolated back along `leadSlope`
// (d global / d local) to the first knot, a knot every `every` from `first` to `last` at θ, then
// extrapolated along `trailSlope`.
ClockModel model(int64_t domainFirst, int64_t first, int64_t last, int64_t every, double leadSlope,
                 double trailSlope)
{
    ClockModel m;
    m.driftAllowance = 5e-6;
    m.window = 8;
    auto seg = [](int64_t t, double theta, double slope, uint32_t flags) {
        ClockSegment s;
        s.localStart = t;
        s.globalStart = t + int64_t(std::llround(theta));
        s.slope = slope;
        s.boundNs = 100'000;
        s.bandNs = 50'000;
        s.flags = flags;
        return s;
    };
    if (domainFirst < first) {
        const double at = kTheta - (leadSlope - 1.0) * double(first - domainFirst);
        m.segments.push_back(seg(domainFirst, at, leadSlope, SegExtrapolated));
    }
    for (int64_t t = first; t < last; t += every) {
        m.segments.push_back(seg(t, kTheta, 1.0, 0));
        ++m.bursts;
    }
    m.segments.push_back(seg(last, kTheta, trailSlope, SegExtrapolated));
    ++m.bursts;
    return m;
}

double thetaAt(const ClockMap &m, int64_t t)
{
    return double(m.toGlobal(t) - t);
}

} // namespace

class TstModelCombiner : public QObject
{
    Q_OBJECT
private slots:
    void carriedModelDoesNotPullSampledOne();
    void equalProcessesGiveTheirMean();
};

// Two incarnations on one host: the first sampled 0.1–2 s, the second 12–16 s. The second's first
// bursts (long round trips while the job starts) gave its edge a rate 260 ppm off, so carried back
// to the first incarnation it is 2.6 ms off there. Where the first has bursts, its model decides;
// between the two the map moves over smoothly.
void TstModelCombiner::carriedModelDoesNotPullSampledOne()
{
    const ClockModel a = model(0, 100 * kMs, 2 * kS, 100 * kMs, 1.0, 1.0);
    const ClockModel b = model(0, 12 * kS, 16 * kS, 100 * kMs, 1.0 + 260e-6, 1.0);
    const ClockModel c = ModelCombiner::combine({a, b});
    const ClockMap map(c.segments);
    for (int64_t t = 100 * kMs; t <= 16 * kS; t += 10 * kMs) {
        if (t > 2 * kS && t < 12 * kS)
            continue; // between the incarnations: no event of this host lies there
        const double err = std::fabs(thetaAt(map, t) - kTheta);
        QVERIFY2(err < 1'000.0, qPrintable(QString("t=%1 ms: %2 ns off").arg(t / kMs).arg(err)));
        QVERIFY(err <= double(map.segmentAt(t).boundNs));
    }
    // Continuous: no jump anywhere, the gap included (1 ms steps; 290 ppm is the steepest a mean
    // of the two can move there).
    for (int64_t t = 0; t < 16 * kS; t += kMs) {
        const double step = thetaAt(map, t + kMs) - thetaAt(map, t);
        QVERIFY2(std::fabs(step) < 1'000.0, qPrintable(QString("t=%1 ms: jump %2 ns").arg(t / kMs).arg(step)));
    }
}

// Processes sampled over the same span: each counts fully; the map is their mean.
void TstModelCombiner::equalProcessesGiveTheirMean()
{
    ClockModel a = model(0, 100 * kMs, 10 * kS, 100 * kMs, 1.0, 1.0);
    ClockModel b = model(0, 150 * kMs, 10 * kS, 100 * kMs, 1.0, 1.0);
    for (ClockSegment &s : b.segments)
        s.globalStart += 4'000; // b reads θ + 4 µs
    const ClockMap map(ModelCombiner::combine({a, b}).segments);
    for (int64_t t = 200 * kMs; t < 10 * kS; t += 50 * kMs)
        QVERIFY2(std::fabs(thetaAt(map, t) - (kTheta + 2'000)) <= 1.0, qPrintable(QString::number(t)));
}

QTEST_APPLESS_MAIN(TstModelCombiner)
#include "tst_modelcombiner.moc"
