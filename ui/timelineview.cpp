#include "timelineview.h"

#include "counterpainter.h"
#include "eventtext.h"
#include "keymotion.h"
#include "selectionmeasure.h"
#include "wheelzoom.h"
#include "timelinepainter.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

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

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPointF pos = event->position();
    const QPoint delta = event->angleDelta();
    const bool ctrl = event->modifiers() & Qt::ControlModifier;
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    if (!ctrl && (m_wheelZooms ? shift : !shift) ) { // scroll the workers
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y() / 2);
        if (!m_wheelZooms && delta.x() != 0)
            m_zoom->panFraction(-delta.x() / 1200.0);
        return;
    }
    if (pos.x() < m_gutterWidth) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y() / 2);
        return;
    }
    if (!m_wheelZooms && shift && !ctrl) { // Perfetto: Shift+wheel pans
        m_zoom->panFraction(-(delta.y() != 0 ? delta.y() : delta.x()) / 1200.0);
        return;
    }
    if (delta.x() != 0 && std::abs(delta.x()) > std::abs(delta.y())) {
        m_zoom->panFraction(-delta.x() / 1200.0);
        return;
    }
    const double factor = std::pow(1.0016, delta.y()); // 120 units ≈ 1.21×
    m_wheel->add(factor, timeAtX(pos.x() - m_gutterWidth));
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (!m_scene || event->button() != Qt::LeftButton)
        return;
    m_wheel->stop(); // a drag starts from where the wheel was going
    const QPoint pos = event->position().toPoint();
    m_pressPos = pos;
    m_moved = false;
    if (pos.y() < kRulerHeight && pos.x() >= m_gutterWidth) {
        m_drag = Drag::RulerSelect;
        m_pressTime = timeAtX(pos.x() - m_gutterWidth);
        m_zoom->clearSelection();
        if (!m_boxModels.empty())
            setBoxSelection({}, 0, 0, 0, 0); // a new measure on every track
        return;
    }
    if (std::abs(pos.x() - m_gutterWidth) <= 3) {
        m_drag = Drag::Gutter;
        return;
    }
    if (pos.x() < m_gutterWidth) {
        const int row =
            m_scene->layout().rowAt(contentY(pos.y()));
        if (row >= 0 && m_scene->layout().rows()[size_t(row)].kind == LayoutRow::GroupHeader) {
            const int worker = m_scene->layout().rows()[size_t(row)].worker;
            m_scene->setCollapsed(worker, !m_scene->isCollapsed(worker));
            sceneChanged();
        }
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) { // box selection: tracks × time
        m_drag = Drag::Box;
        m_pressTime = timeAtX(pos.x() - m_gutterWidth);
        m_pressContentY = contentY(pos.y());
        return;
    }
    m_drag = Drag::Pan;
    m_pressRangeStart = m_zoom->rangeStart();
    m_pressScroll = verticalScrollBar()->value();
    viewport()->setCursor(Qt::ClosedHandCursor);
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if ((pos - m_pressPos).manhattanLength() > 3)
        m_moved = true;
    if (m_drag == Drag::Gutter) {
        setGutterWidth(pos.x());
        return;
    }
    if (m_drag == Drag::None)
        viewport()->setCursor(std::abs(pos.x() - m_gutterWidth) <= 3 ? Qt::SplitHCursor
                                                                     : Qt::ArrowCursor);
    const QRect area = eventArea();
    if (m_drag == Drag::Pan && m_moved) {
        const int64_t start = m_pressRangeStart - scale().ns(pos.x() - m_pressPos.x());
        m_zoom->setRange(start, start + m_zoom->rangeDuration());
        verticalScrollBar()->setValue(m_pressScroll - (pos.y() - m_pressPos.y()));
    } else if (m_drag == Drag::Box) {
        const int x = std::clamp(pos.x(), area.left(), area.right());
        const double y = contentY(std::clamp(pos.y(), area.top(), area.bottom()));
        m_boxT0 = std::min(m_pressTime, timeAtX(x - m_gutterWidth));
        m_boxT1 = std::max(m_pressTime, timeAtX(x - m_gutterWidth));
        m_boxY0 = std::min(m_pressContentY, y);
        m_boxY1 = std::max(m_pressContentY, y);
        m_boxModels = SelectionMeasure::modelsIn(*m_scene, m_boxY0, m_boxY1);
    } else if (m_drag == Drag::RulerSelect) {
        m_zoom->setSelection(
            m_pressTime, timeAtX(std::clamp(pos.x(), area.left(), area.right()) - m_gutterWidth));
    }
    const bool inside = pos.x() >= area.left() && m_scene;
    m_cursorX = inside ? pos.x() - area.left() : -1;
    if (m_scene)
        emit cursorTimeChanged(inside ? timeAtX(m_cursorX) : 0, inside);
    viewport()->update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const Drag drag = m_drag;
    m_drag = Drag::None;
    viewport()->unsetCursor();
    if (drag == Drag::Pan && !m_moved)
        selectEvent(eventAt(event->position().toPoint()), false);
    if (drag == Drag::Box) {
        if (m_moved)
            setBoxSelection(m_boxModels, m_boxT0, m_boxT1, m_boxY0, m_boxY1);
        else
            setBoxSelection({}, 0, 0, 0, 0);
    }
}

void TimelineView::setBoxSelection(std::vector<int> models, int64_t t0, int64_t t1,
                                   double contentY0, double contentY1)
{
    m_boxModels = std::move(models);
    std::sort(m_boxModels.begin(), m_boxModels.end());
    m_boxT0 = std::min(t0, t1);
    m_boxT1 = std::max(t0, t1);
    m_boxY0 = contentY0;
    m_boxY1 = contentY1;
    if (m_boxModels.empty() || m_boxT1 <= m_boxT0) {
        m_boxModels.clear();
        m_boxT0 = m_boxT1 = 0;
    } else {
        m_zoom->setSelection(m_boxT0, m_boxT1); // the ruler measures it
    }
    viewport()->update();
    emit boxSelected(m_boxModels, m_boxT0, m_boxT1);
}

std::pair<double, double> TimelineView::boxExtent() const
{
    if (m_drag == Drag::Box)
        return {m_boxY0, m_boxY1};
    if (m_boxModels.empty() || !m_scene)
        return {0, 0};
    return SelectionMeasure::extentOf(*m_scene, m_boxModels);
}

void TimelineView::paintBox(QPainter &p) const
{
    if (m_boxModels.empty() && m_drag != Drag::Box)
        return;
    const QRect area = eventArea();
    const TimeScale s = scale();
    const double x0 = area.left() + s.x(m_boxT0);
    const double x1 = area.left() + s.x(m_boxT1);
    const auto [y0, y1] = boxExtent();
    if (y1 <= y0)
        return;
    QRectF r(QPointF(x0, viewportY(y0)), QPointF(x1, viewportY(y1)));
    p.save();
    p.setClipRect(area);
    QColor fill = m_style.selection;
    fill.setAlphaF(0.12);
    p.fillRect(r, fill);
    p.setPen(QPen(m_style.selection, 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    p.restore();
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

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const EventRef ref = eventAt(event->position().toPoint());
    if (ref.valid()) {
        selectEvent(ref, false);
        zoomToEvent(ref);
    }
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    m_wheel->stop(); // a key starts from where the wheel was going
    if (!(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) &&
        m_keys->press(event->key(), event->isAutoRepeat())) { // W/S/A/D (KeyMotion)
        event->accept();
        return;
    }
    switch (event->key()) {
    case Qt::Key_F:
    case Qt::Key_Home:
        m_zoom->fit();
        break;
    case Qt::Key_Escape:
        m_zoom->clearSelection();
        selectEvent({}, false);
        if (!m_boxModels.empty())
            setBoxSelection({}, 0, 0, 0, 0);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::keyReleaseEvent(QKeyEvent *event)
{
    if (m_keys->release(event->key(), event->isAutoRepeat()))
        event->accept();
    else
        QAbstractScrollArea::keyReleaseEvent(event);
}

void TimelineView::focusOutEvent(QFocusEvent *event)
{
    m_keys->stop(); // a release elsewhere would never reach us
    QAbstractScrollArea::focusOutEvent(event);
}

void TimelineView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!m_scene)
        return;
    emit contextMenuRequested(event->pos(), event->globalPos());
    event->accept();
}

void TimelineView::leaveEvent(QEvent *event)
{
    m_cursorX = -1;
    emit cursorTimeChanged(0, false);
    viewport()->update();
    QAbstractScrollArea::leaveEvent(event);
}

bool TimelineView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_scene) {
        auto *help = static_cast<QHelpEvent *>(event);
        const auto [request, local] = requestAt(help->pos());
        const QString culprit = CulpritMarks::tooltipAt(*m_scene, request, local);
        if (!culprit.isEmpty()) {
            QToolTip::showText(help->globalPos(), culprit, viewport());
            return true;
        }
        const EventRef ref = eventAt(help->pos());
        const QString counter =
            ref.valid() ? QString() : CounterPainter::tooltipAt(*m_scene, request, local);
        if (ref.valid())
            QToolTip::showText(help->globalPos(), eventTooltipHtml(*m_scene, ref), viewport());
        else if (!counter.isEmpty())
            QToolTip::showText(help->globalPos(), counter, viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
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
