#include "histogramchart.h"

#include "timeformat.h"
#include "viewstyle.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

namespace {
constexpr double kBarsHeight = 0.45; // of the plot: the all-ranks bars; the rest: rank strips
}

HistogramChart::HistogramChart(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(60);
}

void HistogramChart::setHistogram(const QString &title, DurationHistogram histogram)
{
    m_title = title;
    m_h = std::move(histogram);
    m_selectedBin = -1;
    m_selectedRank = -2;
    update();
}

QRectF HistogramChart::plotRect() const
{
    return QRectF(56, 22, std::max(10, width() - 66), std::max(10, height() - 42));
}

double HistogramChart::stripHeight() const
{
    const QRectF plot = plotRect();
    const double strips = plot.height() * (1 - kBarsHeight) - 4;
    return m_h.ranks.empty() ? 0 : std::max(1.0, strips / double(m_h.ranks.size()));
}

QRectF HistogramChart::cellRect(int bin, int rankPos) const
{
    const QRectF plot = plotRect();
    const int n = std::max(1, m_h.binCount());
    const double w = plot.width() / n;
    const double x = plot.left() + w * bin;
    const double barsH = plot.height() * kBarsHeight;
    if (rankPos < 0) {
        int64_t maxC = 1;
        for (int64_t c : m_h.total)
            maxC = std::max(maxC, c);
        const double h = barsH * double(m_h.total[size_t(bin)]) / double(maxC);
        return QRectF(x + 1, plot.top() + barsH - h, std::max(1.0, w - 2), std::max(h, 1.0));
    }
    const double sh = stripHeight();
    return QRectF(x, plot.top() + barsH + 4 + sh * rankPos, w, sh);
}

void HistogramChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.background);
    p.setFont(style.font);
    if (m_h.binCount() == 0) {
        p.setPen(style.mutedText);
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Choose a name in the table to see its duration histogram"));
        return;
    }
    int64_t total = 0;
    for (int64_t c : m_h.total)
        total += c;
    p.setPen(style.text);
    p.drawText(QRect(8, 2, width() - 16, 18), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 — %2 durations, log scale, per rank (click a bin to find them)")
                   .arg(m_title)
                   .arg(total));
    const QColor bar(0x3b, 0x7d, 0xd8);
    int64_t maxCell = 1;
    for (const auto &row : m_h.counts)
        for (int64_t c : row)
            maxCell = std::max(maxCell, c);
    for (int b = 0; b < m_h.binCount(); ++b) {
        const bool sel = b == m_selectedBin && m_selectedRank == -1;
        p.fillRect(cellRect(b, -1), sel ? style.selection : bar);
        for (size_t r = 0; r < m_h.ranks.size(); ++r) {
            const int64_t c = m_h.counts[r][size_t(b)];
            if (c == 0)
                continue;
            QColor cell = bar;
            // Shade by log count: one event is visible, the fullest cell is solid.
            cell.setAlphaF(0.15 + 0.85 * std::log1p(double(c)) / std::log1p(double(maxCell)));
            const bool cs = b == m_selectedBin && m_selectedRank == m_h.ranks[r];
            p.fillRect(cellRect(b, int(r)).adjusted(0.5, 0, -0.5, 0), cs ? style.selection : cell);
        }
    }
    // Axes: rank labels on the left (as many as fit), bin edges below.
    p.setFont(style.smallFont);
    p.setPen(style.mutedText);
    const double sh = stripHeight();
    const int every = std::max(1, int(std::ceil(12.0 / std::max(sh, 0.1))));
    for (size_t r = 0; r < m_h.ranks.size(); r += size_t(every)) {
        const QRectF c = cellRect(0, int(r));
        p.drawText(QRectF(0, c.top() + c.height() / 2 - 7, 52, 14),
                   Qt::AlignRight | Qt::AlignVCenter, tr("rank %1").arg(m_h.ranks[r]));
    }
    const QRectF plot = plotRect();
    const int labelEvery = std::max(1, int(std::ceil(60.0 / (plot.width() / m_h.binCount()))));
    for (int b = 0; b <= m_h.binCount(); b += labelEvery) {
        const double x = plot.left() + plot.width() * b / m_h.binCount();
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
        p.drawText(QRectF(x - 40, plot.bottom() + 3, 80, 14), Qt::AlignCenter,
                   formatDuration(DurationHistogram::edge(m_h.firstBin + b), 2));
    }
}

void HistogramChart::mousePressEvent(QMouseEvent *event)
{
    const QPointF pos = event->position();
    const QRectF plot = plotRect();
    if (m_h.binCount() == 0 || !plot.contains(pos))
        return;
    const int b = std::clamp(int((pos.x() - plot.left()) / plot.width() * m_h.binCount()), 0,
                             m_h.binCount() - 1);
    const double barsBottom = plot.top() + plot.height() * kBarsHeight;
    int rank = -1;
    if (pos.y() > barsBottom + 4 && stripHeight() > 0) {
        const int r = int((pos.y() - barsBottom - 4) / stripHeight());
        if (r < 0 || size_t(r) >= m_h.ranks.size())
            return;
        rank = m_h.ranks[size_t(r)];
    }
    m_selectedBin = b;
    m_selectedRank = rank;
    update();
    emit binClicked(m_h.binLow(b), m_h.binHigh(b), rank);
}

} // namespace syncline::ui
