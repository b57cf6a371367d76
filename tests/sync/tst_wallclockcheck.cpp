// Tests for checkWallClocks (sync/wallclockcheck.h): hosts inside and outside their bands, the
// consensus (a majority, Marzullo's intersection), edges (exactly on the band, no samples → no
// band, no anchor, a host whose processes disagree, two hosts that disagree, one host alone) and
// that shifting every reading by one constant changes no verdict.
#include "sync/wallclockcheck.h"

#include <QtTest>

using namespace syncline::sync;

namespace {

// One host of one process: wall − corrected = offset, bound at the anchor, anchor spread.
WallHost host(int64_t offset, int64_t bound, int64_t spread = 0)
{
    WallHost h;
    h.readings.push_back({offset, bound, spread});
    return h;
}

} // namespace

class TstWallClockCheck : public QObject
{
    Q_OBJECT
private slots:
    void exactClocksAgree();
    void hostOffByMillisecondsIsOutside();
    void edgeOfTheBand();
    void spreadWidensTheBand();
    void noSamplesNoBand();
    void noAnchor();
    void processesOfOneHostDisagree();
    void twoHostsDisagreeNoConsensus();
    void oneHostAlone();
    void constantShiftChangesNothing();
};

void TstWallClockCheck::exactClocksAgree()
{
    // Three hosts whose wall clocks are exact: offsets within their bounds of one K (here 0).
    const WallCheckResult r =
        checkWallClocks({host(3'000, 20'000), host(-12'000, 15'000), host(500, 40'000)});
    QVERIFY(r.hasConsensus);
    QVERIFY(r.agree);
    for (const WallHostVerdict &v : r.hosts) {
        QCOMPARE(v.verdict, WallVerdict::Consistent);
        QVERIFY2(std::abs(v.offsetNs) <= v.bandNs, v.reason.c_str());
        QVERIFY(v.reason.find("within its sync band") != std::string::npos);
    }
    // K lies in every interval: [-17000, 3000] ∩ [-17000, 23000] ∩ [-39500, 40500].
    QVERIFY(r.consensusNs >= -17'000 && r.consensusNs <= 3'000);
    QCOMPARE(wallVerdictName(r.hosts[0].verdict), "consistent");
}

void TstWallClockCheck::hostOffByMillisecondsIsOutside()
{
    // Host 2's wall clock is 3 ms ahead; its band is 50 µs: outside, the others consistent.
    const WallCheckResult r = checkWallClocks(
        {host(1'000, 30'000), host(-2'000, 30'000), host(3'000'000, 50'000), host(0, 30'000)});
    QVERIFY(r.hasConsensus);
    QVERIFY(!r.agree);
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
    QCOMPARE(r.hosts[1].verdict, WallVerdict::Consistent);
    QCOMPARE(r.hosts[3].verdict, WallVerdict::Consistent);
    const WallHostVerdict &off = r.hosts[2];
    QCOMPARE(off.verdict, WallVerdict::Outside);
    QVERIFY(off.offsetNs > 2'900'000 && off.offsetNs < 3'100'000);
    QCOMPARE(off.bandNs, int64_t(50'000));
    QVERIFY2(off.reason.find("outside its sync band") != std::string::npos, off.reason.c_str());
    QVERIFY2(off.reason.find("+3.0") != std::string::npos, off.reason.c_str());
    QCOMPARE(wallVerdictName(off.verdict), "outside");
}

void TstWallClockCheck::edgeOfTheBand()
{
    // Intervals [−10, 10] and [10, 30] touch at 10: closed intervals, so both are consistent;
    // one ns further apart, they do not meet and neither has a majority.
    WallCheckResult r = checkWallClocks({host(0, 10), host(20, 10)});
    QVERIFY(r.hasConsensus);
    QCOMPARE(r.consensusNs, int64_t(10));
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
    QCOMPARE(r.hosts[1].verdict, WallVerdict::Consistent);
    r = checkWallClocks({host(0, 10), host(21, 10)});
    QVERIFY(!r.hasConsensus);
    QCOMPARE(r.hosts[0].verdict, WallVerdict::NoConsensus);
    QCOMPARE(r.hosts[1].verdict, WallVerdict::NoConsensus);
    // With a third host at 0 the majority is {0, 0}: the one at 21 is 1 ns past its band.
    r = checkWallClocks({host(0, 10), host(21, 10), host(0, 10)});
    QVERIFY(r.hasConsensus);
    QCOMPARE(r.hosts[1].verdict, WallVerdict::Outside);
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
}

void TstWallClockCheck::spreadWidensTheBand()
{
    // The anchor's read spread adds to the bound: 25 off with bound 10 is outside, with
    // spread 20 inside.
    WallCheckResult r = checkWallClocks({host(0, 10), host(0, 10), host(25, 10)});
    QCOMPARE(r.hosts[2].verdict, WallVerdict::Outside);
    r = checkWallClocks({host(0, 10), host(0, 10), host(25, 10, 20)});
    QCOMPARE(r.hosts[2].verdict, WallVerdict::Consistent);
    QCOMPARE(r.hosts[2].bandNs, int64_t(30));
}

void TstWallClockCheck::noSamplesNoBand()
{
    // A host without sync samples has no bound at its anchor: no band, the verdict says why,
    // and the job's wall clocks cannot be said to agree.
    WallHost none = host(7'000'000, 0);
    none.noBandWhy = "not corrected: no sync samples";
    const WallCheckResult r = checkWallClocks({host(0, 20'000), host(1'000, 20'000), none});
    QCOMPARE(r.hosts[2].verdict, WallVerdict::NoBand);
    QCOMPARE(r.hosts[2].bandNs, int64_t(0));
    QCOMPARE(r.hosts[2].offsetNs, int64_t(0));
    QVERIFY2(r.hosts[2].reason.find("no sync band") != std::string::npos &&
                 r.hosts[2].reason.find("no sync samples") != std::string::npos,
             r.hosts[2].reason.c_str());
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
    QVERIFY(!r.agree);
    QCOMPARE(wallVerdictName(r.hosts[2].verdict), "no_band");
    // Nothing has a band: no consensus, nothing agrees.
    const WallCheckResult n = checkWallClocks({none, none});
    QVERIFY(!n.hasConsensus);
    QVERIFY(!n.agree);
    QCOMPARE(n.hosts[0].verdict, WallVerdict::NoBand);
}

void TstWallClockCheck::noAnchor()
{
    const WallCheckResult r = checkWallClocks({WallHost(), host(0, 100), host(50, 100)});
    QCOMPARE(r.hosts[0].verdict, WallVerdict::NoAnchor);
    QVERIFY(r.hosts[0].reason.find("no wall-clock anchor") != std::string::npos);
    QCOMPARE(r.hosts[1].verdict, WallVerdict::Consistent);
    QVERIFY(!r.agree);
    QVERIFY(checkWallClocks({}).hosts.empty());
    QVERIFY(!checkWallClocks({}).agree);
}

void TstWallClockCheck::processesOfOneHostDisagree()
{
    // Two processes of one host whose anchors are 1 ms apart with 10 µs bounds: the wall clock
    // stepped between their starts; that host is outside whatever the others say.
    WallHost stepped;
    stepped.readings = {{0, 10'000, 0}, {1'000'000, 10'000, 0}};
    WallHost fine;
    fine.readings = {{100, 10'000, 0}, {-300, 12'000, 50}};
    const WallCheckResult r = checkWallClocks({fine, stepped, host(0, 10'000)});
    QVERIFY(r.hasConsensus);
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
    // fine's interval: [-9900, 10100] ∩ [-12350, 11750] → half-width 10000.
    QCOMPARE(r.hosts[0].bandNs, int64_t(10'000));
    QCOMPARE(r.hosts[1].verdict, WallVerdict::Outside);
    QVERIFY2(r.hosts[1].reason.find("disagree by 980.0 µs") != std::string::npos,
             r.hosts[1].reason.c_str());
}

void TstWallClockCheck::twoHostsDisagreeNoConsensus()
{
    // Two hosts 3 ms apart: either could be right, so neither is trusted.
    const WallCheckResult r = checkWallClocks({host(0, 50'000), host(3'000'000, 50'000)});
    QVERIFY(!r.hasConsensus);
    QVERIFY(!r.agree);
    for (const WallHostVerdict &v : r.hosts) {
        QCOMPARE(v.verdict, WallVerdict::NoConsensus);
        QVERIFY2(v.reason.find("no majority") != std::string::npos, v.reason.c_str());
    }
    // Two disjoint regions shared by equal majorities ([0,10]∪… a wide host spanning both):
    // ambiguous, so no consensus either.
    const WallCheckResult t =
        checkWallClocks({host(500, 500), host(0, 10), host(1'000, 10)});
    QVERIFY(!t.hasConsensus);
}

void TstWallClockCheck::oneHostAlone()
{
    const WallCheckResult r = checkWallClocks({host(123'456, 5'000)});
    QVERIFY(r.hasConsensus);
    QCOMPARE(r.hosts[0].verdict, WallVerdict::Consistent);
    QCOMPARE(r.hosts[0].offsetNs, int64_t(0));
    QVERIFY(r.hosts[0].reason.find("only host") != std::string::npos);
    QVERIFY(!r.agree); // nothing was compared
}

void TstWallClockCheck::constantShiftChangesNothing()
{
    // The scale of d is the caller's: an epoch-sized shift of every reading moves K by it.
    const int64_t epoch = 1'764'438'000'123'456'789;
    const std::vector<int64_t> offsets = {1'000, -2'000, 3'000'000, 0};
    std::vector<WallHost> a, b;
    for (int64_t o : offsets) {
        a.push_back(host(o, 30'000, 40));
        b.push_back(host(o + epoch, 30'000, 40));
    }
    const WallCheckResult ra = checkWallClocks(a), rb = checkWallClocks(b);
    QCOMPARE(rb.consensusNs - ra.consensusNs, epoch);
    for (size_t i = 0; i < offsets.size(); ++i) {
        QCOMPARE(ra.hosts[i].verdict, rb.hosts[i].verdict);
        QCOMPARE(ra.hosts[i].offsetNs, rb.hosts[i].offsetNs);
        QCOMPARE(ra.hosts[i].bandNs, rb.hosts[i].bandNs);
        QCOMPARE(rb.hosts[i].wallNs - ra.hosts[i].wallNs, epoch);
    }
}

QTEST_APPLESS_MAIN(TstWallClockCheck)
#include "tst_wallclockcheck.moc"
