#include "exportactions.h"

#include "imageexport.h"
#include "timelineview.h"

#include "timeline/report/chromeexporter.h"
#include "timeline/report/csvexporter.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

#include <algorithm>

namespace syncline::ui {

ExportActions::ExportActions(QWidget *window, TimelineView *view)
    : QObject(window), m_window(window), m_view(view)
{
}

void ExportActions::addTo(QMenu *menu)
{
    menu->addAction(tr("Image (PNG/SVG) of the visible range…"), QKeySequence(Qt::CTRL | Qt::Key_E),
                    this, [this] {
                        run(tr("Export image"), QStringLiteral("timeline.png"),
                            tr("PNG image (*.png);;SVG drawing (*.svg)"),
                            [this](const QString &p, QString *e) { return writeImage(p, e); });
                    });
    menu->addAction(tr("Events CSV (all)…"), this, [this] {
        run(tr("Export events CSV"), QStringLiteral("events.csv"), tr("CSV (*.csv)"),
            [this](const QString &p, QString *e) { return writeCsv(p, false, e); });
    });
    menu->addAction(tr("Events CSV (visible range)…"), this, [this] {
        run(tr("Export events CSV (visible range)"), QStringLiteral("events.csv"),
            tr("CSV (*.csv)"),
            [this](const QString &p, QString *e) { return writeCsv(p, true, e); });
    });
    menu->addAction(tr("Chrome trace JSON…"), this, [this] {
        run(tr("Export Chrome trace"), QStringLiteral("trace.json"),
            tr("Chrome trace JSON (*.json)"),
            [this](const QString &p, QString *e) { return writeChrome(p, e); });
    });
}

void ExportActions::run(const QString &title, const QString &suggested, const QString &filter,
                        const std::function<bool(const QString &, QString *)> &write)
{
    if (!m_timeline)
        return;
    // Start in the job's directory (its first log's), not the process's working directory.
    QString start = suggested;
    for (const Worker &w : m_timeline->workers)
        if (!w.info.sourceFile.empty()) {
            start = QFileInfo(QString::fromStdString(w.info.sourceFile)).absoluteDir().filePath(
                suggested);
            break;
        }
    const QString path = QFileDialog::getSaveFileName(m_window, title, start, filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!write(path, &error))
        QMessageBox::warning(m_window, tr("Export failed"), error);
    else
        emit wrote(path);
}

// What the view shows is what gets written: the view's scene holds the clock mode.
ClockMode ExportActions::clockMode() const
{
    return m_view->scene() ? m_view->scene()->clockMode() : ClockMode::Corrected;
}

bool ExportActions::writeImage(const QString &path, QString *error) const
{
    ImageExportRequest req;
    (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? req.svgPath : req.pngPath) =
        path.toStdString();
    req.width = std::max(800, m_view->width() * 2);
    req.height = std::max(500, m_view->height() * 2);
    req.rangeStartNs = m_view->zoomControl()->rangeStart();
    req.rangeEndNs = m_view->zoomControl()->rangeEnd();
    req.mode = clockMode();
    req.dark = m_view->viewStyle().dark;
    req.wallClock = m_view->wallClock();
    std::string e;
    const bool ok = exportImage(*m_timeline, req, &e);
    *error = QString::fromStdString(e);
    return ok;
}

bool ExportActions::writeCsv(const QString &path, bool visibleOnly, QString *error) const
{
    EventRange range;
    if (visibleOnly) {
        range.use = true;
        range.beginNs = m_view->zoomControl()->rangeStart();
        range.endNs = m_view->zoomControl()->rangeEnd();
    }
    std::string e;
    const bool ok = CsvExporter::writeFile(*m_timeline, clockMode(), path.toStdString(), range, &e);
    *error = QString::fromStdString(e);
    return ok;
}

bool ExportActions::writeChrome(const QString &path, QString *error) const
{
    std::string e;
    const bool ok = ChromeExporter::writeFile(*m_timeline, clockMode(), path.toStdString(), &e);
    *error = QString::fromStdString(e);
    return ok;
}

} // namespace syncline::ui
