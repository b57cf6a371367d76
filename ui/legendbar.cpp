#include "legendbar.h"

#include "viewstyle.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>

namespace syncline::ui {

LegendBar::LegendBar(QWidget *parent) : QWidget(parent)
{
    setFixedHeight(24);
    setToolTip(tr("Event colours; click a name to find it"));
}

void LegendBar::setScene(std::shared_ptr<TimelineScene> scene)
{
    m_scene = std::move(scene);
    m_names.clear();
    update();
}

void LegendBar::setNames(std::vector<uint32_t> nameIds)
{
    m_names = std::move(nameIds);
    update();
}

void LegendBar::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.ruler);
    m_hits.clear();
    if (!m_scene)
        return;
    p.setFont(style.smallFont);
    const QFontMetricsF fm(style.smallFont);
    double x = 8;
    for (uint32_t id : m_scene->legendEntries(m_names)) {
        const QString text = fm.elidedText(m_scene->legendLabel(id), Qt::ElideRight, 180);
        const double w = 14 + fm.horizontalAdvance(text) + 16;
        if (x + w > width())
            break;
        const QRectF swatch(x, height() / 2.0 - 5, 10, 10);
        p.fillRect(swatch, m_scene->colours().nameColour(id, style.dark));
        p.setPen(style.text);
        p.drawText(QRectF(x + 14, 0, w - 14, height()), Qt::AlignVCenter | Qt::AlignLeft, text);
        m_hits.emplace_back(QRectF(x, 0, w, height()), id);
        x += w;
    }
}

void LegendBar::mousePressEvent(QMouseEvent *event)
{
    for (const auto &[r, id] : m_hits) {
        if (r.contains(event->position()) && m_scene) {
            if (m_scene->colours().categoryOf(id).empty()) // a category has no name to find
                emit nameClicked(m_scene->displayName(id));
            return;
        }
    }
}

} // namespace syncline::ui
