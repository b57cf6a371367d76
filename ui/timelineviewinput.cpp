// TimelineView's input: the wheel, mouse drags (pan, ruler measure, box selection, the label
// column's edge), clicks and double-clicks, keys, the context menu request and the hover tooltip;
// and the box selection they make. The view's state, layout and painting are in timelineview.cpp
// (see timelineview.h for the bindings and invariants).
#include "timelineview.h"

#include "counterpainter.h"
#include "eventtext.h"
#include "keymotion.h"
#include "selectionmeasure.h"
#include "wheelzoom.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPointF pos = event->position();
    const QPoint delta = event->angleDelta();
    const bool ctrl = event->modifiers() & Qt::ControlModifier;
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    if (!ctrl && (m_wheelZooms ? shift : !shift)) { // scroll the workers
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
        const int row = m_scene->layout().rowAt(contentY(pos.y()));
        if (row >= 0 && m_scene->layout().rows()[size_t(row)].kind == LayoutRow::GroupHeader &&
            !m_scene->layout().rows()[size_t(row)].pinnedThreads) {
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

} // namespace syncline::ui
