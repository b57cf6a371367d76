// Links and collective instances through the real widgets (offscreen): message pairs loaded
// from real syncline logs become arrows drawn between their tracks at the expected pixels (and
// vanish with View ▸ Links off); Chrome flows become links along their steps; the details panel
// lists an event's links and a click jumps to the other end; selecting a collective instance
// outlines it on every rank and reports its spread; many links stay bounded by pixels.
#include "testjob.h"

#include "tests/timeline/testlogs.h"
#include "timeline/load/jobloader.h"
#include "ui/collectivespread.h"
#include "ui/detailspanel.h"
#include "ui/linkpainter.h"
#include "ui/mainmenus.h"
#include "ui/mainwindow.h"
#include "ui/timelinegeometry.h"
#include "ui/timelineview.h"

#include <QAction>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>

#include <cmath>

using namespace syncline;
using namespace syncline::ui;

class TstLinks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void loaderKeepsMessagePairsOnTheirThreads();
    void chromeFlowStepsBecomeLinks();
    void arrowIsDrawnBetweenTheExpectedPoints();
    void detailsListLinksAndJumpToTheOtherEnd();
    void collectiveSpreadNamesTheStraggler();
    void seqArgMakesACollectiveInstance();
    void manyLinksStayBoundedByPixels();

private:
    std::shared_ptr<Timeline> loadPair();
    QTemporaryDir m_dir;
};

namespace {

constexpr int64_t kWall = 1700000000000000000LL;

// Clicks the anchor whose href is `href` in a text browser, as a user would.
bool clickAnchor(QTextBrowser *b, const QString &href)
{
    for (QTextBlock blk = b->document()->begin(); blk.isValid(); blk = blk.next())
        for (auto it = blk.begin(); !it.atEnd(); ++it) {
            const QTextFragment f = it.fragment();
            if (!f.isValid() || f.charFormat().anchorHref() != href)
                continue;
            QTextCursor c(b->document());
            c.setPosition(f.position() + 1);
            const QRect r = b->cursorRect(c);
            b->ensureCursorVisible();
            QTest::mouseClick(b->viewport(), Qt::LeftButton, {}, r.center());
            return true;
        }
    return false;
}

} // namespace

void TstLinks::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_links"));
    QVERIFY(m_dir.isValid());
}

// Two real logs: rank 0 sends "m1" from inside `send` on tid 7 (its second thread by tid: tid 3
// sorts first), rank 1 receives it inside `recv` on tid 9.
std::shared_ptr<Timeline> TstLinks::loadPair()
{
    const std::string d = m_dir.path().toStdString();
    testlogs::write(d + "/timer_events.0.log",
                    testlogs::header(0, 0, "host-a", 1000, kWall) +
                        testlogs::begin(2000, 7, "step") + testlogs::begin(3000, 7, "send") +
                        "{\"t\":\"msg\",\"ts\":3500,\"tid\":7,\"dir\":\"send\",\"peer\":1,"
                        "\"id\":\"m1\"}\n" +
                        testlogs::end(4000, 7, "send") + testlogs::complete(1000, 500, 3, "load") +
                        testlogs::end(9000, 7, "step"));
    testlogs::write(d + "/timer_events.1.log",
                    testlogs::header(1, 0, "host-b", 1000, kWall, "boot-b") +
                        testlogs::begin(2000, 9, "step") + testlogs::begin(3000, 9, "recv") +
                        "{\"t\":\"msg\",\"ts\":5000,\"tid\":9,\"dir\":\"recv\",\"peer\":0,"
                        "\"id\":\"m1\"}\n" +
                        testlogs::end(5200, 9, "recv") + testlogs::end(9000, 9, "step") +
                        // an unmatched send: no link
                        "{\"t\":\"msg\",\"ts\":6000,\"tid\":9,\"dir\":\"send\",\"peer\":0,"
                        "\"id\":\"lonely\"}\n");
    LoadOptions o;
    o.paths = {d + "/timer_events.0.log", d + "/timer_events.1.log"};
    LoadResult r = JobLoader::load(o);
    return r.timeline;
}

void TstLinks::loaderKeepsMessagePairsOnTheirThreads()
{
    const auto tl = loadPair();
    QVERIFY(tl);
    QCOMPARE(tl->workers.size(), size_t(2));
    QCOMPARE(tl->workers[0].tracks.size(), size_t(2));
    QCOMPARE(tl->workers[0].tracks[1].tid, int64_t(7));
    QCOMPARE(tl->links.size(), size_t(1));
    const MessageLink &l = tl->links[0];
    QCOMPARE(l.fromWorker, 0u);
    QCOMPARE(l.fromTrack, 1u); // tid 7, after tid 3 (the parser saw tid 7 first)
    QCOMPARE(l.fromLocal, int64_t(3500));
    QCOMPARE(l.toWorker, 1u);
    QCOMPARE(uint32_t(l.toTrack), 0u);
    QCOMPARE(l.toLocal, int64_t(5000));
    QCOMPARE(int(l.kind), int(MessageLink::Message));
    // Without correction the same links are kept (the viewer draws them either way).
    LoadOptions o;
    o.paths = {m_dir.path().toStdString() + "/timer_events.0.log",
               m_dir.path().toStdString() + "/timer_events.1.log"};
    o.correctClocks = false;
    QCOMPARE(JobLoader::load(o).timeline->links.size(), size_t(1));
}

// s → t → f of one flow id: two links along its steps, on the tracks of their tids.
void TstLinks::chromeFlowStepsBecomeLinks()
{
    const std::string path = m_dir.path().toStdString() + "/flows.json";
    testlogs::write(
        path, "{\"traceEvents\":["
              "{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
              "{\"ph\":\"X\",\"name\":\"queue\",\"pid\":1,\"tid\":2,\"ts\":18,\"dur\":4},"
              "{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":1,\"tid\":3,\"ts\":28,\"dur\":9},"
              "{\"ph\":\"s\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":12,\"name\":\"f\",\"cat\":\"c\"},"
              "{\"ph\":\"t\",\"id\":5,\"pid\":1,\"tid\":2,\"ts\":20,\"name\":\"f\",\"cat\":\"c\"},"
              "{\"ph\":\"f\",\"bp\":\"e\",\"id\":5,\"pid\":1,\"tid\":3,\"ts\":30,\"name\":\"f\","
              "\"cat\":\"c\"}]}\n");
    LoadOptions o;
    o.paths = {path};
    const LoadResult r = JobLoader::load(o);
    QVERIFY2(r.timeline, r.fatalError.c_str());
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.links.size(), size_t(2));
    auto tidOf = [&](uint32_t w, uint32_t t) { return tl.workers[w].tracks[t].tid; };
    // Sorted by track pair: tid 1 → 2 first, then 2 → 3.
    QCOMPARE(tidOf(tl.links[0].fromWorker, tl.links[0].fromTrack), int64_t(1));
    QCOMPARE(tidOf(tl.links[0].toWorker, tl.links[0].toTrack), int64_t(2));
    QCOMPARE(tl.links[0].toLocal - tl.links[0].fromLocal, int64_t(8000));
    QCOMPARE(tidOf(tl.links[1].fromWorker, tl.links[1].fromTrack), int64_t(2));
    QCOMPARE(tidOf(tl.links[1].toWorker, tl.links[1].toTrack), int64_t(3));
    QCOMPARE(int(tl.links[1].kind), int(MessageLink::Flow));
}

// The arrow runs from the send's time on rank 0's `send` row to the receive's time on rank 1's
// `recv` row: pixels change there when links are on, and nowhere off the line.
void TstLinks::arrowIsDrawnBetweenTheExpectedPoints()
{
    const auto tl = loadPair();
    QVERIFY(tl);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(tl, {QStringLiteral("pair")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    const ClockMode mode = scene->clockMode();
    const int64_t g0 = tl->toGlobal(0, 2000, mode), g1 = tl->toGlobal(0, 9000, mode);
    view->zoomControl()->setRange(g0, g1);
    QAction *links = w.menus()->linksAction();
    QVERIFY(links->isChecked());
    // Expected endpoints (viewport px).
    const QRect area = view->eventArea();
    const double pxPerNs = double(area.width()) / double(g1 - g0);
    const RowLayout &layout = scene->layout();
    auto rowMid = [&](int model, int depth) {
        const LayoutRow &r = layout.rows()[size_t(layout.rowOf(model, depth))];
        return area.top() + r.y - view->verticalScrollBar()->value() + r.height / 2;
    };
    const int sendModel = scene->modelsOf(0).first + 1, recvModel = scene->modelsOf(1).first;
    const QPointF from(area.left() + double(tl->toGlobal(0, 3500, mode) - g0) * pxPerNs,
                       rowMid(sendModel, 1));
    const QPointF to(area.left() + double(tl->toGlobal(1, 5000, mode) - g0) * pxPerNs,
                     rowMid(recvModel, 1));
    // Model level: one arrow, at those points (event-area coordinates).
    const TimelineGeometry g = computeGeometry(*scene, view->currentRequest());
    QCOMPARE(g.links.arrows.size(), size_t(1));
    QVERIFY(std::abs(g.links.arrows[0].from.x() + area.left() - from.x()) < 0.5);
    QVERIFY(std::abs(g.links.arrows[0].from.y() + area.top() - from.y()) < 0.5);
    QVERIFY(std::abs(g.links.arrows[0].to.x() + area.left() - to.x()) < 0.5);
    QVERIFY(std::abs(g.links.arrows[0].to.y() + area.top() - to.y()) < 0.5);
    QCOMPARE(g.links.arrows[0].count, int64_t(1));
    // Pixels: on vs off.
    auto grab = [&] {
        view->viewport()->repaint();
        return view->viewport()->grab().toImage();
    };
    const QImage on = grab();
    links->trigger();
    QVERIFY(!links->isChecked());
    const QImage off = grab();
    const double dpr = on.devicePixelRatio();
    auto differs = [&](QPointF p) {
        const QPoint q = (p * dpr).toPoint();
        return on.pixel(q) != off.pixel(q);
    };
    const QPointF d = to - from;
    const QPointF u = d / std::hypot(d.x(), d.y());
    QVERIFY2(differs(from + u * 2), "no arrow at the send");
    QVERIFY2(differs(to - u * 3), "no arrow head at the receive");
    QVERIFY(differs(from + d * 0.5));
    // Off the line (above the send, beside the receive): untouched.
    QVERIFY(!differs(from + QPointF(0, -8)));
    QVERIFY(!differs(to + QPointF(12, 0)));
    links->trigger();
    QVERIFY(links->isChecked());
}

void TstLinks::detailsListLinksAndJumpToTheOtherEnd()
{
    const auto tl = loadPair();
    QVERIFY(tl);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(tl, {QStringLiteral("pair")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    const int sendModel = scene->modelsOf(0).first + 1, recvModel = scene->modelsOf(1).first;
    // `send` is event 1 of its track (inside step 0); the message belongs to it, not to step.
    QCOMPARE(scene->displayName(scene->model(sendModel).nameId(1)), QStringLiteral("send"));
    std::vector<size_t> out, in;
    LinkPainter::linksOf(*scene, {sendModel, 0}, &out, &in, 10);
    QVERIFY(out.empty() && in.empty()); // step: the link lies inside its child
    view->selectEvent({sendModel, 1}, false);
    DetailsPanel *details = w.detailsPanel();
    const QString text = details->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Links")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("rank 1 · tid 9")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("arrives +1.50 µs")), qPrintable(text));
    // Click the link: the receive's innermost event (`recv`) is selected.
    QVERIFY(clickAnchor(details, QStringLiteral("link:0:to")));
    QTRY_COMPARE(scene->selected(), (EventRef{recvModel, 1}));
    QCOMPARE(scene->displayName(scene->model(recvModel).nameId(1)), QStringLiteral("recv"));
    // And from there back: it lists the incoming link.
    QVERIFY2(details->toPlainText().contains(QStringLiteral("← rank 0 · tid 7")),
             qPrintable(details->toPlainText()));
    QVERIFY(clickAnchor(details, QStringLiteral("link:0:from")));
    QTRY_COMPARE(scene->selected(), (EventRef{sendModel, 1}));
}

namespace {

// 4 ranks, 5 all_reduce instances each (a configured collective): instance k begins at
// 10 µs·k + 100 ns·rank, except rank 2's instance 3, 4 µs late; ends at 10 µs·k + 6 µs + 10 ns·rank.
// Rank 1 has a `step` before its first all_reduce (not a collective: k is counted per name).
std::shared_ptr<Timeline> collectiveJob()
{
    auto t = std::make_shared<Timeline>();
    for (int r = 0; r < 4; ++r) {
        Worker w = testjob::makeWorker(r, "host-" + std::to_string(r / 2));
        w.info.worldSize = 4;
        EventTrack tr;
        tr.tid = 50 + r;
        tr.threadName = "main";
        if (r == 1)
            testjob::addEvent(*t, tr, "step", 0, 50, -1);
        for (int k = 0; k < 5; ++k) {
            const int64_t b = 10000 * (k + 1) + (r == 2 && k == 3 ? 4000 : 100 * r);
            testjob::addEvent(*t, tr, "all_reduce", b, 10000 * (k + 1) + 6000 + 10 * r, -1);
        }
        w.tracks.push_back(std::move(tr));
        t->workers.push_back(std::move(w));
    }
    t->kinds.resize(t->names.size());
    t->kinds[t->names.intern("all_reduce")].collective = true;
    t->updateRange();
    return t;
}

} // namespace

void TstLinks::collectiveSpreadNamesTheStraggler()
{
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(collectiveJob(), {QStringLiteral("collectives")});
    TimelineView *view = w.view();
    TimelineScene *scene = view->scene();
    // Rank 1's 4th all_reduce is event 4 of its track (after `step`): instance 3.
    const EventRef sel{scene->modelsOf(1).first, 4};
    QVERIFY(CollectiveSpread::isInstance(*scene, sel));
    QVERIFY(!CollectiveSpread::isInstance(*scene, {scene->modelsOf(1).first, 0})); // step
    view->selectEvent(sel, false);
    const auto spread = CollectiveSpread::of(*scene, sel);
    QVERIFY(spread);
    QCOMPARE(spread->instance, int64_t(3));
    QCOMPARE(spread->members.size(), size_t(4));
    QCOMPARE(spread->beginSpreadNs(), int64_t(4000)); // rank 2 at 44 000 vs rank 0 at 40 000
    QCOMPARE(spread->members[size_t(spread->lastBegin)].rank, 2);
    QCOMPARE(spread->members[size_t(spread->firstBegin)].rank, 0);
    QCOMPARE(spread->endSpreadNs(), int64_t(30));
    QCOMPARE(spread->members[size_t(spread->lastEnd)].rank, 3);
    // Every rank's own 4th all_reduce is highlighted.
    const std::vector<EventRef> &hl = scene->highlighted();
    QCOMPARE(hl.size(), size_t(4));
    for (int r = 0; r < 4; ++r) {
        const EventRef &h = hl[size_t(r)];
        QCOMPARE(h.model, scene->modelsOf(r).first);
        QCOMPARE(h.index, r == 1 ? 4 : 3);
    }
    const TimelineGeometry g = computeGeometry(*scene, view->currentRequest());
    QCOMPARE(g.links.highlights.size(), size_t(4));
    const QString text = w.detailsPanel()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("all_reduce #3 on 4 ranks")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("begin spread 4.00 µs (rank 2 began last: everyone "
                                          "waited for rank 2")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("end spread 30 ns (rank 3 ended last, rank 0 first)")),
             qPrintable(text));
    // Selecting something else clears the highlight.
    view->selectEvent({scene->modelsOf(1).first, 0}, false);
    QVERIFY(scene->highlighted().empty());
}

// An event with a `seq` arg (syncline.torch) is an instance even without a configured category.
void TstLinks::seqArgMakesACollectiveInstance()
{
    auto t = std::make_shared<Timeline>();
    for (int r = 0; r < 2; ++r) {
        Worker w = testjob::makeWorker(r, "host-a");
        EventTrack tr;
        tr.tid = 1;
        for (int k = 0; k < 3; ++k) {
            testjob::addEvent(*t, tr, "barrier", 1000 * k + (r == 1 && k == 2 ? 300 : 0),
                              1000 * k + 500, -1);
            tr.flags.back() |= EventHasArgs;
            tr.argRefs.emplace_back(uint32_t(k), t->args.intern("{\"group\":\"world\",\"seq\":" +
                                                                std::to_string(k) + "}"));
        }
        w.tracks.push_back(std::move(tr));
        t->workers.push_back(std::move(w));
    }
    t->updateRange();
    TimelineScene scene(t);
    const auto s = CollectiveSpread::of(scene, {0, 2});
    QVERIFY(s);
    QCOMPARE(s->instance, int64_t(2));
    QCOMPARE(s->beginSpreadNs(), int64_t(300));
    QCOMPARE(s->members[size_t(s->lastBegin)].rank, 1);
    QCOMPARE(s->endSpreadNs(), int64_t(0));
}

// 20 000 messages between 12 ranks: at whole-job zoom the arrows stay under the cap and stand
// for the messages in their columns; zoomed in to a few per pair, each is its own arrow.
void TstLinks::manyLinksStayBoundedByPixels()
{
    auto job = testjob::makeDenseJob(12, 30000, 1000);
    const int64_t begin = job->range(ClockMode::Corrected).begin;
    const int64_t span = job->range(ClockMode::Corrected).duration();
    const int64_t n = 20000;
    std::vector<MessageLink> links;
    for (int64_t i = 0; i < n; ++i) {
        MessageLink l;
        l.fromWorker = uint32_t(i % 12);
        l.toWorker = uint32_t((i + 1) % 12);
        l.fromLocal = begin + span * i / n;
        l.toLocal = l.fromLocal + 3000;
        links.push_back(l);
    }
    job->links = LinkTable(std::move(links));
    TimelineScene scene(job);
    scene.setRowMetrics({8, 6, 1}); // every worker on screen
    QCOMPARE(scene.linkIndex().pairs().size(), size_t(12));
    LinkRequest whole{scene.beginNs(), scene.endNs(), 1600, 0, 1000};
    const LinkGeometry g = LinkPainter::compute(scene, whole);
    QVERIFY(!g.arrows.empty());
    QVERIFY(int(g.arrows.size()) <= LinkPainter::kMaxArrows);
    QVERIFY(g.thinned);
    QVERIFY(g.linksShown <= n);
    QVERIFY2(g.linksShown > n * 9 / 10, qPrintable(QString::number(g.linksShown)));
    // Zoomed to 30 µs: every link meeting the range drawn once, on its own.
    const int64_t mid = begin + span / 2;
    const LinkGeometry z = LinkPainter::compute(scene, {mid, mid + 30000, 1600, 0, 1000});
    int64_t meeting = 0;
    for (size_t i = 0; i < job->links.size(); ++i)
        meeting += scene.linkIndex().meets(i, mid, mid + 30000, ClockMode::Corrected);
    QCOMPARE(int64_t(z.arrows.size()), meeting);
    QVERIFY(!z.thinned);
}

QTEST_MAIN(TstLinks)
#include "tst_links.moc"
