// Tests TrackModel (the per-thread timeline model) and RowLayout on a known in-memory job.
#include "../timeline/testlogs.h"
#include "testjob.h"
#include "timeline/load/jobloader.h"
#include "timeline/live/livejob.h"

#include "ui/rowlayout.h"
#include "ui/timelinegeometry.h"
#include "ui/timelinescene.h"
#include "ui/trackmodel.h"

#include <QtTest>

#include <set>

#include <fstream>
#include <random>

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
    void liveSceneMatchesFreshScene();
    void coloursByKindAndCategory();
    void prominentNamesGetDistinctColours();
    void loaderFillsKinds();
};

void TstTrackModel::basics()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 0, 0);
    QCOMPARE(m.count(), 6);
    QCOMPARE(m.startTime(2, ClockMode::Corrected), int64_t(1500));
    QCOMPARE(m.endTime(2, ClockMode::Corrected), int64_t(2500));
    QCOMPARE(m.duration(0, ClockMode::Corrected), int64_t(8000));
    QCOMPARE(m.depth(0), 0);
    QCOMPARE(m.depth(2), 2);
    QCOMPARE(m.parentIndex(2), 1);
    QCOMPARE(m.parentIndex(4), -1);
    QCOMPARE(job->names.name(m.nameId(3)), std::string_view("backward"));
    QCOMPARE(m.depthCount(), 3);
    QCOMPARE(m.globalBegin(ClockMode::Corrected), int64_t(1000));
    QCOMPARE(m.globalEnd(ClockMode::Corrected), int64_t(20000));
}

void TstTrackModel::globalTimesFollowClockMode()
{
    auto job = testjob::makeSmallJob();
    TrackModel m(job.get(), 1, 0);
    QCOMPARE(m.startTime(0, ClockMode::Corrected), int64_t(1000)); // corrected: local - 500
    QCOMPARE(m.endTime(1, ClockMode::Corrected), int64_t(20000));
    QCOMPARE(m.startTime(0, ClockMode::Raw), int64_t(1500));
    QCOMPARE(m.endTime(1, ClockMode::Raw), int64_t(20500));
    QCOMPARE(m.firstIndex(9550, ClockMode::Raw), 1); // raw: step ends 9500 < 9550
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
    QCOMPARE(m.firstIndex(t, ClockMode::Corrected), expected);
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
    QCOMPARE(m.lastIndex(t, ClockMode::Corrected), expected);
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
    const EventDetails d = w1.details(1, ClockMode::Corrected);
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
    QCOMPARE(m.firstIndex(0, ClockMode::Corrected), -1);
    QCOMPARE(m.lastIndex(100, ClockMode::Corrected), -1);
    QCOMPARE(m.globalEnd(ClockMode::Corrected), int64_t(0));
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

namespace {

void appendText(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::app) << text;
}

// A job written in random chunks: nested B/E, instants, X intervals written after their
// children (a suffix merge), a thread appearing late and a second worker appearing mid-way.
std::string liveLog(int rank, std::mt19937 &rng)
{
    std::string text = testlogs::header(rank);
    int64_t ts = 2000;
    for (int step = 0; step < 160; ++step) {
        const int tid = 1 + (step < 60 ? step % 2 : step % 3);
        const int64_t s0 = ts;
        text += testlogs::begin(ts, tid, "step");
        text += testlogs::begin(ts += 10, tid, step % 5 ? "fwd" : "fwd_" + std::to_string(step));
        if (step % 3 == 0) {
            text += testlogs::begin(ts += 3, tid, "kernel");
            text += testlogs::end(ts += 4, tid, "kernel");
        }
        text += testlogs::end(ts += 40, tid, step % 5 ? "fwd" : "fwd_" + std::to_string(step));
        if (step % 4 == 0)
            text += testlogs::complete(s0 + 12, 20, tid, "late_x");
        text += testlogs::end(ts += 10, tid, "step");
        ts += 5 + int64_t(rng() % 20);
    }
    return text;
}

void compareScenes(const TimelineScene &live, const TimelineScene &fresh)
{
    QCOMPARE(live.models().size(), fresh.models().size());
    QCOMPARE(live.beginNs(), fresh.beginNs());
    QCOMPARE(live.endNs(), fresh.endNs());
    for (size_t m = 0; m < fresh.models().size(); ++m) {
        const TrackModel &a = live.models()[m], &b = fresh.models()[m];
        QCOMPARE(a.worker(), b.worker());
        QCOMPARE(a.trackIndex(), b.trackIndex());
        QCOMPARE(a.count(), b.count());
        QCOMPARE(a.depthCount(), b.depthCount());
        for (int d = 0; d < b.depthCount(); ++d) {
            QCOMPARE(a.depthRow(d), b.depthRow(d));
            const auto &row = b.depthRow(d);
            for (size_t p = 0; p < row.size(); p += 5) { // the bucket starts, through the seek
                const int64_t t = a.track().localStart[row[p]];
                QCOMPARE(a.rowSeekStart(d, 0, t), b.rowSeekStart(d, 0, t));
                QCOMPARE(a.rowSeekStart(d, p / 2, t + 1), b.rowSeekStart(d, p / 2, t + 1));
            }
        }
    }
    const auto &ra = live.layout().rows(), &rb = fresh.layout().rows();
    QCOMPARE(ra.size(), rb.size());
    for (size_t r = 0; r < rb.size(); ++r) {
        QCOMPARE(ra[r].model, rb[r].model);
        QCOMPARE(ra[r].depth, rb[r].depth);
        QCOMPARE(ra[r].y, rb[r].y);
    }
    for (uint32_t n = 0; n < fresh.timeline().names.size(); ++n)
        QCOMPARE(live.displayName(n), fresh.displayName(n));
}

} // namespace

// TimelineScene::applyLive after each LiveJob commit gives the same models, rows and bounds as
// a scene built from scratch on the same Timeline, while indexing only what changed.
void TstTrackModel::liveSceneMatchesFreshScene()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    std::mt19937 rng(11);
    const std::string text0 = liveLog(0, rng), text1 = liveLog(1, rng);
    testlogs::write(d + "/w.0.log", "");
    LiveOptions o;
    o.path = d;
    LiveJob job(o);
    std::unique_ptr<TimelineScene> scene;
    size_t p0 = 0, p1 = 0;
    int polls = 0;
    while (p0 < text0.size() || p1 < text1.size()) {
        const size_t n0 = std::min(text0.size() - p0, size_t(1 + rng() % 900));
        appendText(d + "/w.0.log", text0.substr(p0, n0));
        p0 += n0;
        if (p0 > text0.size() / 3) { // rank 1 appears a third of the way in
            const size_t n1 = std::min(text1.size() - p1, size_t(1 + rng() % 900));
            appendText(d + "/w.1.log", text1.substr(p1, n1));
            p1 += n1;
        }
        const LiveUpdate u = job.poll();
        if (!scene) {
            if (job.workerCount() > 0)
                scene = std::make_unique<TimelineScene>(job.timeline());
            continue;
        }
        if (polls == 3)
            scene->setSearch(QStringLiteral("fwd_"), false);
        scene->applyLive(u);
        ++polls;
        const TimelineScene fresh(job.timeline());
        compareScenes(*scene, fresh);
        if (QTest::currentTestFailed())
            QFAIL(("after poll " + std::to_string(polls)).c_str());
        if (polls > 3) { // names that appeared later are searched too
            int matching = 0;
            for (uint32_t n = 0; n < fresh.timeline().names.size(); ++n)
                matching += fresh.displayName(n).startsWith(QStringLiteral("fwd_"));
            QCOMPARE(scene->matchingNameCount(), matching);
        }
    }
    QVERIFY(polls > 40);
    QCOMPARE(job.workerCount(), size_t(2));
    const uint64_t events = job.timeline()->eventCount();
    // Each event indexed about once (plus the re-nested suffixes of late X intervals), not once
    // per poll as a rebuild per update would.
    QVERIFY2(
        scene->indexedEvents() < 2 * events,
        qPrintable(
            QStringLiteral("%1 indexed for %2 events").arg(scene->indexedEvents()).arg(events)));
}

// More names than palette colours: the names with the most total time claim colours first, so
// the most time-consuming ones never share one (whatever their hashes).
void TstTrackModel::prominentNamesGetDistinctColours()
{
    auto t = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "host-a");
    EventTrack tr;
    tr.tid = 1;
    const int names = 3 * ColourScheme::paletteSize();
    int64_t at = 0;
    for (int i = 0; i < names; ++i) {
        // name i lasts (names - i) µs: name 0 takes the most time.
        const std::string n = "kernel_" + std::to_string(i);
        testjob::addEvent(*t, tr, n.c_str(), at, at + int64_t(names - i) * 1000, -1);
        at += int64_t(names - i) * 1000 + 10;
    }
    w.tracks.push_back(std::move(tr));
    t->workers.push_back(std::move(w));
    t->updateRange();
    TimelineScene scene(t);
    std::set<int> used;
    for (int i = 0; i < ColourScheme::paletteSize(); ++i)
        used.insert(scene.colours().colourIndex(t->names.find("kernel_" + std::to_string(i))));
    QCOMPARE(int(used.size()), ColourScheme::paletteSize());
}

void TstTrackModel::coloursByKindAndCategory()
{
    auto t = std::make_shared<Timeline>();
    Worker w = testjob::makeWorker(0, "host-a");
    EventTrack tr;
    tr.tid = 1;
    testjob::addEvent(*t, tr, "step", 0, 100, -1);
    testjob::addEvent(*t, tr, "all_reduce", 0, 10, 0);
    testjob::addEvent(*t, tr, "broadcast", 20, 30, 0);
    testjob::addEvent(*t, tr, "forward", 40, 50, 0);
    w.tracks.push_back(std::move(tr));
    t->workers.push_back(std::move(w));
    t->updateRange();
    const uint32_t step = t->names.intern("step"), ar = t->names.intern("all_reduce"),
                   bc = t->names.intern("broadcast"), fw = t->names.intern("forward");
    t->kinds.resize(t->names.size());
    t->kinds[step] = {"phase", 0x123456, true};
    t->kinds[ar].category = "collective";
    t->kinds[bc].category = "collective";
    TimelineScene scene(t);
    const ColourScheme &c = scene.colours();
    // An explicit colour wins in both modes; names are coloured per name by default.
    QCOMPARE(c.nameColour(step, false).rgb(), QColor(0x12, 0x34, 0x56).rgb());
    QVERIFY(c.colourIndex(ar) != c.colourIndex(bc));
    QCOMPARE(scene.legendEntries({step, ar, bc, fw}), (std::vector<uint32_t>{step, ar, bc, fw}));
    const uint64_t rev = scene.revision();
    scene.setColourByCategory(true);
    QVERIFY(scene.revision() > rev);
    // Category mode groups, even over a kind's own colour (else it changes nothing when every
    // kind has a colour): step takes its category "phase"'s palette colour.
    QVERIFY(c.nameColour(step, false).rgb() != QColor(0x12, 0x34, 0x56).rgb());
    QVERIFY(c.colourIndex(step) < ColourScheme::paletteSize());
    QCOMPARE(c.categoryOf(step), std::string("phase"));
    QVERIFY(c.colourIndex(step) != c.colourIndex(ar)); // each category its own colour
    QCOMPARE(c.colourIndex(ar), ColourScheme::hashIndex("collective"));
    QCOMPARE(c.colourIndex(bc), c.colourIndex(ar));
    QVERIFY(c.colourIndex(fw) != c.colourIndex(ar)); // the category's colour is taken
    QVERIFY(c.colourIndex(fw) < ColourScheme::paletteSize());
    QCOMPARE(c.categoryOf(bc), std::string("collective"));
    QCOMPARE(scene.legendEntries({step, ar, bc, fw}), (std::vector<uint32_t>{step, ar, fw}));
    QCOMPARE(scene.legendLabel(ar), QStringLiteral("collective"));
    QCOMPARE(scene.legendLabel(step), QStringLiteral("phase"));
    QCOMPARE(scene.legendLabel(fw), QStringLiteral("forward"));
    // The geometry batches by colour index, explicit colours included.
    GeometryRequest req;
    req.rangeStart = 0;
    req.rangeEnd = 100;
    req.width = 1000;
    req.height = 500;
    const TimelineGeometry g = computeGeometry(scene, req);
    bool custom = false;
    for (const ColourBatch &b : g.batches)
        custom = custom || b.colourIndex == c.colourIndex(step);
    QVERIFY(custom);
    scene.setColourByCategory(false);
    QVERIFY(c.colourIndex(ar) != c.colourIndex(bc) || c.categoryOf(ar).empty());
    QCOMPARE(c.categoryOf(ar), std::string());
}

// The loader (and LiveJob) fill Timeline::kinds from the config's event_kinds.
void TstTrackModel::loaderFillsKinds()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    std::ofstream(d + "/timer_config.json")
        << R"({"event_kinds":[{"name":"fwd","category":"compute","color":"#ff8000"},)"
        << R"({"glob":"all_*","category":"collective"}]})";
    testlogs::write(d + "/w.0.log",
                    testlogs::header(0) + testlogs::begin(1000, 1, "fwd") +
                        testlogs::end(2000, 1, "fwd") + testlogs::begin(3000, 1, "all_gather") +
                        testlogs::end(4000, 1, "all_gather") + testlogs::begin(5000, 1, "other") +
                        testlogs::end(6000, 1, "other"));
    LoadOptions lo;
    lo.paths = {d};
    const LoadResult full = JobLoader::load(lo);
    QVERIFY2(full.timeline, full.fatalError.c_str());
    LiveOptions o;
    o.path = d;
    LiveJob live(o);
    live.poll();
    for (const Timeline *t : {full.timeline.get(), live.timeline().get()}) {
        QCOMPARE(t->kinds.size(), t->names.size());
        const NameKind *fwd = t->kindOf(t->names.find("fwd"));
        QVERIFY(fwd);
        QCOMPARE(fwd->category, std::string("compute"));
        QVERIFY(fwd->hasColour);
        QCOMPARE(fwd->rgb, uint32_t(0xff8000));
        QCOMPARE(t->kindOf(t->names.find("all_gather"))->category, std::string("collective"));
        QVERIFY(!t->kindOf(t->names.find("all_gather"))->hasColour);
        QCOMPARE(t->kindOf(t->names.find("other"))->category, std::string());
    }
}

QTEST_APPLESS_MAIN(TstTrackModel)
#include "tst_trackmodel.moc"
