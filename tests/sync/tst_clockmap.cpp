// Tests for ClockMap: identity, exact evaluation, continuity, inverse, batch == scalar (toGlobal, durations).
#include "sync/clockmap.h"

#include <QtTest>

#include <limits>

#include <random>

using namespace syncline::sync;

class TstClockMap : public QObject
{
    Q_OBJECT
private slots:
    void identity();
    void toGlobal_data();
    void toGlobal();
    void continuityAndInverse();
    void batchEqualsScalar();
    void segmentAt();
    void extremesSaturate();
};

static ClockMap exampleMap()
{
    // The example of clockmap.h.
    return ClockMap({{0, 1000, 1.00001, 10, 5, 0}, {1'000'000'000, 1'000'011'000, 1.0, 20, 6, 0}});
}

void TstClockMap::identity()
{
    const ClockMap m;
    QVERIFY(m.isIdentity());
    QCOMPARE(m.toGlobal(123456789), int64_t(123456789));
    QCOMPARE(m.toLocal(-5), int64_t(-5));
    QVERIFY(!ClockMap::offset(7).isIdentity());
    QCOMPARE(ClockMap::offset(7).toGlobal(100), int64_t(107));
    QCOMPARE(ClockMap::offset(-7).toLocal(100), int64_t(107));
}

void TstClockMap::toGlobal_data()
{
    QTest::addColumn<qint64>("local");
    QTest::addColumn<qint64>("global");
    QTest::newRow("start") << qint64(0) << qint64(1000);
    QTest::newRow("before first (extends first segment)") << qint64(-1'000'000) << qint64(-999'010);
    QTest::newRow("header example") << qint64(500'000'000) << qint64(500'006'000);
    QTest::newRow("boundary") << qint64(1'000'000'000) << qint64(1'000'011'000);
    QTest::newRow("after last") << qint64(2'000'000'000) << qint64(2'000'011'000);
}

void TstClockMap::toGlobal()
{
    QFETCH(qint64, local);
    QFETCH(qint64, global);
    QCOMPARE(exampleMap().toGlobal(local), int64_t(global));
}

void TstClockMap::continuityAndInverse()
{
    const ClockMap m = exampleMap();
    const auto &s = m.segments();
    // Segment 0 evaluated at segment 1's start equals its globalStart within 1 ns.
    const int64_t d = s[1].localStart - s[0].localStart;
    const double end0 = double(s[0].globalStart) + double(d) * s[0].slope;
    QVERIFY(std::abs(end0 - double(s[1].globalStart)) <= 1.0);
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int64_t> dist(-3'000'000'000, 3'000'000'000);
    for (int i = 0; i < 10000; ++i) {
        const int64_t x = dist(rng);
        const int64_t g = m.toGlobal(x);
        QVERIFY(std::abs(m.toLocal(g) - x) <= 1);
        QVERIFY(m.toGlobal(x + 1) >= g); // monotone
    }
}

void TstClockMap::batchEqualsScalar()
{
    std::vector<ClockSegment> segs;
    int64_t g = 5'000;
    for (int i = 0; i < 100; ++i) {
        const double slope = 1.0 + (i % 7 - 3) * 1e-5;
        segs.push_back({int64_t(i) * 10'000'000, g, slope, 0, 0, 0});
        g += int64_t(std::llround(10'000'000 * slope));
    }
    const ClockMap m(segs);
    std::mt19937_64 rng(2);
    std::uniform_int_distribution<int64_t> dist(-100'000'000, 1'100'000'000);
    std::vector<int64_t> in(50000), out(in.size());
    for (auto &x : in)
        x = dist(rng);
    m.toGlobal(in, out); // unsorted input must still be right
    for (size_t i = 0; i < in.size(); ++i)
        QCOMPARE(out[i], m.toGlobal(in[i]));
    std::sort(in.begin(), in.end());
    m.toGlobal(in, out);
    for (size_t i = 0; i < in.size(); ++i)
        QCOMPARE(out[i], m.toGlobal(in[i]));
    // durations(): ends in the start's segment, in a later one, before the first segment and
    // beyond the last; starts sorted (as a track's) and not.
    std::vector<int64_t> ends(in.size()), d(in.size());
    std::uniform_int_distribution<int64_t> len(0, 30'000'000);
    for (int sorted = 0; sorted < 2; ++sorted) {
        if (!sorted)
            std::shuffle(in.begin(), in.end(), rng);
        else
            std::sort(in.begin(), in.end());
        for (size_t i = 0; i < in.size(); ++i)
            ends[i] = in[i] + (i % 5 == 0 ? len(rng) : len(rng) / 1000);
        m.durations(in, ends, d);
        for (size_t i = 0; i < in.size(); ++i)
            QCOMPARE(d[i], m.toGlobal(ends[i]) - m.toGlobal(in[i]));
    }
    const ClockMap identity;
    identity.durations(in, ends, d);
    QCOMPARE(d[7], ends[7] - in[7]);
}

// A map whose segments lie far from the query (a correction cache edited by hand can hold any
// values) is held at the int64 range, never wrapped: toGlobal stays monotone up to INT64_MAX
// and down to INT64_MIN, toLocal of either end saturates, durations do not wrap.
void TstClockMap::extremesSaturate()
{
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    const ClockMap far({{-(int64_t(1) << 62), int64_t(1) << 62, 1.0, 0, 0, 0}});
    QCOMPARE(far.toGlobal(kMax), kMax);
    QVERIFY(far.toGlobal(kMax) >= far.toGlobal(kMax - 1'000'000'000));
    QVERIFY(far.toGlobal(0) > 0); // 2^62 + 2^62 = 2^63: held at INT64_MAX, not wrapped
    const ClockMap low({{int64_t(1) << 62, -(int64_t(1) << 62), 1.0, 0, 0, 0}});
    QCOMPARE(low.toGlobal(kMin), kMin);
    QVERIFY(low.toGlobal(kMin + 1'000'000'000) >= low.toGlobal(kMin));
    const ClockMap slow({{0, 0, 1e-6, 0, 0, 0}});
    QCOMPARE(slow.toLocal(kMax), kMax);
    QCOMPARE(slow.toLocal(kMin), kMin);
    const int64_t starts[] = {kMin};
    const int64_t ends[] = {kMax};
    int64_t out[1] = {0};
    far.durations(starts, ends, out);
    QVERIFY(out[0] >= 0);
    // Shifted past the range (a forged correction cache, then --clock wall or the reference
    // shift): held at it, not wrapped.
    const ClockMap up = far.shifted(kMax - 5);
    QCOMPARE(up.segments()[0].globalStart, kMax);
    QCOMPARE(low.shifted(kMin).segments()[0].globalStart, kMin);
    QCOMPARE(far.shifted(-(int64_t(1) << 62)).segments()[0].globalStart, int64_t(0));
    QCOMPARE(ClockMap().shifted(7).toGlobal(100), int64_t(107));
}

void TstClockMap::segmentAt()
{
    const ClockMap m = exampleMap();
    QCOMPARE(m.segmentAt(-5).boundNs, int64_t(10));
    QCOMPARE(m.segmentAt(999'999'999).boundNs, int64_t(10));
    QCOMPARE(m.segmentAt(1'000'000'000).boundNs, int64_t(20));
    QCOMPARE(m.segmentAt(INT64_MAX / 2).bandNs, int64_t(6));
}

QTEST_APPLESS_MAIN(TstClockMap)
#include "tst_clockmap.moc"
