// OverviewStrip — a zoomed-out picture of the whole job (one thin band per visible worker; per
// pixel column the colour of the innermost event at that time over the worker's threads, the
// summary a collapsed group shows — innermostAt) with the visible range outlined and find matches
// marked (columns where a match starts, in the match colour); click or drag to move the view.
// Workers that crashed, ended without a close record or went silent (WorkerStatus) have their
// band tinted in the state's colour after their last record, and the label counts them.
// Invariants: covers [scene begin, scene end] over the widget width; redrawn into a cached image
// when the size or the scene revision changes; per pixel column one binary search per thread
// and depth, so the cost is O(width · threads · depths · log n).
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"
#include "zoomcontrol.h"

#include <QImage>
#include <QPainter>
#include <QWidget>

#include <memory>

namespace syncline::ui {

class OverviewStrip : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewStrip(ZoomControl *zoom, QWidget *parent = nullptr);
    void setScene(std::shared_ptr<TimelineScene> scene);
    void sceneChanged();
    QSize sizeHint() const override { return QSize(600, 44); }
    int64_t timeAtX(double x) const;
    // The whole job over the strip right of the margin (an empty job: 1 ns).
    TimeScale scale() const;
    void setLeftMargin(int px); // follows the view's label column

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;

private:
    void renderImage();
    bool matchStartsIn(int first, int last, int64_t t0, int64_t t1) const;
    void paintWorkerEnd(QPainter &p, int worker, double y, double h, int width,
                        const TimeScale &scale) const;
    QString statusSummary() const;
    void centreAt(double x);

    ZoomControl *m_zoom;
    std::shared_ptr<TimelineScene> m_scene;
    QImage m_image;
    uint64_t m_imageRevision = 0;
    int m_leftMargin = 230; // aligned with the view's event area
};

} // namespace syncline::ui
