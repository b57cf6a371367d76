// StepGraph — the job's step times at a glance, above the timeline: per step a bar of the step's
// time (the max across ranks: latest end − earliest start), a line of the median of the ranks' own
// durations, and a dashed line of the step's time with the top culprit fixed (the diagnosis's
// what-if). Hover tells the step and its times; a click zooms the timeline to the step
// (stepClicked; MainWindow sets the ZoomControl's range). Steps the timeline shows are shaded.
// The main window shows it as a strip above the overview, its plot starting where the
// timeline's event area does.
//
// Geometry is a plain function (computeStepGraph) of the series and the plot rectangle, tested
// without a widget; paintEvent replays the cached geometry. Binning (cost ∝ pixels, not steps ×
// ranks): with more steps than pixel columns, column c holds steps [⌊c·n/W⌋, ⌊(c+1)·n/W⌋) and
// shows each series' max over them (a slow step is never averaged away); the column's step is
// its slowest (what hover and click use). With fewer steps, each step gets a slot W/n wide and a
// bar 80 % of it. Example: 20,000 steps on 1,000 px → 20 steps a column, 1,000 bars; one step of
// 2 × the others makes its column's bar twice as tall.
// Invariants: x in px from the widget's left, y down; bars rise from plot.bottom(); heights are
// plot.height() · v / yMaxNs (yMaxNs = the largest value of the three series, ≥ 1).
// Threading: GUI thread only (computeStepGraph is pure).
#pragma once

#include "stepseries.h"

#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

namespace syncline::ui {

struct StepGraphGeometry
{
    QRectF plot;
    int64_t yMaxNs = 1;
    std::vector<QRectF> bars;        // one per column
    std::vector<size_t> columnStep;  // per column: its slowest step
    std::vector<size_t> columnFirst; // per column: its first step; one more entry: the end
    std::vector<double> columnX;     // per column: left edge; one more entry: the right edge
    QPolygonF median, whatIf;        // one point per column (at its centre)
    // The column under x (-1 outside the plot).
    int columnAt(double x) const;
};

StepGraphGeometry computeStepGraph(const StepSeries &series, const QRectF &plot);

class StepGraph : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kDefaultLeftMargin = 120;
    static constexpr int kStripHeight = 64; // px, as a strip above the timeline

    explicit StepGraph(QWidget *parent = nullptr);
    // stepName: the diagnosis's step name; whatIfLabel: whose fix the dashed line shows ("" none).
    void setSeries(std::shared_ptr<const StepSeries> series, const QString &stepName,
                   const QString &whatIfLabel);
    void setLeftMargin(int px); // the label column (the timeline's, above it)
    // The timeline's visible range (global ns): the steps inside are shaded.
    void setVisibleRange(int64_t startNs, int64_t endNs);
    const StepGraphGeometry &geometry(); // for the current size (cached)
    QRectF plotRect() const;
    QString tooltipAt(QPointF pos);
    QSize sizeHint() const override { return QSize(800, 110); }

signals:
    void stepClicked(int step);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    std::shared_ptr<const StepSeries> m_series;
    QString m_stepName;
    QString m_whatIfLabel;
    StepGraphGeometry m_geometry;
    bool m_geometryValid = false;
    int m_leftMargin = kDefaultLeftMargin;
    int64_t m_visibleStart = 0, m_visibleEnd = 0;
};

} // namespace syncline::ui
