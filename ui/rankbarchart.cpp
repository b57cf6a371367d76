#include "rankbarchart.h"

#include "timeformat.h"
#include "viewstyle.h"

#include "timeline/report/rankoutliers.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cstdlib>

namespace syncline::ui {

RankBarChart::RankBarChart(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(60);
}

void RankBarChart::setData(const QString &title, std::vector<Bar> bars)
{
    m_title = title;
    m_bars = std::move(bars);
    std::vector<int64_t> values;
    for (const Bar &b : m_bars)
        values.push_back(b.valueNs);
    m_flags = RankOutliers::flag(values, &m_threshold);
    m_blame = false;
    update();
}

void RankBarChart::setBlame(const QString &title, std::vector<Bar> bars, std::vector<bool> culprits)
{
    m_title = title;
    m_bars = std::move(bars);
    m_flags = std::move(culprits);
    m_flags.resize(m_bars.size(), false);
    m_threshold = 0;
    m_blame = true;
    update();
}

void RankBarChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.background);
    p.setFont(style.font);
    p.setPen(style.text);
    if (m_bars.empty()) {
        p.setPen(style.mutedText);
        p.drawText(rect(), Qt::AlignCenter,
                   m_blame ? tr("%1 is a wait: its blame per rank appears when the diagnosis is "
                                "ready")
                                 .arg(m_title)
                           : tr("Choose a name in the table to see its duration per rank"));
        return;
    }
    const int stragglerCount = int(std::count(m_flags.begin(), m_flags.end(), true));
    const QString title =
        m_blame ? tr("%1 (wait) — last to arrive: blame per rank; %2 culprit(s)")
                      .arg(m_title)
                      .arg(stragglerCount)
                : tr("%1 (compute) — mean per rank; %2 straggler(s) beyond median + max(3·MAD, "
                     "50 µs, 10 %) = %3")
                      .arg(m_title)
                      .arg(stragglerCount)
                      .arg(formatDuration(m_threshold));
    p.drawText(QRect(8, 2, width() - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, title);
    int64_t maxV = 1;
    for (const Bar &b : m_bars)
        maxV = std::max(maxV, b.valueNs);
    maxV = std::max(maxV, m_threshold);
    p.setFont(style.smallFont);
    // The axis labels set the plot's left edge (blame runs to minutes: "6 min 25.3 s").
    const QFontMetricsF fm(style.smallFont);
    double labelW = 0;
    for (int i = 0; i <= 4; ++i)
        labelW = std::max(labelW, fm.horizontalAdvance(formatDuration(maxV * i / 4, 2)));
    const double left = std::max(56.0, labelW + 10);
    const QRectF plot(left, 24, width() - left - 10, height() - 46);
    p.setPen(style.grid);
    for (int i = 0; i <= 4; ++i) {
        const double y = plot.bottom() - plot.height() * i / 4.0;
        p.setPen(style.grid);
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(style.mutedText);
        p.drawText(QRectF(0, y - 8, plot.left() - 4, 16), Qt::AlignRight | Qt::AlignVCenter,
                   formatDuration(maxV * i / 4, 2));
    }
    const double slot = plot.width() / double(m_bars.size());
    const double barW = std::max(1.0, slot * 0.75);
    const int labelEvery = std::max(1, int(40 / std::max(1.0, slot)));
    for (size_t i = 0; i < m_bars.size(); ++i) {
        const double h = plot.height() * double(m_bars[i].valueNs) / double(maxV);
        const QRectF bar(plot.left() + i * slot + (slot - barW) / 2, plot.bottom() - h, barW, h);
        p.fillRect(bar, m_flags[i] ? QColor(0xe15759) : QColor(0x4e79a7));
        if (int(i) % labelEvery == 0) {
            p.setPen(m_flags[i] ? QColor(0xe15759) : style.mutedText);
            p.drawText(QRectF(bar.center().x() - 20, plot.bottom() + 2, 40, 16), Qt::AlignCenter,
                       QString::number(m_bars[i].rank));
        }
    }
    if (!m_blame) {
        const double ty = plot.bottom() - plot.height() * double(m_threshold) / double(maxV);
        p.setPen(QPen(QColor(0xe15759), 1, Qt::DashLine));
        p.drawLine(QPointF(plot.left(), ty), QPointF(plot.right(), ty));
    }
    p.setPen(style.mutedText);
    p.drawText(QRectF(plot.left(), plot.bottom() + 2, 40, 16), Qt::AlignLeft, tr("rank"));
}

} // namespace syncline::ui
