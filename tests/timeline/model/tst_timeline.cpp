// Timeline (model/): the range rule in both clock modes, queries that take the mode they are
// asked in, and the live range. Built by hand: no loader, the model stands on its own.
#include "timeline/model/timeline.h"

#include <QtTest>

#include <limits>

using namespace syncline;

namespace {

// Two workers: rank 0 raw = corrected; rank 1's raw map is 1000 ns late (offset −1000 when
// corrected, so its corrected times are 1000 ns earlier than raw).
Timeline twoWorkers()
{
    Timeline tl;
    for (int r = 0; r < 2; ++r) {
        Worker w;
        w.info.rank = r;
        EventTrack t;
        // Sorted by start; the longest end is not the last event's.
        t.localStart = {100, 150, 400};
        t.localEnd = {900, 200, 500};
        t.nameId = {0, 0, 0};
        t.flags = {0, 0, 0};
        t.parent = {-1, 0, -1};
        t.depth = {0, 1, 0};
        w.tracks.push_back(t);
        w.raw = sync::ClockMap::offset(10'000);
        w.corrected = sync::ClockMap::offset(r == 1 ? 9'000 : 10'000);
        tl.workers.push_back(std::move(w));
    }
    tl.updateRange();
    return tl;
}

} // namespace

class TstTimeline : public QObject
{
    Q_OBJECT
private slots:
    void rangePerMode()
    {
        const Timeline tl = twoWorkers();
        const TimeRange &c = tl.range(ClockMode::Corrected);
        QCOMPARE(c.begin, int64_t(9'100)); // rank 1's first start, corrected
        QCOMPARE(c.origin, c.begin);
        QCOMPARE(c.end, int64_t(10'900)); // rank 0's longest end (not its last event's)
        const TimeRange &r = tl.range(ClockMode::Raw);
        QCOMPARE(r.begin, int64_t(10'100));
        QCOMPARE(r.end, int64_t(10'900));
        QCOMPARE(r.duration(), int64_t(800));
        QCOMPARE(tl.originNs(ClockMode::Raw), int64_t(10'100));
    }
    void queriesTakeTheMode()
    {
        const Timeline tl = twoWorkers();
        QCOMPARE(tl.startNs(1, 0, 2, ClockMode::Corrected), int64_t(9'400));
        QCOMPARE(tl.startNs(1, 0, 2, ClockMode::Raw), int64_t(10'400));
        QCOMPARE(tl.endNs(1, 0, 0, ClockMode::Raw), int64_t(10'900));
        QCOMPARE(&tl.map(1, ClockMode::Raw), &tl.workers[1].raw);
        QCOMPARE(&tl.map(1, ClockMode::Corrected), &tl.workers[1].corrected);
        QCOMPARE(tl.toGlobal(0, 5, ClockMode::Corrected), int64_t(10'005));
    }
    void emptyTimeline()
    {
        Timeline tl;
        tl.updateRange();
        QCOMPARE(tl.range(ClockMode::Corrected).begin, int64_t(0));
        QCOMPARE(tl.range(ClockMode::Corrected).end, int64_t(0));
        QCOMPARE(tl.earliestStart(ClockMode::Raw), std::numeric_limits<int64_t>::max());
    }
    void liveRangeEndsNow()
    {
        Timeline tl = twoWorkers();
        tl.setLiveRange(ClockMode::Corrected, 20'000);
        QCOMPARE(tl.range(ClockMode::Corrected).begin, int64_t(9'100));
        QCOMPARE(tl.range(ClockMode::Corrected).end, int64_t(20'000));
        QCOMPARE(tl.range(ClockMode::Raw).end, int64_t(10'900)); // the other mode untouched
        tl.setLiveRange(ClockMode::Raw, 5); // "now" before every event: an empty range at now
        QCOMPARE(tl.range(ClockMode::Raw).begin, int64_t(5));
        QCOMPARE(tl.range(ClockMode::Raw).end, int64_t(5));
    }
};

QTEST_APPLESS_MAIN(TstTimeline)
#include "tst_timeline.moc"
