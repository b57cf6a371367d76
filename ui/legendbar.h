// LegendBar — the colour legend under the timeline: a swatch and the name for the event names
// with the most total time (from the latest whole-job statistics), as many as fit. Clicking a
// name asks to find it (MainWindow puts it in the find box).
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace syncline::ui {

class LegendBar : public QWidget
{
    Q_OBJECT
public:
    explicit LegendBar(QWidget *parent = nullptr);
    void setScene(std::shared_ptr<TimelineScene> scene);
    void setNames(std::vector<uint32_t> nameIds); // most important first
    const std::vector<uint32_t> &names() const { return m_names; }
    QSize sizeHint() const override { return QSize(600, 24); }

signals:
    void nameClicked(const QString &name);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    std::shared_ptr<TimelineScene> m_scene;
    std::vector<uint32_t> m_names;
    std::vector<std::pair<QRectF, uint32_t>> m_hits; // where each name was drawn
};

} // namespace syncline::ui
