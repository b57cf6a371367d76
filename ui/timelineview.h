// TimelineView — the zoomable Gantt view: ruler on top (fixed), worker/thread labels on the
// left, events in the middle; vertical scrolling through many workers. It only replays the
// cached TimelineGeometry in paintEvent; input maps to ZoomControl and the scene.
//
// Navigation: wheel zooms at the cursor (Shift+wheel or wheel over the labels scrolls), drag pans
// (both axes), W/S zoom in/out, A/D pan, F or Home fits, double-click zooms to an event, drag on
// the ruler selects a time range (the measure tool: its length and the events begun in it; Esc
// clears), Shift+drag in the events box-selects tracks × a time range (boxSelected; the
// Statistics panel computes for exactly that), click selects an event, click on a group header
// collapses/expands it, drag the label column's right edge to resize it. Hover shows a tooltip
// and reports the cursor time.
// Invariants: times in global ns (scene's clock mode); x ↔ time by the range's TimeScale (the same
// as the geometry's, so a click hits what is drawn under it).
// Threading: GUI thread only.
#pragma once

#include "timelinegeometry.h"
#include "viewstyle.h"
#include "zoomcontrol.h"

#include <QAbstractScrollArea>

#include <memory>
#include <vector>

class QPainter;

namespace syncline::ui {

class KeyMotion;
class WheelZoom;

class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    static constexpr int kDefaultGutterWidth = 230;
    static constexpr int kMinGutterWidth = 80;
    static constexpr int kRulerHeight = 26;
    static constexpr double kRevealPx = 40; // revealEvent zooms in until the event is this wide

    explicit TimelineView(QWidget *parent = nullptr);

    void setScene(std::shared_ptr<TimelineScene> scene); // fits the range to the whole job
    TimelineScene *scene() const { return m_scene.get(); }
    ZoomControl *zoomControl() const { return m_zoom; }
    // The text shown while there is no scene ("" = how to open a job); e.g. while attached to
    // a job directory that has no logs yet.
    void setPlaceholder(const QString &text);
    QString placeholderText() const;
    void setWallClock(bool on);
    bool wallClock() const { return m_wallClock; }
    void setViewStyle(const ViewStyle &style);
    // The wheel: zooms at the cursor (Tracy's way, the default; Shift+wheel scrolls), or with
    // wheelZooms false scrolls the workers (Perfetto's way; Shift+wheel pans), Ctrl+wheel zooms.
    void setWheelZooms(bool on) { m_wheelZooms = on; }
    bool wheelZooms() const { return m_wheelZooms; }
    KeyMotion *keyMotion() const { return m_keys; }
    WheelZoom *wheelZoom() const { return m_wheel; }
    // The label column: drag its right edge to resize it (kMinGutterWidth .. half the view).
    int gutterWidth() const { return m_gutterWidth; }
    void setGutterWidth(int px);
    // Shrinks the row heights (down to kMinRowScale) so every visible row fits the height when it
    // can; back to the default heights when they fit. Done by itself on every sceneChanged() and
    // resize: rows follow filters, collapses, hidden tracks and the window's size.
    void fitRowsToHeight();
    static constexpr double kMinRowScale = 0.55;
    const ViewStyle &viewStyle() const { return m_style; }

    // The scrolled rows' request (under the pinned band) and the pinned band's (content
    // [0, pinnedPx())); pinnedPx() is 0 without pinned workers.
    GeometryRequest currentRequest() const;
    GeometryRequest pinnedRequest() const;
    double pinnedPx() const;
    // Content y (RowLayout) of a viewport y and back, across the pinned band and the scroll.
    double contentY(double viewportY) const;
    double viewportY(double contentY) const;
    QRect eventArea() const; // in viewport coordinates
    const GeometryCache &geometryCache() const { return m_cache; }
    EventRef eventAt(QPoint viewportPos) const;

    // Call after changing the scene (filters, search, collapse, clock mode).
    void sceneChanged();
    void selectEvent(const EventRef &ref, bool reveal);
    void zoomToEvent(const EventRef &ref);
    // Scroll vertically, pan and (when it is narrower than kRevealPx) zoom so it is visible,
    // drawn on its own; expands its collapsed group.
    void revealEvent(const EventRef &ref);
    void revealRow(int layoutRow); // scroll vertically so that row is on screen
    // Centre the view on global time t (keeping the zoom) and scroll to model's first row.
    void revealPoint(int model, qint64 globalNs);
    // The box selection (Shift+drag): models (sorted) and its time range; empty when none.
    const std::vector<int> &boxModels() const { return m_boxModels; }
    std::pair<int64_t, int64_t> boxRange() const { return {m_boxT0, m_boxT1}; }
    // The box's content-y span as drawn: the mouse's while dragging; once made, its tracks' rows
    // as laid out now (they move when rows are re-fitted, filtered or collapsed). {0, 0}: none.
    std::pair<double, double> boxExtent() const;
    // Sets (or with no models clears) the box selection as a Shift+drag would; emits boxSelected.
    void setBoxSelection(std::vector<int> models, int64_t t0, int64_t t1, double contentY0,
                         double contentY1);

signals:
    void eventSelected(syncline::ui::EventRef ref);
    void cursorTimeChanged(qint64 globalNs, bool inside);
    void gutterWidthChanged(int px);
    void boxSelected(std::vector<int> models, qint64 startNs, qint64 endNs);
    // Right-click (or the menu key) at a viewport point: MainWindow shows TrackMenu's menu.
    void contextMenuRequested(QPoint viewportPos, QPoint globalPos);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void leaveEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    enum class Drag
    {
        None,
        Pan,
        RulerSelect,
        Gutter,
        Box
    };
    void paintBox(QPainter &p) const;
    void updateScrollBars();
    void refitRows();
    // The request drawing viewport point pos and pos in its coordinates.
    std::pair<GeometryRequest, QPointF> requestAt(QPoint pos) const;
    int64_t timeAtX(double eventX) const;
    TimeScale scale() const; // the visible range over the event area's width

    std::shared_ptr<TimelineScene> m_scene;
    ZoomControl *m_zoom;
    GeometryCache m_cache;
    GeometryCache m_pinCache;
    ViewStyle m_style;
    bool m_wallClock = false;
    QString m_placeholder;
    bool m_wheelZooms = true;
    KeyMotion *m_keys = nullptr;
    WheelZoom *m_wheel = nullptr;
    double m_cursorX = -1;
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    int64_t m_pressRangeStart = 0;
    int m_pressScroll = 0;
    int64_t m_pressTime = 0;
    bool m_moved = false;
    int m_gutterWidth = kDefaultGutterWidth;
    std::vector<int> m_boxModels;
    int64_t m_boxT0 = 0, m_boxT1 = 0;
    double m_boxY0 = 0, m_boxY1 = 0; // content y
    double m_pressContentY = 0;
};

} // namespace syncline::ui
