#include "overviewstrip.h"

#include "timelinegeometry.h"
#include "viewstyle.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace syncline::ui {

OverviewStrip::OverviewStrip(ZoomControl *zoom, QWidget *parent) : QWidget(parent), m_zoom(zoom)
{
    setMinimumHeight(36);
    setMaximumHeight(60);
    setToolTip(tr("Overview of the whole job: click or drag to move the view"));
    connect(zoom, &ZoomControl::rangeChanged, this, qOverload<>(&QWidget::update));
}

void OverviewStrip::setScene(std::shared_ptr<TimelineScene> scene)
{
    m_scene = std::move(scene);
    m_image = QImage();
    update();
}

void OverviewStrip::sceneChanged()
{
    m_image = QImage();
    update();
}

void OverviewStrip::setLeftMargin(int px)
{
    m_leftMargin = px;
    m_image = QImage();
    update();
}

TimeScale OverviewStrip::scale() const
{
    if (!m_scene)
        return {};
    const int64_t begin = m_scene->beginNs();
    return TimeScale(begin, std::max(m_scene->endNs(), begin + 1),
                     std::max(1, width() - m_leftMargin));
}

int64_t OverviewStrip::timeAtX(double x) const
{
    return m_scene ? scale().timeAt(x - m_leftMargin) : 0;
}

void OverviewStrip::renderImage()
{
    const ViewStyle style = ViewStyle::fromPalette(palette());
    const int w = std::max(1, width() - m_leftMargin);
    const int h = height();
    m_image = QImage(w, h, QImage::Format_ARGB32_Premultiplied);
    m_image.fill(style.ruler);
    m_imageRevision = m_scene->revision();
    std::vector<int> workers;
    for (const LayoutRow &r : m_scene->layout().rows())
        if (r.kind == LayoutRow::GroupHeader)
            workers.push_back(r.worker);
    if (workers.empty())
        return;
    const double band = std::max(1.0, double(h - 4) / double(workers.size()));
    const TimeScale s = scale();
    QPainter p(&m_image);
    const bool search = m_scene->searchActive();
    const double bh = std::max(1.0, band - (band > 3 ? 1 : 0));
    for (size_t k = 0; k < workers.size(); ++k) {
        const double y = 2 + k * band;
        if (y > h)
            break;
        const auto [first, last] = m_scene->modelsOf(workers[k]);
        for (int x = 0; x < w; ++x) {
            const int64_t t0 = s.timeAt(x);
            const int64_t t1 = s.timeAt(x + 1);
            // The same summary as a collapsed group: the innermost event at the column's centre.
            const EventRef ref = innermostAt(*m_scene, workers[k], t0 + (t1 - t0) / 2);
            if (ref.valid()) {
                const uint32_t name = m_scene->model(ref.model).nameId(ref.index);
                QColor c = m_scene->colours().nameColour(name, style.dark);
                if (search && !m_scene->nameMatches(name))
                    c.setAlphaF(0.3);
                p.fillRect(QRectF(x, y, 1, bh), c);
            }
            if (search && matchStartsIn(first, last, t0, t1))
                p.fillRect(QRectF(x, y, 1, bh), style.match);
        }
        paintWorkerEnd(p, workers[k], y, bh, w, s);
    }
}

// A worker that crashed, ended without a close record or went silent: its band is tinted in
// the state's colour after its last record, with a tick where the data stops.
void OverviewStrip::paintWorkerEnd(QPainter &p, int worker, double y, double h, int width,
                                   const TimeScale &scale) const
{
    const WorkerStatus status = m_scene->workerStatus(worker);
    if (!WorkerStatuses::isWarning(status))
        return;
    int64_t end = m_scene->beginNs();
    const auto [first, last] = m_scene->modelsOf(worker);
    for (int mi = first; mi < last; ++mi)
        end = std::max(end, m_scene->model(mi).globalEnd(m_scene->clockMode()));
    const double x = std::clamp(scale.x(end), 0.0, double(width - 2));
    QColor c = WorkerStatuses::colour(status);
    p.fillRect(QRectF(x, y, 2, std::max(h, 2.0)), c);
    c.setAlphaF(0.35);
    p.fillRect(QRectF(x + 2, y, width - x - 2, std::max(h, 2.0)), c);
}

// Whether a find match of models [first, last) starts in [t0, t1): per depth row one binary
// search over its match positions (sorted by start).
bool OverviewStrip::matchStartsIn(int first, int last, int64_t t0, int64_t t1) const
{
    for (int mi = first; mi < last; ++mi) {
        const TrackModel &m = m_scene->model(mi);
        const sync::ClockMap &map = m.map(m_scene->clockMode());
        const int64_t l0 = map.toLocal(t0), l1 = map.toLocal(t1);
        const std::vector<int64_t> &st = m.track().localStart;
        for (int d = 0; d < m.depthCount(); ++d) {
            const std::vector<uint32_t> &row = m.depthRow(d);
            const std::vector<uint32_t> &pos = m_scene->matchPositions(mi, d);
            const auto it = std::lower_bound(pos.begin(), pos.end(), l0,
                                             [&](uint32_t p, int64_t v) { return st[row[p]] < v; });
            if (it != pos.end() && st[row[*it]] < l1)
                return true;
        }
    }
    return false;
}

void OverviewStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const ViewStyle style = ViewStyle::fromPalette(palette());
    p.fillRect(rect(), style.gutter);
    p.setPen(style.mutedText);
    p.setFont(style.smallFont);
    if (!m_scene) {
        p.drawText(QRect(6, 0, m_leftMargin - 8, height()), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("overview"));
        return;
    }
    p.drawText(QRect(6, 0, m_leftMargin - 8, height()), Qt::AlignVCenter | Qt::AlignLeft,
               tr("overview") + statusSummary());
    if (m_image.isNull() ||
        m_image.size() != QSize(std::max(1, width() - m_leftMargin), height()) ||
        m_imageRevision != m_scene->revision())
        renderImage();
    p.drawImage(m_leftMargin, 0, m_image);
    const TimeScale s = scale();
    const double x0 = m_leftMargin + s.x(m_zoom->rangeStart());
    const double x1 = m_leftMargin + s.x(m_zoom->rangeEnd());
    QColor shade = style.dark ? QColor(0, 0, 0, 110) : QColor(255, 255, 255, 150);
    p.fillRect(QRectF(m_leftMargin, 0, x0 - m_leftMargin, height()), shade);
    p.fillRect(QRectF(x1, 0, width() - x1, height()), shade);
    p.setPen(QPen(style.selection, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(x0, 0.75, std::max(2.0, x1 - x0), height() - 1.5));
}

// " · 1 crashed · 2 silent": the workers whose state is a warning, by state.
QString OverviewStrip::statusSummary() const
{
    QString out;
    for (WorkerStatus s : {WorkerStatus::Crashed, WorkerStatus::Ended, WorkerStatus::Silent}) {
        const auto &all = m_scene->workerStatuses();
        const auto n = std::count(all.begin(), all.end(), s);
        if (n > 0)
            out += QStringLiteral(" · %1 %2").arg(n).arg(WorkerStatuses::name(s));
    }
    return out;
}

void OverviewStrip::centreAt(double x)
{
    const int64_t t = timeAtX(x);
    const int64_t w = m_zoom->rangeDuration();
    m_zoom->setRange(t - w / 2, t - w / 2 + w);
}

void OverviewStrip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && event->position().x() >= m_leftMargin)
        centreAt(event->position().x());
}

void OverviewStrip::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton && event->position().x() >= m_leftMargin)
        centreAt(event->position().x());
}

} // namespace syncline::ui
