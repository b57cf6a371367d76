// ExportActions — the File ▸ Export menu of the viewer: an image (PNG/SVG) of the visible
// range through exportImage, the events CSV (all or the visible range) and Chrome-trace JSON
// through the timeline layer's exporters. Asks for the file name, reports failures in a dialog.
// Threading: GUI thread only; the exports run synchronously (they are fast compared to a load).
#pragma once

#include "timeline/model/timeline.h"

#include <QObject>

#include <memory>

class QMenu;
class QWidget;

namespace syncline::ui {

class TimelineView;

class ExportActions : public QObject
{
    Q_OBJECT
public:
    ExportActions(QWidget *window, TimelineView *view);
    void setTimeline(std::shared_ptr<Timeline> timeline) { m_timeline = std::move(timeline); }
    void addTo(QMenu *menu);

    // The non-interactive parts (used by the menu after the file dialog; tests call them).
    bool writeImage(const QString &path, QString *error) const;
    bool writeCsv(const QString &path, bool visibleOnly, QString *error) const;
    bool writeChrome(const QString &path, QString *error) const;

signals:
    void wrote(const QString &path);

private:
    void run(const QString &title, const QString &suggested, const QString &filter,
             const std::function<bool(const QString &, QString *)> &write);

    QWidget *m_window;
    TimelineView *m_view;
    ClockMode clockMode() const;

    std::shared_ptr<Timeline> m_timeline;
};

} // namespace syncline::ui
