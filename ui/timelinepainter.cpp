#include "timelinepainter.h"

#include "counterpainter.h"
#include "timeformat.h"

#include <QFontMetricsF>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace syncline::ui {

namespace {

int64_t floorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}


} // namespace

std::vector<RulerTick> TimelinePainter::rulerTicks(int64_t rangeStart, int64_t rangeEnd,
                                                   int64_t origin, double width,
                                                   double minSpacingPx, int64_t *stepNs)
{
    std::vector<RulerTick> ticks;
    const TimeScale scale(rangeStart, rangeEnd, width);
    if (!scale.valid())
        return ticks;
    const int64_t step = niceStep(minSpacingPx * scale.nsPerPx());
    if (stepNs)
        *stepNs = step;
    // A {1,2,5} step: majors every 5 steps for 1 and 2, every 2 steps for 5 (10× boundaries).
    int64_t mantissa = step;
    while (mantissa >= 10)
        mantissa /= 10;
    const int64_t majorEvery = mantissa == 5 ? 2 : 5;
    for (int64_t k = floorDiv(rangeStart - origin, step);; ++k) {
        const int64_t t = origin + k * step;
        if (t > rangeEnd)
            break;
        if (t < rangeStart)
            continue;
        ticks.push_back({t, scale.x(t), k % majorEvery == 0});
    }
    return ticks;
}

// Where the ruler's ticks count from: the display origin, or with wall-clock labels a time near
// rangeStart whose wall clock is a multiple of the tick step, so the ticks fall on round wall
// times (12:00:01.500, not 12:00:01.537). Taken at rangeStart so a drifting clock map cannot
// move the ticks off round by more than its drift over the visible range.
int64_t TimelinePainter::tickOrigin(const TimelineScene &scene, bool wallClock, int64_t rangeStart,
                                          int64_t rangeEnd, double width,
                                          double minSpacingPx)
{
    int64_t wall = 0;
    const TimeScale scale(rangeStart, rangeEnd, width);
    if (!wallClock || !scale.valid() || !scene.wallClock(rangeStart, &wall))
        return scene.originNs();
    const int64_t step = niceStep(minSpacingPx * scale.nsPerPx());
    return rangeStart - (wall - floorDiv(wall, step) * step);
}

QRectF TimelinePainter::selectionLabelRect(const QRectF &selection, double textWidth,
                                           const QRectF &area)
{
    // Never narrower than the text (a narrow range's label would be clipped on both sides),
    // centred on the range, and kept inside the ruler.
    const double w = std::min(std::max(selection.width(), textWidth + 8), area.width());
    double x = selection.center().x() - w / 2;
    x = std::clamp(x, area.left(), area.right() - w);
    return QRectF(x, selection.top(), w, selection.height());
}

QColor TimelinePainter::headerFill(const TimelineScene &scene, int worker, const ViewStyle &style)
{
    const WorkerStatus status = scene.workerStatus(worker);
    if (status != WorkerStatus::Crashed && status != WorkerStatus::Silent)
        return style.headerBand;
    // Tinted towards the state's colour, enough to find the row among a thousand.
    const QColor tint = WorkerStatuses::colour(status);
    const QColor b = style.headerBand;
    const double a = style.dark ? 0.35 : 0.25;
    return QColor::fromRgbF(b.redF() + (tint.redF() - b.redF()) * a,
                            b.greenF() + (tint.greenF() - b.greenF()) * a,
                            b.blueF() + (tint.blueF() - b.blueF()) * a);
}

// Right-aligned badges on a group header: the worker's state ("crashed" filled red, "silent",
// "ended"; "finished" as a quiet ✓ unless there is room for the word) and "culprit" when the
// diagnosis names its rank. Returns the width they take.
double TimelinePainter::paintHeaderBadges(QPainter &p, const QRectF &row,
                                          const TimelineScene &scene, int worker,
                                          const ViewStyle &style, double labelWidth)
{
    const WorkerStatus status = scene.workerStatus(worker);
    const bool culprit = scene.culpritMarks().isCulprit(worker);
    if (status == WorkerStatus::Unknown && !culprit)
        return 0;
    p.save();
    p.setFont(style.smallFont);
    const QFontMetricsF fm(style.smallFont);
    double right = row.right() - 4;
    const double h = std::min(row.height() - 4, fm.height() + 2);
    const double y = row.center().y() - h / 2;
    const auto pill = [&](const QString &text, const QColor &fill, bool filled) {
        const double w = fm.horizontalAdvance(text) + 8;
        const QRectF box(right - w, y, w, h);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(filled ? Qt::NoPen : QPen(fill, 1));
        p.setBrush(filled ? QBrush(fill) : QBrush(Qt::NoBrush));
        p.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
        p.setPen(filled ? QColor(0xfa, 0xfa, 0xfa) : fill);
        p.drawText(box, Qt::AlignCenter, text);
        right -= w + 3;
    };
    if (culprit)
        pill(QStringLiteral("culprit"), QColor(0xe0, 0x1e, 0x1e), false);
    if (status == WorkerStatus::Finished) {
        const QString word = WorkerStatuses::name(status);
        const bool room = right - row.left() - labelWidth > fm.horizontalAdvance(word) + 8;
        const QString text = room ? word : QStringLiteral("✓");
        const double w = fm.horizontalAdvance(text) + 4;
        p.setPen(WorkerStatuses::colour(status));
        p.drawText(QRectF(right - w, row.top(), w, row.height()), Qt::AlignCenter, text);
        right -= w + 3;
    } else if (WorkerStatuses::isWarning(status)) {
        pill(WorkerStatuses::name(status), WorkerStatuses::colour(status), true);
    }
    p.restore();
    return row.right() - 4 - right;
}

QColor TimelinePainter::textColourOn(const QColor &fill)
{
    const double lum = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return lum > 0.55 ? QColor(0x15, 0x17, 0x1a) : QColor(0xfa, 0xfa, 0xfa);
}

void TimelinePainter::paintFrame(QPainter &p, const FrameRects &rects, const TimelineScene &scene,
                                 const TimelineGeometry &g, const ViewStyle &style,
                                 const FrameOptions &options)
{
    const GeometryRequest &req = g.request;
    p.fillRect(rects.events, style.background);
    p.save();
    p.setClipRect(rects.events);
    p.translate(rects.events.topLeft());
    const QRectF local(0, 0, rects.events.width(), rects.events.height());
    paintRowBands(p, local, scene, req.top, style);
    // Grid lines under the events, at the ruler's ticks.
    int64_t step = 0;
    const auto ticks =
        rulerTicks(req.rangeStart, req.rangeEnd,
                   tickOrigin(scene, options.wallClock, req.rangeStart, req.rangeEnd,
                              local.width(), 90),
                   local.width(), 90, &step);
    p.setPen(style.grid);
    for (const RulerTick &t : ticks)
        p.drawLine(QPointF(std::round(t.x) + 0.5, 0),
                   QPointF(std::round(t.x) + 0.5, local.height()));
    if (options.selectionEnd > options.selectionStart) {
        const TimeScale scale = req.scale();
        const double x0 = scale.x(options.selectionStart);
        const double x1 = TimeScale::visibleEnd(x0, scale.x(options.selectionEnd));
        p.fillRect(QRectF(x0, 0, x1 - x0, local.height()), style.selectionRange);
    }
    paintEvents(p, g, scene, style);
    LinkPainter::paint(p, g.links, style);
    CulpritMarks::paint(p, g.culpritMarks);
    CounterPainter::paintRows(p, local, scene, req, style);
    if (options.cursorX >= 0) {
        p.setPen(QPen(style.cursor, 1));
        p.drawLine(QPointF(options.cursorX, 0), QPointF(options.cursorX, local.height()));
    }
    p.restore();
    paintGutter(p, rects.gutter, scene, req.top, style);
    paintRuler(p, rects.ruler, scene, req.rangeStart, req.rangeEnd, style, options);
}

void TimelinePainter::paintRowBands(QPainter &p, const QRectF &area, const TimelineScene &scene,
                                    double top, const ViewStyle &style)
{
    const RowLayout &layout = scene.layout();
    const auto [first, last] = layout.rowsIn(top, top + area.height());
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = layout.rows()[i];
        const QRectF band(area.left(), r.y - top, area.width(), r.height);
        if (r.kind == LayoutRow::GroupHeader) {
            p.fillRect(band, headerFill(scene, r.worker, style));
            p.fillRect(QRectF(band.left(), band.top(), band.width(), 1), style.separator);
        } else if (r.model % 2 == 1) {
            p.fillRect(band, style.rowBand);
        }
    }
}

void TimelinePainter::paintEvents(QPainter &p, const TimelineGeometry &g,
                                  const TimelineScene &scene, const ViewStyle &style)
{
    p.setPen(Qt::NoPen);
    const bool dimAll = scene.searchActive();
    for (const ColourBatch &b : g.batches) {
        QColor c = scene.colours().colour(b.colourIndex, style.dark);
        if (b.dimmed)
            c.setAlphaF(0.22);
        p.setBrush(c);
        p.drawRects(b.rects.data(), int(b.rects.size()));
    }
    // Folded runs: the colours of what they hold (TimelineGeometry::foldBatches), under a fine
    // hatch so a block never reads as one long event.
    for (const ColourBatch &b : g.foldBatches) {
        QColor c = scene.colours().colour(b.colourIndex, style.dark);
        c.setAlphaF(b.dimmed ? 0.22 : 0.85);
        p.setBrush(c);
        p.drawRects(b.rects.data(), int(b.rects.size()));
    }
    // Inside folds: the share of each px column spent waiting, as a bar from the bottom.
    QColor wait = style.wait;
    if (dimAll)
        wait.setAlphaF(0.22);
    p.setBrush(wait);
    p.drawRects(g.waitRects.data(), int(g.waitRects.size()));
    p.setBrush(
        QBrush(style.dark ? QColor(0, 0, 0, 70) : QColor(255, 255, 255, 90), Qt::BDiagPattern));
    for (const FoldBlock &f : g.folds) {
        if (f.rect.width() >= 6)
            p.drawRect(f.rect);
    }
    // Find matches inside folds and collapsed summaries: a bar above and below.
    p.setBrush(style.match);
    for (const QRectF &r : g.matchMarks) {
        p.drawRect(QRectF(r.left(), r.top(), std::max(r.width(), 2.0), 3));
        p.drawRect(QRectF(r.left(), r.bottom() - 3, std::max(r.width(), 2.0), 3));
    }
    // Open events: hatched and with a dashed right edge (they run to the end of the data).
    p.setBrush(QBrush(QColor(0, 0, 0, 90), Qt::FDiagPattern));
    for (const QRectF &r : g.openRects)
        p.drawRect(r);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(style.text, 1, Qt::DashLine));
    for (const QRectF &r : g.openRects)
        p.drawLine(r.topRight(), r.bottomRight());
    p.setPen(QPen(style.overdue, 2));
    for (const QRectF &r : g.overdueRects)
        p.drawRect(r.adjusted(1, 1, -1, -1));
    // Instants: a small diamond.
    p.setPen(Qt::NoPen);
    p.setBrush(style.text);
    for (const QPointF &c : g.instants) {
        const QPointF pts[4] = {c + QPointF(0, -4), c + QPointF(4, 0), c + QPointF(0, 4),
                                c + QPointF(-4, 0)};
        p.drawConvexPolygon(pts, 4);
    }
    // Labels, elided to fit.
    p.setFont(style.eventFont);
    const QFontMetricsF fm(style.eventFont);
    for (const EventLabel &l : g.labels) {
        const QRectF tr = l.rect.adjusted(4, 0, -3, 0);
        if (tr.height() < 0.7 * fm.height()) // text cut to its middle reads as another name
            continue;
        const QString text = fm.elidedText(scene.displayName(l.nameId), Qt::ElideRight, tr.width());
        if (text.isEmpty() || text == QStringLiteral("…"))
            continue;
        QColor tc =
            textColourOn(scene.colours().colour(scene.colours().colourIndex(l.nameId), style.dark));
        if (l.dimmed)
            tc = style.mutedText;
        p.setPen(tc);
        p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    for (const FoldBlock &f : g.folds) {
        if (f.rect.width() < 70)
            continue;
        const QString text = QStringLiteral("%L1 events").arg(f.count);
        if (fm.horizontalAdvance(text) + 8 > f.rect.width())
            continue;
        p.setPen(dimAll ? style.mutedText
                        : textColourOn(scene.colours().nameColour(f.nameId, style.dark)));
        p.drawText(f.rect.adjusted(4, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    if (!g.selectedRect.isNull()) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(style.selection, 2));
        p.drawRect(g.selectedRect.adjusted(-1, -1, 1, 1));
    }
}

void TimelinePainter::paintGutter(QPainter &p, const QRectF &area, const TimelineScene &scene,
                                  double top, const ViewStyle &style)
{
    if (area.width() <= 0)
        return;
    p.save();
    p.setClipRect(area);
    p.fillRect(area, style.gutter);
    const RowLayout &layout = scene.layout();
    const auto [first, last] = layout.rowsIn(top, top + area.height());
    const QFontMetricsF fm(style.trackFont);
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = layout.rows()[i];
        const QRectF row(area.left(), area.top() + r.y - top, area.width(), r.height);
        if (r.kind == LayoutRow::GroupHeader) {
            p.fillRect(row, headerFill(scene, r.worker, style));
            p.fillRect(QRectF(row.left(), row.top(), row.width(), 1), style.separator);
            const Worker &w = scene.timeline().workers[size_t(r.worker)];
            // A worker's pinned threads: its label, no collapse arrow (the group below has it).
            const QString arrow = r.pinnedThreads ? QStringLiteral("   ")
                                  : r.collapsed   ? QStringLiteral("▸ ")
                                                  : QStringLiteral("▾ ");
            const QString label = arrow + QString::fromStdString(w.label());
            const QFontMetricsF bm(style.boldFont);
            const double badges =
                paintHeaderBadges(p, row, scene, r.worker, style, bm.horizontalAdvance(label) + 10);
            p.setFont(style.boldFont);
            p.setPen(style.text);
            p.drawText(row.adjusted(6, 0, -4 - badges, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       bm.elidedText(label, Qt::ElideRight, row.width() - 10 - badges));
        } else if (r.kind == LayoutRow::CounterRow) {
            CounterPainter::paintGutterRow(p, row, scene, r, style);
        } else if (r.firstOfTrack) {
            // The thread's name is centred on all its rows, so it stays legible when the rows
            // are shorter than the text (a fitted image export).
            QRectF track = row;
            for (size_t j = i + 1; j < layout.rows().size(); ++j) {
                const LayoutRow &n = layout.rows()[j];
                if (n.kind != LayoutRow::EventRow || n.model != r.model || n.firstOfTrack)
                    break;
                track.setBottom(area.top() + n.y - top + n.height);
            }
            const TrackModel &m = scene.model(r.model);
            const EventTrack &t = m.track();
            const QString name = QString::fromStdString(t.label());
            p.setFont(style.trackFont);
            p.setPen(style.mutedText);
            p.drawText(track.adjusted(18, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(name, Qt::ElideRight, row.width() - 22));
        }
    }
    p.setPen(style.separator);
    p.drawLine(QPointF(area.right() - 0.5, area.top()), QPointF(area.right() - 0.5, area.bottom()));
    p.restore();
}

void TimelinePainter::paintRuler(QPainter &p, const QRectF &area, const TimelineScene &scene,
                                 int64_t rangeStart, int64_t rangeEnd, const ViewStyle &style,
                                 const FrameOptions &options)
{
    if (area.height() <= 0)
        return;
    p.save();
    p.setClipRect(area);
    p.fillRect(area, style.ruler);
    p.setPen(style.separator);
    p.drawLine(QPointF(area.left(), area.bottom() - 0.5),
               QPointF(area.right(), area.bottom() - 0.5));
    int64_t step = 1;
    const auto ticks = rulerTicks(
        rangeStart, rangeEnd,
        tickOrigin(scene, options.wallClock, rangeStart, rangeEnd, area.width(), 90),
        area.width(), 90, &step);
    p.setFont(style.smallFont);
    const QFontMetricsF fm(style.smallFont);
    // The measure's label (length · events) over the selected range; tick labels it would
    // cover are left out rather than half hidden under it.
    const TimeScale scale(rangeStart, rangeEnd, area.width());
    const bool measuring = options.selectionEnd > options.selectionStart;
    QRectF sel, label, backdrop;
    QString measure;
    if (measuring) {
        const double x0 = area.left() + scale.x(options.selectionStart);
        const double x1 = area.left() + scale.x(options.selectionEnd);
        sel = QRectF(x0, area.top(), TimeScale::visibleEnd(x0, x1) - x0, area.height());
        measure = formatDuration(options.selectionEnd - options.selectionStart);
        if (options.selectionEvents >= 0)
            measure += QStringLiteral(" · %L1 events").arg(qlonglong(options.selectionEvents));
        label = selectionLabelRect(sel, fm.horizontalAdvance(measure), area);
        const double tw = fm.horizontalAdvance(measure) + 8;
        backdrop = QRectF(label.center().x() - tw / 2, label.top() + 2, tw, label.height() - 4)
                       .intersected(area);
        p.fillRect(sel, style.selectionRange);
    }
    for (const RulerTick &t : ticks) {
        const double x = area.left() + std::round(t.x) + 0.5;
        p.setPen(t.major ? style.text : style.mutedText);
        p.drawLine(QPointF(x, area.bottom() - (t.major ? 9 : 5)), QPointF(x, area.bottom()));
        int64_t wall = 0;
        const QString text = options.wallClock && scene.wallClock(t.time, &wall)
                                 ? formatWallClock(wall, step)
                                 : formatTick(t.time - scene.originNs(), step);
        const QRectF box(x + 3, area.top(), fm.horizontalAdvance(text) + 4, area.height() - 6);
        if (measuring && box.intersects(backdrop))
            continue;
        p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    if (measuring) {
        p.fillRect(backdrop, style.ruler);
        p.fillRect(backdrop, style.selectionRange);
        p.setPen(style.selection);
        p.drawText(label, Qt::AlignCenter, measure);
    }
    if (options.cursorX >= 0) {
        p.setPen(QPen(style.cursor, 1));
        const double x = area.left() + options.cursorX;
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
    }
    p.restore();
}

void TimelinePainter::paintLegend(QPainter &p, const QRectF &area, const TimelineScene &scene,
                                  const std::vector<uint32_t> &nameIds, const ViewStyle &style)
{
    p.save();
    p.setClipRect(area);
    p.fillRect(area, style.ruler);
    p.setFont(style.smallFont);
    const QFontMetricsF fm(style.smallFont);
    double x = area.left() + 8;
    const double cy = area.center().y();
    for (uint32_t id : scene.legendEntries(nameIds)) {
        const QString text = fm.elidedText(scene.legendLabel(id), Qt::ElideRight, 160);
        const double w = 14 + fm.horizontalAdvance(text) + 14;
        if (x + w > area.right())
            break;
        p.fillRect(QRectF(x, cy - 5, 10, 10), scene.colours().nameColour(id, style.dark));
        p.setPen(style.text);
        p.drawText(QRectF(x + 14, area.top(), w - 14, area.height()),
                   Qt::AlignVCenter | Qt::AlignLeft, text);
        x += w;
    }
    p.restore();
}

} // namespace syncline::ui
