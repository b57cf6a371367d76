// Tests TrackModel (the per-thread timeline model) and RowLayout on a known in-memory job.
#include "testjob.h"

#include "ui/rowlayout.h"
#include "ui/timelinescene.h"
#include "ui/trackmodel.h"

#include <QtTest>

using namespace syncline;
using namespace syncline::ui;

class TstTrackModel : public QObject
{
    Q_OBJECT
private slots:
    void basics();
    void globalTimesFollowClockMode();
    void firstIndex_data();
    void firstIndex();
    void lastIndex_data();
    void lastIndex();
    void depthRows();
    void rowSeekStartMatchesLinearSearch();
    void childrenAndDetails();
    void emptyTrack();
    void layoutRows();
    void layoutCollapseAndFilter();
    void sceneBoundsAndSearch();
    void coloursStableAndDistinct();
};

void TstTrackModel::basics()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.count(), 6);
    QCOMPARE(m.startTime(2), int64_t(1500));
    QCOMPARE(m.endTime(2), int64_t(2500));
    QCOMPARE(m.duration(0), int64_t(8000));
    QCOMPARE(m.depth(0), 0);
    QCOMPARE(m.depth(2), 2);
    QCOMPARE(m.parentIndex(2), 1);
    QCOMPARE(m.parentIndex(4), -1);
    QCOMPARE(job->names.name(m.nameId(3)), std::string_view("backward"));
    QCOMPARE(m.depthCount(), 3);
    QCOMPARE(m.globalBegin(), int64_t(1000));
    QCOMPARE(m.globalEnd(), int64_t(20000));
}

void TstTrackModel::globalTimesFollowClockMode()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 1, 0);
    QCOMPARE(m.startTime(0), int64_t(1000)); // corrected: local - 500
    QCOMPARE(m.endTime(1), int64_t(20000));
    m.setClockMode(ClockMode::Raw);
    QCOMPARE(m.startTime(0), int64_t(1500));
    QCOMPARE(m.endTime(1), int64_t(20500));
    QCOMPARE(m.firstIndex(9550), 1); // raw: step ends 9500 < 9550
}

void TstTrackModel::firstIndex_data()
{
    QTest::addColumn<int64_t>("t");
    QTest::addColumn<int>("expected");
    QTest::newRow("before all") << int64_t(0) << 0;
    QTest::newRow("at first start") << int64_t(1000) << 0;
    QTest::newRow("inside matmul") << int64_t(2000) << 0; // step 0 ends at 9000 >= t
    QTest::newRow("at step end") << int64_t(9000) << 0;   // end == t counts
    QTest::newRow("gap after step") << int64_t(9001) << 4;
    QTest::newRow("inside second forward") << int64_t(11000) << 4;
    QTest::newRow("at last end") << int64_t(20000) << 4;
    QTest::newRow("after all") << int64_t(20001) << -1;
}

void TstTrackModel::firstIndex()
{
    QFETCH(int64_t, t);
    QFETCH(int, expected);
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.firstIndex(t), expected);
}

void TstTrackModel::lastIndex_data()
{
    QTest::addColumn<int64_t>("t");
    QTest::addColumn<int>("expected");
    QTest::newRow("before all") << int64_t(999) << -1;
    QTest::newRow("at first start") << int64_t(1000) << 1; // step and forward both start at 1000
    QTest::newRow("matmul start") << int64_t(1500) << 2;
    QTest::newRow("between") << int64_t(4500) << 2;
    QTest::newRow("backward") << int64_t(5000) << 3;
    QTest::newRow("second step") << int64_t(10000) << 5;
    QTest::newRow("far after") << int64_t(1000000) << 5;
}

void TstTrackModel::lastIndex()
{
    QFETCH(int64_t, t);
    QFETCH(int, expected);
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.lastIndex(t), expected);
}

void TstTrackModel::depthRows()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.depthRow(0), (std::vector<uint32_t>{0, 4}));
    QCOMPARE(m.depthRow(1), (std::vector<uint32_t>{1, 3, 5}));
    QCOMPARE(m.depthRow(2), (std::vector<uint32_t>{2}));
    QCOMPARE(m.rowLowerBound(1, 4001), size_t(1)); // forward ended at 4000
    QCOMPARE(m.rowLowerBound(1, 4000), size_t(0));
    QCOMPARE(m.rowUpperBound(1, 4999), size_t(1));
    QCOMPARE(m.rowUpperBound(1, 5000), size_t(2));
    QCOMPARE(m.rowLowerBound(1, 30000), size_t(3));
}

void TstTrackModel::rowSeekStartMatchesLinearSearch()
{
    // 1000 roots of 100 ns (starts 1000, 1100, ...): several 64-event buckets per row.
    auto job = testjob::makeDenseJob(1, 3000, 100);
    TrackModel m(job.get(), 0, 0);
    const std::vector<uint32_t> &row = m.depthRow(0);
    QCOMPARE(row.size(), size_t(1000));
    const auto &st = job->workers[0].tracks[0].localStart;
    for (size_t from :
         {size_t(0), size_t(1), size_t(63), size_t(64), size_t(500), size_t(999), size_t(1000)}) {
        for (int64_t t : {int64_t(0), int64_t(1000), int64_t(1001), int64_t(7450), int64_t(51300),
                          int64_t(100900), int64_t(100901), int64_t(10000000)}) {
            size_t expected = from;
            while (expected < row.size() && st[row[expected]] < t)
                ++expected;
            QCOMPARE(m.rowSeekStart(0, from, t), expected);
        }
    }
}

void TstTrackModel::childrenAndDetails()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.children(0), (std::vector<int>{1, 3}));
    QCOMPARE(m.children(1), (std::vector<int>{2}));
    QCOMPARE(m.children(2), std::vector<int>{});
    TrackModel w1(job.get(), 1, 0);
    const EventDetails d = w1.details(1);
    QCOMPARE(d.name, std::string("allreduce"));
    QCOMPARE(d.rank, 1);
    QCOMPARE(d.tid, int64_t(200));
    QCOMPARE(d.threadName, std::string("main"));
    QCOMPARE(d.startNs, int64_t(9100));
    QCOMPARE(d.endNs, int64_t(20000));
    QCOMPARE(d.localStartNs, int64_t(9600));
    QCOMPARE(d.correctionNs, int64_t(-500)); // corrected (local - 500) minus raw (identity)
    QVERIFY(d.flags & EventOpen);
    QCOMPARE(d.workerLabel, std::string("rank 1 · host-b · restart 0"));
    QVERIFY(!d.rawClock);
}

void TstTrackModel::emptyTrack()
{
    Timeline t;
    Worker w;
    w.tracks.emplace_back();
    t.workers.push_back(w);
    TrackModel m(&t, 0, 0);
    QCOMPARE(m.count(), 0);
    QCOMPARE(m.depthCount(), 0);
    QCOMPARE(m.firstIndex(0), -1);
    QCOMPARE(m.lastIndex(100), -1);
    QCOMPARE(m.globalEnd(), int64_t(0));
}

void TstTrackModel::layoutRows()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    const auto &rows = scene.layout().rows();
    // header w0, main d0..d2, loader d0, header w1, main d0
    QCOMPARE(rows.size(), size_t(7));
    QCOMPARE(rows[0].kind, LayoutRow::GroupHeader);
    QCOMPARE(rows[1].model, 0);
    QCOMPARE(rows[3].depth, 2);
    QCOMPARE(rows[4].model, 1);
    QVERIFY(rows[4].firstOfTrack);
    QCOMPARE(rows[5].kind, LayoutRow::GroupHeader);
    QCOMPARE(rows[5].worker, 1);
    const RowMetrics m;
    QCOMPARE(rows[1].y, m.headerHeight);
    QCOMPARE(rows[4].y, m.headerHeight + 3 * m.rowHeight + m.trackGap);
    QCOMPARE(scene.layout().totalHeight(), 2 * m.headerHeight + 5 * m.rowHeight + 3 * m.trackGap);
    QCOMPARE(scene.layout().rowAt(rows[3].y + 1), 3);
    QCOMPARE(scene.layout().rowAt(rows[3].y + m.rowHeight + 1), -1); // the gap after a track
    QCOMPARE(scene.layout().rowAt(-1), -1);
    QCOMPARE(scene.layout().rowOf(2, 0), 6);
    const auto span = scene.layout().rowsIn(rows[2].y + 1, rows[4].y + 1);
    QCOMPARE(span.first, size_t(2));
    QCOMPARE(span.second, size_t(5));
}

void TstTrackModel::layoutCollapseAndFilter()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    const uint64_t rev = scene.revision();
    scene.setCollapsed(0, true);
    QVERIFY(scene.revision() > rev);
    QCOMPARE(scene.layout().rows().size(), size_t(3)); // header (collapsed), header, main
    QVERIFY(scene.layout().rows()[0].collapsed);
    QCOMPARE(scene.layout().rows()[0].model, 0);
    QCOMPARE(scene.layout().rowOf(0, 0), -1);
    scene.setCollapsed(0, false);
    scene.setRankFilter(1, 1);
    QCOMPARE(scene.layout().rows().size(), size_t(2));
    QCOMPARE(scene.layout().headerOf(0), -1);
    QCOMPARE(scene.layout().headerOf(1), 0);
}

void TstTrackModel::sceneBoundsAndSearch()
{
    auto job = testjob::makeSmallJob();
    TimelineScene scene(job);
    QCOMPARE(scene.beginNs(), int64_t(500));
    QCOMPARE(scene.endNs(), int64_t(20000));
    scene.setClockMode(ClockMode::Raw);
    QCOMPARE(scene.endNs(), int64_t(20500));
    scene.setClockMode(ClockMode::Corrected);
    QVERIFY(scene.setSearch(QStringLiteral("FORW"), false));
    QCOMPARE(scene.matchingNameCount(), 1);
    QVERIFY(!scene.setSearch(QStringLiteral("(unclosed"), true));
    QVERIFY(!scene.searchActive());
    QVERIFY(scene.setSearch(QStringLiteral("^(step|allreduce)$"), true));
    QCOMPARE(scene.matchingNameCount(), 2);
    // Stepping in time order: step@1000 (w0), step@1000 (w1: global 1000), step@10000...
    EventRef r = scene.nextMatch({}, true);
    QCOMPARE(r.model, 0);
    QCOMPARE(r.index, 0);
    r = scene.nextMatch(r, true);
    QCOMPARE(r.model, 2);
    QCOMPARE(r.index, 0);
    r = scene.nextMatch(r, true);
    QCOMPARE(r.model, 2); // allreduce at 9100
    QCOMPARE(r.index, 1);
    r = scene.nextMatch(r, true);
    QCOMPARE(r.model, 0); // step at 10000
    QCOMPARE(r.index, 4);
    QVERIFY(!scene.nextMatch(r, true).valid());
    r = scene.nextMatch(r, false);
    QCOMPARE(r.model, 2);
    QCOMPARE(r.index, 1);
}

void TstTrackModel::coloursStableAndDistinct()
{
    // Find a name whose hash slot collides with "all_reduce"'s; the later one in byte order
    // moves to the next free colour, whatever the order the names were seen in.
    std::string other;
    for (int i = 0; other.empty(); ++i) {
        const std::string candidate = "zz" + std::to_string(i);
        if (ColourScheme::hashIndex(candidate) == ColourScheme::hashIndex("all_reduce"))
            other = candidate;
    }
    QVERIFY(ColourScheme::hashIndex("all_reduce") < ColourScheme::paletteSize());
    ColourScheme a;
    a.assign({other, "all_reduce", "forward"});
    ColourScheme b;
    b.assign({"forward", "all_reduce", other});
    QCOMPARE(a.colourIndex(0), b.colourIndex(2));
    QCOMPARE(a.colourIndex(1), b.colourIndex(1));
    QCOMPARE(a.colourIndex(1), ColourScheme::hashIndex("all_reduce"));
    QCOMPARE(a.colourIndex(0), (ColourScheme::hashIndex(other) + 1) % ColourScheme::paletteSize());
    ColourScheme c;
    c.setCategory(QStringLiteral("all_"), 3);
    c.assign({"step", "all_reduce", "all_gather"});
    QCOMPARE(c.colourIndex(1), 3);
    QCOMPARE(c.colourIndex(2), 3);
}

QTEST_APPLESS_MAIN(TstTrackModel)
#include "tst_trackmodel.moc"
