#include "imageexport.h"

#include "timelinepainter.h"

#include "timeline/report/legendorder.h"
#include "timeline/report/stats.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QGuiApplication>
#include <QFontMetricsF>
#include <QImage>
#include <QImageWriter>
#include <QSvgGenerator>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include <sys/stat.h>
#include <unistd.h>

namespace syncline::ui {

namespace {

// A directory we own with mode 0700 (what Qt checks for XDG_RUNTIME_DIR), not a symlink.
bool privateDir(const std::string &path)
{
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
           (st.st_mode & 0777) == 0700;
}

} // namespace

std::string ensureRuntimeDir()
{
    if (const char *set = std::getenv("XDG_RUNTIME_DIR"); set && *set)
        return set;
    const char *tmp = std::getenv("TMPDIR");
    const std::string base = tmp && *tmp ? tmp : "/tmp";
    std::string dir = base + "/syncline-runtime-" + std::to_string(::getuid());
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        dir.clear();
    if (!dir.empty() && !privateDir(dir)) { // someone else's, a symlink, or loose permissions
        std::string pattern = base + "/syncline-runtime-XXXXXX";
        dir = ::mkdtemp(pattern.data()) ? pattern : std::string();
    }
    if (!dir.empty())
        qputenv("XDG_RUNTIME_DIR", QByteArray::fromStdString(dir));
    return dir;
}

namespace {

bool ensureGuiApplication(std::string *error)
{
    if (QCoreApplication::instance()) {
        if (qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
            return true;
        if (error)
            *error = "image export needs a QGuiApplication, but a QCoreApplication is running";
        return false;
    }
    const bool haveDisplay =
        !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (!haveDisplay && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    ensureRuntimeDir(); // else Qt warns "QStandardPaths: XDG_RUNTIME_DIR not set" on stderr
    static int argc = 1;
    static char name[] = "syncline";
    static char *argv[] = {name, nullptr};
    static QGuiApplication *app = new QGuiApplication(argc, argv); // lives until exit
    (void)app;
    return true;
}

// The legend: LegendOrder (the view's rule) over the image's range, visible names only, at
// most `limit`.
std::vector<uint32_t> legendNames(const Timeline &timeline, const TimelineScene &scene,
                                  int64_t start, int64_t end, size_t limit)
{
    StatsQuery q;
    q.useRange = true;
    q.beginNs = start;
    q.endNs = end;
    q.perRank = false;
    q.mode = scene.clockMode();
    std::vector<uint32_t> out;
    for (uint32_t id : LegendOrder::byTotal(Stats::compute(timeline, q)))
        if (out.size() < limit && scene.nameVisible(id))
            out.push_back(id);
    return out;
}

RowMetrics fittedMetrics(const TimelineScene &scene, double available)
{
    int headers = 0;
    int rows = 0;
    int tracks = 0;
    int counters = 0;
    for (const LayoutRow &r : scene.layout().rows()) {
        headers += r.kind == LayoutRow::GroupHeader;
        rows += r.kind == LayoutRow::EventRow;
        tracks += r.kind == LayoutRow::EventRow && r.firstOfTrack;
        counters += r.kind == LayoutRow::CounterRow;
    }
    RowMetrics m;
    if (rows == 0 && counters == 0)
        return m;
    // A counter row is about 2.2 event rows tall (40 px beside 18), shrinking with them.
    const double fixed = headers * m.headerHeight + (tracks + counters) * m.trackGap;
    m.rowHeight = std::clamp((available - fixed) / (rows + 2.2 * counters), 6.0, 18.0);
    m.counterHeight = std::clamp(2.2 * m.rowHeight, 14.0, m.counterHeight);
    return m;
}

void render(QPainter &p, const TimelineScene &scene, const ImageExportRequest &req, int64_t start,
            int64_t end, const std::vector<uint32_t> &legend)
{
    const ViewStyle style = (req.dark ? ViewStyle::darkStyle() : ViewStyle::light())
                                .fittedToRows(scene.layout().metrics().rowHeight);
    const double w = req.width;
    const double h = req.height;
    const double rulerH = 26;
    const double legendH = legend.empty() ? 0 : 24;
    const double gutterW = std::clamp(w * 0.2, 80.0, 240.0);
    p.fillRect(QRectF(0, 0, w, h), style.background);
    FrameRects rects;
    rects.ruler = QRectF(gutterW, 0, w - gutterW, rulerH);
    rects.gutter = QRectF(0, rulerH, gutterW, h - rulerH - legendH);
    rects.events = QRectF(gutterW, rulerH, w - gutterW, h - rulerH - legendH);
    p.fillRect(QRectF(0, 0, gutterW, rulerH), style.ruler);
    p.setPen(style.mutedText);
    p.setFont(style.smallFont);
    p.drawText(QRectF(6, 0, gutterW - 8, rulerH), Qt::AlignVCenter | Qt::AlignLeft,
               req.mode == ClockMode::Raw ? QStringLiteral("raw clocks")
                                          : QStringLiteral("corrected clocks"));
    GeometryRequest g;
    g.rangeStart = start;
    g.rangeEnd = end;
    g.width = rects.events.width();
    g.top = 0;
    g.height = rects.events.height();
    const TimelineGeometry geometry = computeGeometry(scene, g);
    FrameOptions options;
    options.wallClock = req.wallClock;
    TimelinePainter::paintFrame(p, rects, scene, geometry, style, options);
    if (scene.layout().totalHeight() > rects.events.height()) {
        p.setPen(style.mutedText);
        p.drawText(rects.events.adjusted(0, 0, -8, -4), Qt::AlignRight | Qt::AlignBottom,
                   QStringLiteral("more rows below — increase --height"));
    }
    if (!legend.empty())
        TimelinePainter::paintLegend(p, QRectF(0, h - legendH, w, legendH), scene, legend, style);
}

} // namespace

bool exportImage(const Timeline &timeline, const ImageExportRequest &request, std::string *error)
{
    auto fail = [&](const std::string &msg) {
        if (error)
            *error = msg;
        return false;
    };
    if (request.pngPath.empty() && request.svgPath.empty())
        return fail("no output file (give a PNG or SVG path)");
    if (request.width < 100 || request.height < 60 || request.width > 32768 ||
        request.height > 32768)
        return fail("image size must be between 100x60 and 32768x32768 px");
    if (request.rangeStartNs.has_value() != request.rangeEndNs.has_value())
        return fail("range needs both a start and an end");
    if (!ensureGuiApplication(error))
        return false;
    // Non-owning handle: the scene only reads the timeline during this call.
    std::shared_ptr<const Timeline> handle(&timeline, [](const Timeline *) {});
    TimelineScene scene(handle);
    scene.setClockMode(request.mode);
    int64_t start = request.rangeStartNs.value_or(scene.beginNs());
    int64_t end = request.rangeEndNs.value_or(scene.endNs());
    if (!request.rangeStartNs && end - start < 1000) { // pad an (almost) empty job
        end = start + 1000;
    }
    if (end <= start)
        return fail("empty time range (end must be after start)");
    const std::vector<uint32_t> legend = legendNames(timeline, scene, start, end, 12);
    scene.setRowMetrics(fittedMetrics(scene, request.height - 26 - (legend.empty() ? 0 : 24)));
    if (!request.pngPath.empty()) {
        QImage image(request.width, request.height, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&image);
        p.setRenderHint(QPainter::TextAntialiasing);
        render(p, scene, request, start, end, legend);
        p.end();
        QImageWriter writer(QString::fromStdString(request.pngPath), "png");
        if (!writer.write(image))
            return fail("cannot write " + request.pngPath + ": " +
                        writer.errorString().toStdString());
    }
    if (!request.svgPath.empty()) {
        QSvgGenerator svg;
        svg.setFileName(QString::fromStdString(request.svgPath));
        svg.setSize(QSize(request.width, request.height));
        svg.setViewBox(QRect(0, 0, request.width, request.height));
        svg.setTitle(QStringLiteral("syncline timeline"));
        QPainter p;
        if (!p.begin(&svg))
            return fail("cannot write " + request.svgPath);
        render(p, scene, request, start, end, legend);
        p.end();
        if (!QFileInfo(QString::fromStdString(request.svgPath)).isFile())
            return fail("cannot write " + request.svgPath);
    }
    return true;
}

} // namespace syncline::ui
