// TimelineView: its scene and state, the layout of its areas (pinned band, scrolled rows), the
// requests it draws and hit-tests with, painting, and revealing events and rows. Input is in
// timelineviewinput.cpp.
#include "timelineview.h"

#include "keymotion.h"
#include "selectionmeasure.h"
#include "timelinepainter.h"
#include "wheelzoom.h"

#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

TimelineView::TimelineView(QWidget *parent)
    : QAbstractScrollArea(parent), m_zoom(new ZoomControl(this)),
      m_style(ViewStyle::fromPalette(palette()))
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFrameShape(QFrame::NoFrame);
    connect(m_zoom, &ZoomControl::rangeChanged, viewport(), qOverload<>(&QWidget::update));
    // The cursor stays at its pixel while the range moves under it (wheel, keys): its time
    // changes, so it is reported again.
    connect(m_zoom, &ZoomControl::rangeChanged, this, [this] {
        if (m_scene && m_cursorX >= 0)
            emit cursorTimeChanged(timeAtX(m_cursorX), true);
    });
    connect(m_zoom, &ZoomControl::selectionChanged, viewport(), qOverload<>(&QWidget::update));
    m_keys = new KeyMotion(
        m_zoom,
        [this] {
            return m_cursorX >= 0 ? timeAtX(m_cursorX)
                                  : m_zoom->rangeStart() + m_zoom->rangeDuration() / 2;
        },
        this);
    m_wheel = new WheelZoom(m_zoom, this);
}

void TimelineView::setScene(std::shared_ptr<TimelineScene> scene)
{
    m_scene = std::move(scene);
    m_cache.invalidate();
    if (m_scene)
        m_zoom->setTrace(m_scene->beginNs(), m_scene->endNs());
    m_zoom->clearSelection();
    verticalScrollBar()->setValue(0);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setPlaceholder(const QString &text)
{
    m_placeholder = text;
    viewport()->update();
}

QString TimelineView::placeholderText() const
{
    return !m_placeholder.isEmpty() ? m_placeholder
                                    : tr("Open a job directory, config, logs or Chrome traces\n"
                                         "(File ▸ Open, or drop them here)");
}

void TimelineView::setWallClock(bool on)
{
    m_wallClock = on;
    viewport()->update();
}

void TimelineView::setGutterWidth(int px)
{
    px = std::clamp(px, kMinGutterWidth, std::max(kMinGutterWidth, viewport()->width() / 2));
    if (px == m_gutterWidth)
        return;
    m_gutterWidth = px;
    updateScrollBars();
    viewport()->update();
    emit gutterWidthChanged(px);
}

void TimelineView::fitRowsToHeight()
{
    refitRows();
    sceneChanged();
}

// The rows' heights for what the layout shows now: the defaults when they fit the event area,
// else shrunk (down to kMinRowScale) so that they fit; the layout is rebuilt only when the
// metrics change. Called on every scene change (filter, collapse, expand, hide, live rows) and
// resize, so rows never stay shrunk once they fit again.
void TimelineView::refitRows()
{
    if (!m_scene)
        return;
    const RowMetrics def;
    const double total = m_scene->layout().heightWith(def);
    const double avail = eventArea().height() - 4;
    RowMetrics m = def;
    if (total > avail && total > 0) {
        const double k = std::max(avail / total, kMinRowScale);
        m.headerHeight = std::floor(def.headerHeight * k);
        m.rowHeight = std::floor(def.rowHeight * k);
        m.trackGap = std::max(1.0, std::floor(def.trackGap * k));
        m.counterHeight = std::floor(def.counterHeight * k);
    }
    const RowMetrics &cur = m_scene->layout().metrics();
    if (m.headerHeight != cur.headerHeight || m.rowHeight != cur.rowHeight ||
        m.trackGap != cur.trackGap || m.counterHeight != cur.counterHeight)
        m_scene->setRowMetrics(m);
}

void TimelineView::setViewStyle(const ViewStyle &style)
{
    m_style = style;
    viewport()->update();
}

QRect TimelineView::eventArea() const
{
    const QRect vp = viewport()->rect();
    return QRect(m_gutterWidth, kRulerHeight, std::max(1, vp.width() - m_gutterWidth),
                 std::max(1, vp.height() - kRulerHeight));
}

double TimelineView::pinnedPx() const
{
    if (!m_scene)
        return 0;
    return std::min(m_scene->layout().pinnedHeight(), std::floor(eventArea().height() * 0.6));
}

// The scrolled rows: content [P + scroll, scroll + area height) under the pinned band [0, P).
// A content y in the scrolled part is therefore (viewport y − ruler) + scroll, as without pins.
GeometryRequest TimelineView::currentRequest() const
{
    const QRect area = eventArea();
    const double pinned = pinnedPx();
    GeometryRequest r;
    r.rangeStart = m_zoom->rangeStart();
    r.rangeEnd = m_zoom->rangeEnd();
    r.width = area.width();
    r.height = std::max(1.0, area.height() - pinned);
    r.top = pinned + verticalScrollBar()->value();
    return r;
}

GeometryRequest TimelineView::pinnedRequest() const
{
    GeometryRequest r = currentRequest();
    r.top = 0;
    r.height = std::max(1.0, pinnedPx());
    return r;
}

double TimelineView::contentY(double viewportY) const
{
    const double y = viewportY - kRulerHeight;
    return y < pinnedPx() ? y : y + verticalScrollBar()->value();
}

double TimelineView::viewportY(double contentY) const
{
    return (contentY < pinnedPx() ? contentY : contentY - verticalScrollBar()->value()) +
           kRulerHeight;
}

std::pair<GeometryRequest, QPointF> TimelineView::requestAt(QPoint pos) const
{
    const QRect area = eventArea();
    const double pinned = pinnedPx();
    if (pinned > 0 && pos.y() - area.top() < pinned)
        return {pinnedRequest(), QPointF(pos - area.topLeft())};
    return {currentRequest(), QPointF(pos.x() - area.left(), pos.y() - area.top() - pinned)};
}

TimeScale TimelineView::scale() const
{
    return m_zoom->scale(eventArea().width());
}

int64_t TimelineView::timeAtX(double eventX) const
{
    return scale().timeAt(eventX);
}

EventRef TimelineView::eventAt(QPoint pos) const
{
    const QRect area = eventArea();
    if (!m_scene || !area.contains(pos))
        return {};
    const auto [request, local] = requestAt(pos);
    return hitTest(*m_scene, request, local);
}

void TimelineView::sceneChanged()
{
    refitRows();
    if (m_scene) {
        const int64_t width = m_zoom->rangeDuration();
        const int64_t start = m_zoom->rangeStart();
        const bool changedBounds =
            m_scene->beginNs() != m_zoom->traceStart() || m_scene->endNs() != m_zoom->traceEnd();
        if (changedBounds) {
            QSignalBlocker block(m_zoom);
            m_zoom->setTrace(m_scene->beginNs(), m_scene->endNs());
            m_zoom->setRange(start, start + width); // keep the view in place (clamped)
        }
    }
    updateScrollBars();
    viewport()->update();
}

void TimelineView::updateScrollBars()
{
    const double total = m_scene ? m_scene->layout().totalHeight() : 0;
    const int page = eventArea().height();
    verticalScrollBar()->setPageStep(page);
    verticalScrollBar()->setSingleStep(20);
    verticalScrollBar()->setRange(0, std::max(0, int(std::ceil(total)) - page + 20));
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    const QRect vp = viewport()->rect();
    p.fillRect(vp, m_style.background);
    if (!m_scene) {
        p.setPen(m_style.mutedText);
        p.drawText(vp, Qt::AlignCenter, placeholderText());
        return;
    }
    const QRect area = eventArea();
    FrameRects rects;
    rects.events = area;
    rects.ruler = QRectF(area.left(), 0, area.width(), kRulerHeight);
    rects.gutter = QRectF(0, kRulerHeight, m_gutterWidth, area.height());
    FrameOptions options;
    options.wallClock = m_wallClock;
    options.cursorX = m_cursorX;
    options.selectionStart = m_zoom->selectionStart();
    options.selectionEnd = m_zoom->selectionEnd();
    if (options.selectionEnd > options.selectionStart) // the measure: events begun in it
        options.selectionEvents = SelectionMeasure::eventsBetween(
            *m_scene, options.selectionStart, options.selectionEnd, m_boxModels);
    // Rows fitted below the text's height (fitRowsToHeight) get the smaller label fonts.
    const ViewStyle style = m_style.fittedToRows(m_scene->layout().metrics().rowHeight);
    const double pinned = pinnedPx();
    if (pinned > 0) { // the scrolled rows under the pinned band
        rects.events = QRectF(area).adjusted(0, pinned, 0, 0);
        rects.gutter = QRectF(0, kRulerHeight + pinned, m_gutterWidth, area.height() - pinned);
    }
    TimelinePainter::paintFrame(p, rects, *m_scene, m_cache.get(*m_scene, currentRequest()),
                                style, options);
    if (pinned > 0) { // pinned workers: fixed above the scroll area, a line under them
        rects.events = QRectF(area.left(), area.top(), area.width(), pinned);
        rects.gutter = QRectF(0, kRulerHeight, m_gutterWidth, pinned);
        TimelinePainter::paintFrame(p, rects, *m_scene, m_pinCache.get(*m_scene, pinnedRequest()),
                                    style, options);
        p.fillRect(QRectF(0, kRulerHeight + pinned - 1, vp.width(), 2), m_style.mutedText);
    }
    paintBox(p);
    p.fillRect(QRect(0, 0, m_gutterWidth, kRulerHeight), m_style.ruler);
    p.setPen(m_style.mutedText);
    p.setFont(m_style.smallFont);
    p.drawText(QRect(6, 0, m_gutterWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
               m_scene->clockMode() == ClockMode::Raw ? tr("raw clocks") : tr("corrected clocks"));
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    refitRows();
    updateScrollBars();
}

void TimelineView::scrollContentsBy(int, int)
{
    viewport()->update();
}

void TimelineView::revealPoint(int model, qint64 t)
{
    if (!m_scene || model < 0 || model >= int(m_scene->models().size()))
        return;
    const int64_t w = m_zoom->rangeDuration();
    m_zoom->setRange(t - w / 2, t - w / 2 + w);
    const int worker = int(m_scene->model(model).worker());
    if (m_scene->isCollapsed(worker)) {
        m_scene->setCollapsed(worker, false);
        sceneChanged();
    }
    revealRow(m_scene->layout().rowOf(model, 0));
}

void TimelineView::selectEvent(const EventRef &ref, bool reveal)
{
    if (!m_scene)
        return;
    m_scene->setSelected(ref);
    if (reveal && ref.valid())
        revealEvent(ref);
    viewport()->update();
    emit eventSelected(ref);
}

void TimelineView::zoomToEvent(const EventRef &ref)
{
    if (!m_scene || !ref.valid())
        return;
    const TrackModel &m = m_scene->model(ref.model);
    const int64_t s = m.startTime(ref.index, m_scene->clockMode());
    const int64_t e = std::max(m.endTime(ref.index, m_scene->clockMode()), s + 1);
    const int64_t margin = std::max<int64_t>((e - s) / 10, 10);
    m_zoom->setRange(s - margin, e + margin);
    revealEvent(ref);
}

// Reveal: the event must be drawn on its own — at least kRevealPx wide (so never inside a fold,
// which only takes events under kFoldPx) — and inside the view with a margin; zooms in only
// when needed and keeps the zoom otherwise.
void TimelineView::revealEvent(const EventRef &ref)
{
    const TrackModel &m = m_scene->model(ref.model);
    const int64_t s = m.startTime(ref.index, m_scene->clockMode());
    const int64_t e = std::max(m.endTime(ref.index, m_scene->clockMode()), s + 1);
    int64_t w = m_zoom->rangeDuration();
    const bool instant = m.flags(ref.index) & EventInstant;
    if (!instant && scale().px(double(e - s)) < kRevealPx) // the range where it is kRevealPx wide
        w = std::max<int64_t>(TimeScale(s, e, kRevealPx).ns(eventArea().width()), 10);
    const int64_t margin = w / 10;
    const bool visible =
        s >= m_zoom->rangeStart() && std::min(e, s + w) <= m_zoom->rangeEnd(); // at this zoom
    if (w != m_zoom->rangeDuration() || !visible) {
        const int64_t start = e - s < w - 2 * margin ? s + (e - s) / 2 - w / 2 : s - margin;
        m_zoom->setRange(start, start + w);
    }
    if (m_scene->isCollapsed(int(m.worker()))) {
        m_scene->setCollapsed(int(m.worker()), false);
        sceneChanged();
    }
    revealRow(m_scene->layout().rowOf(ref.model, m.depth(ref.index)));
}

void TimelineView::revealRow(int row)
{
    if (!m_scene || row < 0 || size_t(row) >= m_scene->layout().rows().size())
        return;
    sceneChanged(); // the layout may have changed (expanded group)
    const LayoutRow &r = m_scene->layout().rows()[size_t(row)];
    const double pinned = pinnedPx();
    if (r.y + r.height <= pinned)
        return; // pinned: always on screen
    const GeometryRequest req = currentRequest();
    if (r.y < req.top || r.y + r.height > req.top + req.height)
        verticalScrollBar()->setValue(int(r.y - pinned - req.height / 3));
}

} // namespace syncline::ui
