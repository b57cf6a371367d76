#include "stepgraph.h"

#include "timeformat.h"
#include "viewstyle.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

int StepGraphGeometry::columnAt(double x) const
{
    if (columnX.size() < 2 || x < columnX.front() || x >= columnX.back())
        return -1;
    const auto it = std::upper_bound(columnX.begin(), columnX.end(), x);
    return int(it - columnX.begin()) - 1;
}

StepGraphGeometry computeStepGraph(const StepSeries &s, const QRectF &plot)
{
    StepGraphGeometry g;
    g.plot = plot;
    const size_t n = s.size();
    const int width = int(std::floor(plot.width()));
    if (n == 0 || width <= 0 || plot.height() <= 0)
        return g;
    for (size_t k = 0; k < n; ++k)
        g.yMaxNs = std::max({g.yMaxNs, s.maxNs[k], s.medianNs[k], s.whatIfNs[k]});
    const bool binned = n > size_t(width);
    const size_t cols = binned ? size_t(width) : n;
    const double slot = binned ? 1.0 : plot.width() / double(n);
    const double barW = binned ? 1.0 : std::max(1.0, slot * 0.8);
    const auto yOf = [&](int64_t v) {
        return plot.bottom() - plot.height() * double(v) / double(g.yMaxNs);
    };
    g.bars.reserve(cols);
    g.columnStep.reserve(cols);
    g.columnFirst.reserve(cols + 1);
    g.columnX.reserve(cols + 1);
    for (size_t c = 0; c < cols; ++c) {
        const size_t first = binned ? c * n / cols : c;
        const size_t last = binned ? std::max(first + 1, (c + 1) * n / cols) : c + 1;
        size_t slowest = first;
        int64_t median = 0, whatIf = 0;
        for (size_t k = first; k < last; ++k) {
            if (s.maxNs[k] > s.maxNs[slowest])
                slowest = k;
            median = std::max(median, s.medianNs[k]);
            whatIf = std::max(whatIf, s.whatIfNs[k]);
        }
        const double x = plot.left() + double(c) * slot;
        const double top = yOf(s.maxNs[slowest]);
        g.columnX.push_back(x);
        g.columnFirst.push_back(first);
        g.columnStep.push_back(slowest);
        g.bars.emplace_back(x + (slot - barW) / 2, top, barW, plot.bottom() - top);
        g.median << QPointF(x + slot / 2, yOf(median));
        g.whatIf << QPointF(x + slot / 2, yOf(whatIf));
    }
    g.columnX.push_back(plot.left() + double(cols) * slot);
    g.columnFirst.push_back(n);
    return g;
}

StepGraph::StepGraph(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(70);
    setMouseTracking(true);
}

void StepGraph::setSeries(std::shared_ptr<const StepSeries> series, const QString &stepName,
                          const QString &whatIfLabel)
{
    m_series = std::move(series);
    m_stepName = stepName;
    m_whatIfLabel = whatIfLabel;
    m_geometryValid = false;
    update();
}

void StepGraph::setLeftMargin(int px)
{
    m_leftMargin = px;
    m_geometryValid = false;
    update();
}

void StepGraph::setVisibleRange(int64_t startNs, int64_t endNs)
{
    m_visibleStart = startNs;
    m_visibleEnd = endNs;
    update();
}

QRectF StepGraph::plotRect() const
{
    return QRectF(m_leftMargin, 18, std::max(1, width() - m_leftMargin - 8),
                  std::max(1, height() - 22));
}

const StepGraphGeometry &StepGraph::geometry()
{
    if (!m_geometryValid || m_geometry.plot != plotRect()) {
        m_geometry = m_series ? computeStepGraph(*m_series, plotRect()) : StepGraphGeometry{};
        m_geometryValid = true;
    }
    return m_geometry;
}

void StepGraph::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.background);
    p.setFont(style.smallFont);
    if (!m_series || m_series->empty()) {
        p.setPen(style.mutedText);
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   m_series ? tr("No steps found (a name at depth 0 that repeats on every rank)")
                            : tr("Step times appear here when the job's diagnosis is ready"));
        return;
    }
    const StepGraphGeometry &g = geometry();
    const QRectF plot = g.plot;
    // The steps the timeline shows: shaded behind the bars.
    if (m_visibleEnd > m_visibleStart && !g.columnStep.empty()) {
        int c0 = -1, c1 = -1;
        for (size_t c = 0; c < g.columnStep.size(); ++c) {
            const size_t first = g.columnFirst[c], last = g.columnFirst[c + 1] - 1;
            if (m_series->endNs[last] > m_visibleStart && m_series->beginNs[first] < m_visibleEnd) {
                c0 = c0 < 0 ? int(c) : c0;
                c1 = int(c);
            }
        }
        if (c0 >= 0 && (c0 > 0 || c1 + 1 < int(g.columnStep.size())))
            p.fillRect(QRectF(g.columnX[size_t(c0)], plot.top(),
                              g.columnX[size_t(c1) + 1] - g.columnX[size_t(c0)], plot.height()),
                       style.selectionRange);
    }
    p.setPen(style.grid);
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(QPointF(plot.left(), plot.top()), QPointF(plot.right(), plot.top()));
    p.setPen(style.mutedText);
    p.drawText(QRectF(0, plot.top() - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               formatDuration(g.yMaxNs, 2));
    p.drawText(QRectF(0, plot.bottom() - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
               QStringLiteral("0"));
    p.drawText(QRectF(6, plot.top(), plot.left() - 12, plot.height()),
               Qt::AlignLeft | Qt::AlignVCenter, tr("step time"));
    p.setPen(Qt::NoPen);
    p.setBrush(style.dark ? QColor(0x3d5f84) : QColor(0xa9c4e0)); // light: the lines read on it
    p.drawRects(g.bars.data(), int(g.bars.size()));
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(style.dark ? QColor(0xf0f0f0) : QColor(0x222222), 1.2));
    p.drawPolyline(g.median);
    if (!m_whatIfLabel.isEmpty()) {
        p.setPen(QPen(QColor(0xe8710a), 2, Qt::DashLine));
        p.drawPolyline(g.whatIf);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    // The key, on one line above the plot.
    p.setPen(style.text);
    QString key = tr("%1 — %L2 steps · bars: step time (max across ranks) · line: median of "
                     "the ranks")
                      .arg(m_stepName)
                      .arg(qulonglong(m_series->size()));
    if (!m_whatIfLabel.isEmpty())
        key += tr(" · dashed: what-if %1 fixed").arg(m_whatIfLabel);
    p.drawText(QRectF(plot.left(), 1, plot.width(), 16), Qt::AlignLeft | Qt::AlignVCenter, key);
}

QString StepGraph::tooltipAt(QPointF pos)
{
    if (!m_series || m_series->empty())
        return {};
    const StepGraphGeometry &g = geometry();
    const int c = g.columnAt(pos.x());
    if (c < 0 || !g.plot.contains(pos))
        return {};
    const size_t k = g.columnStep[size_t(c)];
    const size_t first = g.columnFirst[size_t(c)], last = g.columnFirst[size_t(c) + 1];
    QString text = last - first > 1
                       ? tr("steps %L1–%L2, slowest %L3").arg(first).arg(last - 1).arg(k)
                       : tr("step %L1").arg(k);
    text += tr("\nstep time (max across ranks): %1\nmedian of the ranks: %2")
                .arg(formatDuration(m_series->maxNs[k]), formatDuration(m_series->medianNs[k]));
    if (!m_whatIfLabel.isEmpty())
        text +=
            tr("\nwhat-if %1 fixed: %2").arg(m_whatIfLabel, formatDuration(m_series->whatIfNs[k]));
    return text + tr("\nclick: zoom the timeline to it");
}

bool StepGraph::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

void StepGraph::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton || !m_series)
        return;
    const StepGraphGeometry &g = geometry();
    const int c = g.columnAt(e->position().x());
    if (c >= 0)
        emit stepClicked(int(g.columnStep[size_t(c)]));
}

} // namespace syncline::ui
