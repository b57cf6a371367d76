// CounterPainter — see counterpainter.h.
#include "counterpainter.h"

#include "timeformat.h"
#include "timelinescene.h"

#include <QFontMetricsF>
#include <QPointF>
#include <QRect>

#include <cmath>

namespace syncline::ui {

namespace {

constexpr double kMargin = 3;

double yOf(double v, const CounterModel &m, const QRectF &band)
{
    const double f = (v - m.axisMin()) / (m.axisMax() - m.axisMin());
    return band.bottom() - kMargin - f * (band.height() - 2 * kMargin);
}

} // namespace

QColor CounterPainter::colour(int slot, bool dark)
{
    static const QRgb kLight[] = {0x1f77b4, 0x2ca02c, 0x9467bd, 0xd62728, 0x8c564b, 0x17becf};
    static const QRgb kDark[] = {0x6baed6, 0x74c476, 0xb39ddb, 0xf28e8e, 0xc49c94, 0x80deea};
    const int i = slot % 6;
    return QColor(dark ? kDark[i] : kLight[i]);
}

QString CounterPainter::formatValue(double v)
{
    const double a = std::fabs(v);
    struct Unit
    {
        double scale;
        const char *suffix;
    };
    static const Unit kUnits[] = {
        {1e15, " P"}, {1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
    for (const Unit &u : kUnits)
        if (a >= u.scale)
            return QString::number(v / u.scale, 'g', 4) + QString::fromLatin1(u.suffix);
    if (a != 0 && a < 1e-3)
        return QString::number(v, 'g', 3);
    return QString::number(v, 'g', 4);
}

void CounterPainter::paintRows(QPainter &p, const QRectF &area, const TimelineScene &scene,
                               const GeometryRequest &req, const ViewStyle &style)
{
    const RowLayout &layout = scene.layout();
    const auto [first, last] = layout.rowsIn(req.top, req.top + area.height());
    const int width = int(std::ceil(area.width()));
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = layout.rows()[i];
        if (r.kind != LayoutRow::CounterRow || r.counter < 0)
            continue;
        const CounterModel &m = scene.counterModels()[size_t(r.counter)];
        const QRectF band(area.left(), r.y - req.top, area.width(), r.height);
        p.fillRect(QRectF(band.left(), band.bottom() - 0.5, band.width(), 0.5), style.grid);
        const std::vector<CounterColumn> cols = m.columns(req.scale(), width, scene.clockMode());
        const QColor c = colour(scene.counterColourSlot(r.counter), style.dark);
        QColor fill = c;
        fill.setAlphaF(0.28);
        const double base = yOf(std::clamp(0.0, m.axisMin(), m.axisMax()), m, band);
        // Per pixel column, whole-pixel rectangles (the raster engine's span fill, no polygon
        // rasterising): the area between the axis base and the maximum, translucent, and the
        // column's range [min, max] as a solid stroke at least one pixel tall (a flat stretch
        // still reads as a line). A run of columns at the same height is one rectangle.
        const int top = int(std::floor(band.top()));
        const int baseY = int(std::lround(base));
        std::vector<QRect> areas, strokes;
        areas.reserve(cols.size());
        strokes.reserve(cols.size());
        for (int x = 0; x < width; ++x) {
            const CounterColumn &k = cols[size_t(x)];
            if (!k.has)
                continue;
            const int yHi = std::max(top, int(std::lround(yOf(k.hi, m, band))));
            const int yLo = std::max(yHi, int(std::lround(yOf(k.lo, m, band))));
            const int left = int(area.left()) + x;
            if (yHi != baseY) { // between the axis base and the maximum (below it when < 0)
                const int a0 = std::min(yHi, baseY), a1 = std::max(yHi, baseY);
                if (!areas.empty() && areas.back().right() == left - 1 &&
                    areas.back().top() == a0 && areas.back().bottom() == a1 - 1)
                    areas.back().setRight(left);
                else
                    areas.emplace_back(left, a0, 1, a1 - a0);
            }
            if (!strokes.empty() && strokes.back().right() == left - 1 &&
                strokes.back().top() == yHi && strokes.back().bottom() == yLo)
                strokes.back().setRight(left);
            else
                strokes.emplace_back(left, yHi, 1, yLo - yHi + 1);
        }
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawRects(areas.data(), int(areas.size()));
        p.setBrush(c);
        p.drawRects(strokes.data(), int(strokes.size()));
    }
}

void CounterPainter::paintGutterRow(QPainter &p, const QRectF &row, const TimelineScene &scene,
                                    const LayoutRow &r, const ViewStyle &style)
{
    const CounterModel &m = scene.counterModels()[size_t(r.counter)];
    const QRectF inner = row.adjusted(18, 1, -6, -1);
    p.fillRect(QRectF(row.left() + 8, row.top() + 6, 6, 6),
               colour(scene.counterColourSlot(r.counter), style.dark));
    p.setFont(style.font);
    p.setPen(style.mutedText);
    const QFontMetricsF fm(style.font);
    const QString maxText = formatValue(m.axisMax()), minText = formatValue(m.axisMin());
    const QFontMetricsF sm(style.smallFont);
    const double axisW = std::max(sm.horizontalAdvance(maxText), sm.horizontalAdvance(minText)) + 6;
    p.drawText(QRectF(inner.left(), inner.top(), inner.width() - axisW, fm.height()),
               Qt::AlignTop | Qt::AlignLeft,
               fm.elidedText(QString::fromStdString(m.counter().label()), Qt::ElideRight,
                             inner.width() - axisW));
    // The value axis: top and bottom values at the right edge, beside tick marks.
    p.setFont(style.smallFont);
    p.setPen(style.text);
    const QRectF axis(inner.right() - axisW, inner.top(), axisW, inner.height());
    p.drawText(axis, Qt::AlignTop | Qt::AlignRight, maxText);
    p.drawText(axis, Qt::AlignBottom | Qt::AlignRight, minText);
    p.setPen(style.mutedText);
    p.drawLine(QPointF(row.right() - 4, row.top() + kMargin),
               QPointF(row.right(), row.top() + kMargin));
    p.drawLine(QPointF(row.right() - 4, row.bottom() - kMargin),
               QPointF(row.right(), row.bottom() - kMargin));
}

QString CounterPainter::tooltipAt(const TimelineScene &scene, const GeometryRequest &req,
                                  QPointF pos)
{
    const RowLayout &layout = scene.layout();
    const int ri = layout.rowAt(req.top + pos.y());
    if (ri < 0)
        return {};
    const LayoutRow &r = layout.rows()[size_t(ri)];
    if (r.kind != LayoutRow::CounterRow || r.counter < 0)
        return {};
    const CounterModel &m = scene.counterModels()[size_t(r.counter)];
    const int64_t t = req.scale().timeAt(pos.x());
    const int s = m.sampleAt(t, scene.clockMode());
    if (s < 0)
        return {};
    const CounterTrack &c = m.counter();
    const Worker &w = scene.timeline().workers[m.worker()];
    const int64_t sampleT = w.map(scene.clockMode()).toGlobal(c.localTs[size_t(s)]);
    return QStringLiteral("<b>%1</b> = %2<br>sampled at %3 (%4 before the cursor)<br>%5")
        .arg(QString::fromStdString(c.label()).toHtmlEscaped(),
             QString::number(c.value[size_t(s)], 'g', 10),
             formatDuration(sampleT - scene.originNs()), formatDuration(t - sampleT),
             QString::fromStdString(w.label()).toHtmlEscaped());
}

} // namespace syncline::ui
