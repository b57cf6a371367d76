// Tests the TimelineView widget's input handling offscreen: wheel zoom at the cursor, drag pan,
// ruler range selection, group collapse by clicking its header, double-click zoom, the hover
// tooltip, that repaints replay the cached geometry, and that rows fitted below the text's height
// still show their labels (in the smaller font the image export uses), and that a click picks the
// event drawn under the pointer at every zoom.
#include "testjob.h"

#include "ui/colourscheme.h"
#include "ui/timelinescene.h"
#include "ui/timelineview.h"
#include "ui/viewstyle.h"
#include "ui/wheelzoom.h"

#include <QApplication>
#include <QHelpEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QToolTip>
#include <QWheelEvent>
#include <QtTest>

#include <limits>

using namespace syncline;
using namespace syncline::ui;

class TstTimelineView : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void wheelZoomsAtCursor();
    void dragPans();
    void rulerDragSelectsRange();
    void headerClickCollapses();
    void doubleClickZoomsToEvent();
    void tooltipDescribesEvent();
    void repaintReplaysCachedGeometry();
    void fittedRowsKeepTheirLabels();
    void rowsRefitAfterFilterCollapseResize();
    void clickPicksTheEventDrawnUnderIt();

private:
    QPoint eventPoint(int row, int64_t t) const;
    TimelineView *m_view = nullptr;
    std::shared_ptr<TimelineScene> m_scene;
};

void TstTimelineView::init()
{
    m_view = new TimelineView;
    m_view->resize(TimelineView::kDefaultGutterWidth + 1000, 400);
    m_scene = std::make_shared<TimelineScene>(testjob::makeSmallJob());
    m_view->setScene(m_scene);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
    // Trace 500..20000 ns; make the pixel maths simple: 0..20000 over 1000 px is not allowed
    // (before the trace), so use the trace bounds and compute through xOf().
    QCOMPARE(m_view->eventArea().width(), 1000);
}

void TstTimelineView::cleanup()
{
    delete m_view;
    m_view = nullptr;
}

QPoint TstTimelineView::eventPoint(int row, int64_t t) const
{
    const LayoutRow &r = m_scene->layout().rows()[size_t(row)];
    const QRect area = m_view->eventArea();
    const double x = m_view->zoomControl()->xOf(t, area.width());
    return QPoint(area.left() + int(std::lround(x)),
                  area.top() + int(r.y + r.height / 2) - m_view->verticalScrollBar()->value());
}

void TstTimelineView::wheelZoomsAtCursor()
{
    ZoomControl *z = m_view->zoomControl();
    const int64_t before = z->rangeDuration();
    const QPointF pos(m_view->eventArea().left() + 250.0, 100);
    const int64_t tAt = z->timeAt(250, 1000);
    QWheelEvent wheel(pos, m_view->viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 240),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QSignalSpy frames(z, &ZoomControl::rangeChanged);
    QApplication::sendEvent(m_view->viewport(), &wheel);
    QVERIFY(z->rangeDuration() < before); // the notch answers at once ...
    const double want = double(before) / std::pow(1.0016, 240);
    QVERIFY(double(z->rangeDuration()) > want * 1.05); // ... with a share of the zoom
    QVERIFY(std::abs(z->xOf(tAt, 1000) - 250.0) <= 1.0);
    QTRY_VERIFY(!m_view->wheelZoom()->animating()); // ... and glides to the rest
    QVERIFY(frames.count() >= 4);
    QVERIFY(std::abs(double(z->rangeDuration()) - want) <= want * 1e-6 + 8);
    QVERIFY(std::abs(z->xOf(tAt, 1000) - 250.0) <= 1.0);
    // A key lands a gliding wheel where it was going before it moves the view itself.
    const int64_t before2 = z->rangeDuration();
    QApplication::sendEvent(m_view->viewport(), &wheel);
    QVERIFY(m_view->wheelZoom()->animating());
    m_view->wheelZoom()->stop();
    QVERIFY(!m_view->wheelZoom()->animating());
    QVERIFY(std::abs(double(z->rangeDuration()) - double(before2) / std::pow(1.0016, 240)) <=
            double(before2) * 1e-6 + 8);
    // A range set elsewhere (the overview, fit) ends the glide there.
    QApplication::sendEvent(m_view->viewport(), &wheel);
    QVERIFY(m_view->wheelZoom()->animating());
    z->setRange(5000, 10000);
    QVERIFY(!m_view->wheelZoom()->animating());
    QTest::qWait(100);
    QCOMPARE(z->rangeStart(), 5000);
    QCOMPARE(z->rangeDuration(), 5000);
}

void TstTimelineView::dragPans()
{
    ZoomControl *z = m_view->zoomControl();
    z->setRange(5000, 10000); // 5 ns per px
    const QPoint from(m_view->eventArea().left() + 500, 200);
    QTest::mousePress(m_view->viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(m_view->viewport(), from + QPoint(100, 0));
    QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, {}, from + QPoint(100, 0));
    QCOMPARE(z->rangeStart(), int64_t(4500));
    QCOMPARE(z->rangeEnd(), int64_t(9500));
}

void TstTimelineView::rulerDragSelectsRange()
{
    ZoomControl *z = m_view->zoomControl();
    QSignalSpy spy(z, &ZoomControl::selectionChanged);
    QVERIFY(spy.isValid());
    const int left = m_view->eventArea().left();
    QTest::mousePress(m_view->viewport(), Qt::LeftButton, {}, QPoint(left + 100, 10));
    QTest::mouseMove(m_view->viewport(), QPoint(left + 300, 10));
    QTest::mouseRelease(m_view->viewport(), Qt::LeftButton, {}, QPoint(left + 300, 10));
    QVERIFY(z->hasSelection());
    QCOMPARE(z->selectionStart(), z->timeAt(100, 1000));
    QCOMPARE(z->selectionEnd(), z->timeAt(300, 1000));
    QTest::keyClick(m_view, Qt::Key_Escape);
    QVERIFY(!z->hasSelection());
}

void TstTimelineView::headerClickCollapses()
{
    const size_t rowsBefore = m_scene->layout().rows().size();
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {},
                      QPoint(40, TimelineView::kRulerHeight + 8));
    QVERIFY(m_scene->isCollapsed(0));
    QVERIFY(m_scene->layout().rows().size() < rowsBefore);
    QTest::mouseClick(m_view->viewport(), Qt::LeftButton, {},
                      QPoint(40, TimelineView::kRulerHeight + 8));
    QVERIFY(!m_scene->isCollapsed(0));
}

void TstTimelineView::doubleClickZoomsToEvent()
{
    // matmul (w0/main depth 2, row 3) spans 1500..2500 ns.
    const QPoint p = eventPoint(3, 2000);
    QCOMPARE(m_view->eventAt(p).index, 2);
    QTest::mouseDClick(m_view->viewport(), Qt::LeftButton, {}, p);
    QCOMPARE(m_view->zoomControl()->rangeStart(), int64_t(1400));
    QCOMPARE(m_view->zoomControl()->rangeEnd(), int64_t(2600));
    QCOMPARE(m_scene->selected().index, 2);
}

void TstTimelineView::tooltipDescribesEvent()
{
    const QPoint p = eventPoint(6, 15000); // w1: allreduce, open, corrected by -500 ns
    QHelpEvent help(QEvent::ToolTip, p, m_view->viewport()->mapToGlobal(p));
    QApplication::sendEvent(m_view->viewport(), &help);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("allreduce")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("rank 1 · host-b · restart 0")));
    QVERIFY(text.contains(QStringLiteral("open")));
    QVERIFY(text.contains(QStringLiteral("-500 ns applied")));
    QVERIFY(text.contains(QStringLiteral("10.9 µs"))); // duration 9100..20000
}

void TstTimelineView::repaintReplaysCachedGeometry()
{
    m_view->viewport()->repaint();
    const int computes = m_view->geometryCache().computeCount();
    QVERIFY(computes >= 1);
    // Moving the cursor repaints (cursor line) without recomputing the geometry.
    QTest::mouseMove(m_view->viewport(), QPoint(m_view->eventArea().left() + 400, 120));
    m_view->viewport()->repaint();
    QTest::mouseMove(m_view->viewport(), QPoint(m_view->eventArea().left() + 420, 130));
    m_view->viewport()->repaint();
    QCOMPARE(m_view->geometryCache().computeCount(), computes);
    m_view->zoomControl()->zoomAt(2.0, 5000);
    m_view->viewport()->repaint();
    QCOMPARE(m_view->geometryCache().computeCount(), computes + 1);
}

// Twelve workers in a 300 px view: fitRowsToHeight shrinks the rows below the label font's
// height; each wide event must still carry its name (the viewer skipped every label that did
// not fit before, while the image export shrank the font).
void TstTimelineView::fittedRowsKeepTheirLabels()
{
    TimelineView view;
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 300);
    auto scene = std::make_shared<TimelineScene>(testjob::makeDenseJob(12, 6, 1'000'000));
    view.setScene(scene);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitRowsToHeight();
    const double rowH = scene->layout().metrics().rowHeight;
    QVERIFY2(rowH < QFontMetricsF(ViewStyle::light().eventFont).height(),
             qPrintable(QString::number(rowH)));
    const QImage img = view.viewport()->grab().toImage();
    // The first worker's first root ("step", 1 ms of the ~2 ms job: half the width): the pixels
    // along its row's middle show more than its fill colour and its edge when it has a label.
    const LayoutRow *row = nullptr;
    for (const LayoutRow &r : scene->layout().rows())
        if (r.kind == LayoutRow::EventRow) {
            row = &r;
            break;
        }
    QVERIFY(row);
    const QRect area = view.eventArea();
    const double x0 = view.zoomControl()->xOf(1000, area.width());
    const double x1 = view.zoomControl()->xOf(1000 + 1'000'000 - 2, area.width());
    QVERIFY(x1 - x0 > 200);
    const double dpr = img.devicePixelRatio();
    QSet<QRgb> colours;
    for (int y = int(row->y + 1); y < int(row->y + row->height - 1); ++y)
        for (int x = area.left() + int(x0) + 4; x < area.left() + int(x1) - 4; ++x)
            colours.insert(img.pixel(int(x * dpr), int((area.top() + y) * dpr)));
    QVERIFY2(colours.size() > 6, qPrintable(QStringLiteral("%1 colours").arg(colours.size())));
}

// Rows follow what is shown: shrunk to fit twelve workers, back to full height when a rank
// filter, collapsed groups (clicked headers) or a taller window let them fit, shrunk again when
// they do not — never left shrunk over a mostly blank area.
void TstTimelineView::rowsRefitAfterFilterCollapseResize()
{
    TimelineView view;
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 300);
    auto scene = std::make_shared<TimelineScene>(testjob::makeDenseJob(12, 6, 1'000'000));
    view.setScene(scene);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const RowMetrics def;
    auto rowHeight = [&] { return scene->layout().metrics().rowHeight; };
    // The rows use the area: full height, or as much of the area as the shrink limit allows.
    auto usesTheArea = [&] {
        const double avail = view.eventArea().height() - 4;
        const double full = scene->layout().heightWith(def);
        const double total = scene->layout().totalHeight();
        return full <= avail ? rowHeight() == def.rowHeight
                             : total >= std::min(avail, full) * 0.9 - 1 ||
                                   rowHeight() <= def.rowHeight * TimelineView::kMinRowScale + 1;
    };
    QVERIFY(rowHeight() < def.rowHeight); // fitted when the scene was set
    QVERIFY(usesTheArea());
    // A rank filter (what the find bar's rank range does) leaves one worker: full rows.
    scene->setRankFilter(3, 3);
    view.sceneChanged();
    QCOMPARE(rowHeight(), def.rowHeight);
    scene->setRankFilter(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    view.sceneChanged();
    QVERIFY(rowHeight() < def.rowHeight);
    // Collapse every group by clicking its header in the label column: the headers fit at full
    // height.
    for (int w = 0; w < 12; ++w) {
        const int r = scene->layout().headerOf(w);
        QVERIFY(r >= 0);
        const LayoutRow row = scene->layout().rows()[size_t(r)];
        view.revealRow(r);
        const int y = int(row.y + row.height / 2) - view.verticalScrollBar()->value() +
                      TimelineView::kRulerHeight;
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(20, y));
        QVERIFY2(scene->isCollapsed(w), qPrintable(QString::number(w)));
    }
    QCOMPARE(scene->layout().metrics().headerHeight, def.headerHeight);
    QVERIFY(usesTheArea());
    scene->setAllCollapsed(false);
    view.sceneChanged();
    QVERIFY(rowHeight() < def.rowHeight);
    // A resize: taller fits everything at full height, smaller shrinks again.
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 2000);
    QTRY_COMPARE(rowHeight(), def.rowHeight);
    QVERIFY(usesTheArea());
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 400);
    QTRY_VERIFY(rowHeight() < def.rowHeight);
    QVERIFY(usesTheArea());
}

QTEST_MAIN(TstTimelineView)
namespace {

// Every pixel column of every event row of `view` at its current range: where an event is drawn
// on its own (a rectangle of the geometry the view paints), eventAt picks an event of that
// rectangle's colour whose span (by the view's TimeScale) covers the column; wherever eventAt
// picks one, its rectangle is drawn within the 1 px tolerance. Every `clickEvery`th column is
// also clicked for real: the click selects what eventAt picks. Returns the columns checked
// on drawn rectangles.
int checkHits(TimelineView &view, TimelineScene &scene, int clickEvery)
{
    const QRect area = view.eventArea();
    const GeometryRequest req = view.currentRequest();
    const TimelineGeometry g = computeGeometry(scene, req); // what paintEvent draws
    const TimeScale scale = req.scale();
    int drawnColumns = 0;
    for (const LayoutRow &r : scene.layout().rows()) {
        if (r.kind != LayoutRow::EventRow || r.y + r.height <= req.top ||
            r.y >= req.top + req.height)
            continue;
        const double yLocal = r.y - req.top + r.height / 2;
        const int y = int(view.viewportY(r.y + r.height / 2));
        for (int c = 0; c < area.width(); ++c) {
            int drawnColour = -1;
            for (const ColourBatch &b : g.batches)
                for (const QRectF &rect : b.rects)
                    if (rect.top() <= yLocal && yLocal < rect.bottom() && rect.left() <= c &&
                        c + 1 <= rect.right())
                        drawnColour = b.colourIndex;
            const QPoint pos(area.left() + c, y);
            const EventRef hit = view.eventAt(pos);
            if (drawnColour >= 0) {
                ++drawnColumns;
                if (!hit.valid())
                    return -1;
            }
            if (!hit.valid())
                continue;
            const TrackModel &m = scene.model(hit.model);
            const int colour = scene.colours().colourIndex(m.nameId(hit.index));
            const double x0 = scale.x(m.startTime(hit.index, scene.clockMode()));
            const double x1 =
                TimeScale::visibleEnd(x0, scale.x(m.endTime(hit.index, scene.clockMode())));
            if (hit.model != r.model || m.depth(hit.index) != r.depth || x0 > c + 1 + 1e-9 ||
                x1 < c - 1 - 1e-9)
                return -2; // not on this row, or not within 1 px of the pointer
            if (drawnColour >= 0 && drawnColour != colour)
                return -3; // a different event than the one drawn there
            // Its rectangle (or, folded, the block holding it) is drawn within the tolerance (and
            // the 1 px gap a rectangle leaves on its right).
            auto near = [&](const QRectF &rect) {
                return rect.top() <= yLocal && yLocal < rect.bottom() && rect.left() <= c + 1 &&
                       c - 2 <= rect.right();
            };
            bool drawnNear = false;
            for (const ColourBatch &b : g.batches)
                for (const QRectF &rect : b.rects)
                    drawnNear = drawnNear || (b.colourIndex == colour && near(rect));
            for (const FoldBlock &f : g.folds)
                drawnNear = drawnNear || near(f.rect);
            if (!drawnNear)
                return -4;
            if (c > 3 && c % clickEvery == 0) { // (within 3 px of the labels: a resize)
                QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, pos);
                if (!(scene.selected() == hit))
                    return -5;
            }
        }
    }
    return drawnColumns;
}

} // namespace

// At several zooms — the whole job, a few µs, the narrowest range (100 ns: 10 px per ns) — on
// the small job and on a dense one (folded at the whole job), the event a click picks is the one
// drawn under the pointer (checkHits).
void TstTimelineView::clickPicksTheEventDrawnUnderIt()
{
    ZoomControl *z = m_view->zoomControl();
    const std::pair<int64_t, int64_t> small[] = {
        {z->traceStart(), z->traceEnd()}, {1400, 3900}, {1450, 1550}, {7990, 8090}, {9531, 9631}};
    for (const auto &[s, e] : small) {
        z->setRange(s, e);
        const int n = checkHits(*m_view, *m_scene, 37);
        QVERIFY2(n > 100, qPrintable(QStringLiteral("range %1..%2: %3").arg(s).arg(e).arg(n)));
    }
    TimelineView view;
    view.resize(TimelineView::kDefaultGutterWidth + 1000, 500);
    auto dense = std::make_shared<TimelineScene>(testjob::makeDenseJob(4, 3000, 1000));
    view.setScene(dense);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ZoomControl *dz = view.zoomControl();
    const int64_t b = dz->traceStart();
    for (const auto &[s, e] : {std::pair<int64_t, int64_t>{b, dz->traceEnd()}, // folded
                               {b + 20'000, b + 60'000},
                               {b + 123'457, b + 126'457},
                               {b + 500'950, b + 501'050}}) {
        dz->setRange(s, e);
        const int n = checkHits(view, *dense, 53);
        QVERIFY2(s == b ? n >= 0 : n > 100,
                 qPrintable(QStringLiteral("range %1..%2: %3").arg(s - b).arg(e - b).arg(n)));
    }
}

#include "tst_timelineview.moc"
