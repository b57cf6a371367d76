#include "stepheatmap.h"

#include "timeformat.h"
#include "viewstyle.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::ui {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

QRgb mix(QRgb a, QRgb b, float t)
{
    const auto ch = [t](int x, int y) { return int(std::lround(x + (y - x) * t)); };
    return qRgb(ch(qRed(a), qRed(b)), ch(qGreen(a), qGreen(b)), ch(qBlue(a), qBlue(b)));
}

} // namespace

float heatValue(const Diagnosis &d, const StepSeries &s, HeatMode mode, size_t step, size_t worker)
{
    const float dur = d.cellDuration(step, worker);
    if (std::isnan(dur))
        return kNaN; // no such step on this worker
    if (mode == HeatMode::Compute) {
        const float median = float(s.computeMedianNs[step]);
        const float wait = d.cellWait(step, worker);
        const float compute = std::isnan(wait) ? dur : std::max(0.0f, dur - wait);
        return median > 0 ? compute / median : kNaN;
    }
    const float median = float(s.medianNs[step]);
    if (median <= 0)
        return kNaN;
    return (mode == HeatMode::Duration ? dur : d.cellWait(step, worker)) / median;
}

HeatBins binHeatMap(const Diagnosis &d, const StepSeries &s, HeatMode mode,
                    const std::vector<size_t> &rowWorkers, int maxCols, int maxRows)
{
    HeatBins b;
    const size_t steps = std::min(s.size(), d.steps.size());
    const size_t workers = rowWorkers.size();
    if (steps == 0 || workers == 0 || maxCols <= 0 || maxRows <= 0)
        return b;
    b.cols = int(std::min<size_t>(steps, size_t(maxCols)));
    b.rows = int(std::min<size_t>(workers, size_t(maxRows)));
    b.values.assign(size_t(b.cols) * size_t(b.rows), kNaN);
    // Per worker (diagnosis index) its bin row; workers not shown get -1.
    std::vector<int> rowOf(d.workerCount, -1);
    for (size_t r = 0; r < workers; ++r)
        if (rowWorkers[r] < d.workerCount)
            rowOf[rowWorkers[r]] = int(r * size_t(b.rows) / workers);
    for (size_t k = 0; k < steps; ++k) {
        const size_t col = k * size_t(b.cols) / steps;
        for (size_t w = 0; w < d.workerCount; ++w) {
            if (rowOf[w] < 0)
                continue;
            const float v = heatValue(d, s, mode, k, w);
            if (std::isnan(v))
                continue;
            float &cell = b.values[size_t(rowOf[w]) * size_t(b.cols) + col];
            if (std::isnan(cell) || v > cell)
                cell = v;
        }
    }
    b.rowMeans.assign(size_t(b.rows), kNaN);
    for (int r = 0; r < b.rows; ++r) {
        double sum = 0;
        int n = 0;
        for (int c = 0; c < b.cols; ++c)
            if (!std::isnan(b.at(r, c))) {
                sum += b.at(r, c);
                ++n;
            }
        if (n)
            b.rowMeans[size_t(r)] = float(sum / n);
    }
    return b;
}

QRgb heatColour(float v, HeatMode mode)
{
    static const QRgb white = qRgb(0xf7, 0xf7, 0xf7), red = qRgb(0xb2, 0x18, 0x2b),
                      blue = qRgb(0x21, 0x66, 0xac), purple = qRgb(0x6a, 0x3d, 0x9a);
    if (std::isnan(v))
        return qRgb(0x9a, 0x9a, 0x9a);
    if (mode == HeatMode::Wait)
        return mix(white, purple, std::clamp(v / 0.5f, 0.0f, 1.0f));
    const float span = kHeatFullScale - kHeatDeadBand; // from the band's edge to saturation
    if (v >= 1.0f)
        return mix(white, red, std::clamp((v - 1.0f - kHeatDeadBand) / span, 0.0f, 1.0f));
    return mix(white, blue, std::clamp((1.0f - kHeatDeadBand - v) / span, 0.0f, 1.0f));
}

StepHeatMap::StepHeatMap(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(80);
    setMouseTracking(true);
    m_rebuildTimer.setSingleShot(true);
    m_rebuildTimer.setInterval(kRebuildDelayMs);
    connect(&m_rebuildTimer, &QTimer::timeout, this, [this] {
        rebuild();
        update();
    });
}

void StepHeatMap::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis,
                               std::shared_ptr<const StepSeries> series,
                               std::vector<QString> labels, std::vector<uint8_t> culprit)
{
    m_culprit = std::move(culprit);
    m_diagnosis = std::move(diagnosis);
    m_series = std::move(series);
    m_labels = std::move(labels);
    m_rowWorkers.clear();
    if (m_diagnosis)
        for (size_t w = 0; w < m_diagnosis->workerCount; ++w)
            m_rowWorkers.push_back(w);
    m_valid = false;
    update();
}

void StepHeatMap::setMode(HeatMode mode)
{
    m_mode = mode;
    m_valid = false;
    update();
}

void StepHeatMap::setLeftMargin(int px)
{
    m_leftMargin = px;
    m_valid = false;
    update();
}

QRectF StepHeatMap::plotRect() const
{
    return QRectF(m_leftMargin, 2, std::max(1, width() - m_leftMargin - 8),
                  std::max(1, height() - 4));
}

const HeatBins &StepHeatMap::bins()
{
    if (!m_valid || m_builtFor != plotRect().size().toSize())
        rebuild();
    return m_bins;
}

void StepHeatMap::rebuild()
{
    const QSize size = plotRect().size().toSize();
    m_builtFor = size;
    m_valid = true;
    m_bins = {};
    m_image = QImage();
    if (!m_diagnosis || !m_series)
        return;
    m_bins = binHeatMap(*m_diagnosis, *m_series, m_mode, m_rowWorkers, size.width(), size.height());
    if (m_bins.cols == 0)
        return;
    m_image = QImage(m_bins.cols, m_bins.rows, QImage::Format_RGB32);
    for (int r = 0; r < m_bins.rows; ++r) {
        auto *line = reinterpret_cast<QRgb *>(m_image.scanLine(r));
        for (int c = 0; c < m_bins.cols; ++c)
            line[c] = heatColour(m_bins.at(r, c), m_mode);
    }
}

int StepHeatMap::hottestWorker()
{
    const HeatBins &b = bins();
    int best = -1;
    for (int r = 0; r < b.rows; ++r) {
        const float m = b.rowMeans[size_t(r)];
        if (!std::isnan(m) && (best < 0 || m > b.rowMeans[size_t(best)]))
            best = r;
    }
    if (best < 0)
        return -1;
    // The bin row's first worker (rows are one worker each when they fit the height).
    return int(m_rowWorkers[size_t(best) * m_rowWorkers.size() / size_t(b.rows)]);
}

bool StepHeatMap::cellAt(QPointF pos, size_t *step, size_t *worker)
{
    const HeatBins &b = bins();
    const QRectF plot = plotRect();
    if (b.cols == 0 || !plot.contains(pos))
        return false;
    const int col = std::clamp(int((pos.x() - plot.left()) / plot.width() * b.cols), 0, b.cols - 1);
    const int row = std::clamp(int((pos.y() - plot.top()) / plot.height() * b.rows), 0, b.rows - 1);
    const size_t steps = std::min(m_series->size(), m_diagnosis->steps.size());
    const size_t workers = m_rowWorkers.size();
    // The bin's cells: the inverse of binHeatMap's floor mapping.
    const auto firstOf = [](size_t bin, size_t n, size_t bins) {
        return (bin * n + bins - 1) / bins;
    };
    const size_t k0 = firstOf(size_t(col), steps, size_t(b.cols));
    const size_t k1 = std::max(k0 + 1, firstOf(size_t(col) + 1, steps, size_t(b.cols)));
    const size_t r0 = firstOf(size_t(row), workers, size_t(b.rows));
    const size_t r1 = std::max(r0 + 1, firstOf(size_t(row) + 1, workers, size_t(b.rows)));
    float best = -std::numeric_limits<float>::infinity();
    bool found = false;
    for (size_t k = k0; k < std::min(k1, steps); ++k)
        for (size_t r = r0; r < std::min(r1, workers); ++r) {
            const float v = heatValue(*m_diagnosis, *m_series, m_mode, k, m_rowWorkers[r]);
            if (!found || (!std::isnan(v) && v > best)) {
                best = std::isnan(v) ? best : v;
                *step = k;
                *worker = m_rowWorkers[r];
                found = true;
            }
        }
    return found;
}

QString StepHeatMap::tooltipAt(QPointF pos)
{
    size_t k = 0, w = 0;
    if (!cellAt(pos, &k, &w))
        return {};
    const float dur = m_diagnosis->cellDuration(k, w);
    const float wait = m_diagnosis->cellWait(k, w);
    const QString who = w < m_labels.size() ? m_labels[w] : QString::number(w);
    if (std::isnan(dur))
        return tr("%1, step %L2: not recorded").arg(who).arg(k);
    const double median = double(m_series->medianNs[k]);
    QString text = tr("%1, step %L2\nduration %3 (%4 × the median %5)")
                       .arg(who)
                       .arg(k)
                       .arg(formatDuration(int64_t(dur)))
                       .arg(median > 0 ? dur / median : 0.0, 0, 'f', 2)
                       .arg(formatDuration(int64_t(median)));
    if (!std::isnan(wait)) {
        const double compute = std::max(0.0, double(dur) - double(wait));
        const double cm = double(m_series->computeMedianNs[k]);
        text += tr("\ncompute %1 (%2 × the median %3)\nwaited %4 in collectives")
                    .arg(formatDuration(int64_t(compute)))
                    .arg(cm > 0 ? compute / cm : 0.0, 0, 'f', 2)
                    .arg(formatDuration(int64_t(cm)), formatDuration(int64_t(wait)));
    }
    return text + tr("\nclick: zoom the timeline to the step and show this worker");
}

void StepHeatMap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.background);
    p.setFont(style.smallFont);
    // Only the size changed (a resize in progress): stretch the image now, rebuild when it rests.
    if (m_valid && !m_image.isNull() && m_builtFor != plotRect().size().toSize())
        m_rebuildTimer.start();
    else
        bins(); // (re)builds the image when the diagnosis or the mode changed
    if (m_image.isNull()) {
        p.setPen(style.mutedText);
        p.drawText(rect().adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("The ranks × steps heat map appears when the diagnosis finds steps"));
        return;
    }
    const QRectF plot = plotRect();
    p.drawImage(plot, m_image); // up-scaled at most: the bins already fit the pixels
    // The row summary, left of the map.
    const double binH = plot.height() / double(std::max(1, m_bins.rows));
    for (int r = 0; r < m_bins.rows && size_t(r) < m_bins.rowMeans.size(); ++r)
        p.fillRect(QRectF(plot.left() - kSummaryPx - 2, plot.top() + r * binH, kSummaryPx,
                          std::max(binH, 1.0)),
                   QColor(heatColour(m_bins.rowMeans[size_t(r)], m_mode)));
    // Row labels: every k-th row when they do not all fit, and the culprits' always (in red,
    // the others that would overlap a culprit's label left out).
    const QFontMetricsF fm(style.smallFont);
    const double rowH = plot.height() / double(m_rowWorkers.size());
    const size_t every = size_t(std::max(1.0, std::ceil(fm.height() / std::max(rowH, 1e-3))));
    const auto culprit = [this](size_t w) { return w < m_culprit.size() && m_culprit[w] != 0; };
    const auto yOf = [&](size_t r) { return plot.top() + (double(r) + 0.5) * rowH; };
    std::vector<double> culpritY;
    for (size_t r = 0; r < m_rowWorkers.size(); ++r)
        if (culprit(m_rowWorkers[r]))
            culpritY.push_back(yOf(r));
    for (size_t r = 0; r < m_rowWorkers.size(); ++r) {
        const size_t w = m_rowWorkers[r];
        const double y = yOf(r);
        const bool isCulprit = culprit(w);
        if (!isCulprit) {
            if (r % every != 0)
                continue;
            if (std::any_of(culpritY.begin(), culpritY.end(),
                            [&](double cy) { return std::abs(cy - y) < fm.height(); }))
                continue;
        }
        p.setPen(isCulprit ? QColor(0xe15759) : style.mutedText);
        p.drawText(QRectF(2, y - fm.height() / 2, plot.left() - kSummaryPx - 8, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter,
                   (isCulprit ? QStringLiteral("culprit ▶ ") : QString()) +
                       (w < m_labels.size() ? m_labels[w] : QString::number(w)));
        if (isCulprit) // a tick at the row, so the label points at it at any height
            p.fillRect(QRectF(plot.left() - kSummaryPx - 6, y - 0.5, 4, 1), QColor(0xe15759));
    }
}

bool StepHeatMap::event(QEvent *e)
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

void StepHeatMap::mousePressEvent(QMouseEvent *e)
{
    size_t k = 0, w = 0;
    if (e->button() == Qt::LeftButton && cellAt(e->position(), &k, &w))
        emit cellActivated(int(k), int(w));
}

} // namespace syncline::ui
