// CounterPainter — draws the counter rows (LayoutRow::CounterRow) of a scene: per pixel column
// the (min, max) of what the series holds there (CounterModel::columns, a min/max pyramid), as
// an area under the maximum with a vertical min–max stroke, so a 1 M-sample counter costs what
// its width in pixels costs. The gutter shows the series' label and its value axis (the top
// and bottom values); the tooltip the value at the cursor.
//
// Invariants: nothing here iterates over samples (only over pixel columns and visible rows);
// values map linearly from [axisMin, axisMax] onto the row's height minus a 3 px margin.
// Threading: any thread that owns the QPainter's device (like TimelinePainter).
#pragma once

#include "timelinegeometry.h"
#include "viewstyle.h"

#include <QPainter>
#include <QRectF>
#include <QString>

namespace syncline::ui {

class CounterPainter
{
public:
    // The event area's counter rows (`area` in event-area coordinates, content y − req.top).
    static void paintRows(QPainter &p, const QRectF &area, const TimelineScene &scene,
                          const GeometryRequest &req, const ViewStyle &style);
    // One counter row's gutter: its label and value axis.
    static void paintGutterRow(QPainter &p, const QRectF &row, const TimelineScene &scene,
                               const LayoutRow &r, const ViewStyle &style);
    // Tooltip HTML for the point (event-area px) when it lies on a counter row with a value
    // there; "" otherwise.
    static QString tooltipAt(const TimelineScene &scene, const GeometryRequest &req, QPointF pos);
    // The colour of a series' slot (TimelineScene::counterColourSlot: one per label).
    static QColor colour(int slot, bool dark);
    // "1.25 G", "312 k", "0.5", "-3.2 m": a compact value for the axis and the tooltip.
    static QString formatValue(double v);
};

} // namespace syncline::ui
