// ZoomControl — owns the visible time range, the trace bounds and the selected time range of
// the timeline view (Qt Creator's TimelineZoomControl shape) and does the zoom/pan maths.
//
// Invariants: all times are global int64 ns; traceStart <= rangeStart < rangeEnd <= traceEnd
// whenever the trace is non-empty (the range is clamped into the trace, keeping its width when
// it can); the range is at least kMinRangeNs wide. Selection is [selectionStart, selectionEnd)
// or empty (start == end == -1). Pixel maths is the range's TimeScale (scale(width)).
// Threading: a GUI-thread QObject.
#pragma once

#include "timescale.h"

#include <QObject>

#include <cstdint>

namespace syncline::ui {

class ZoomControl : public QObject
{
    Q_OBJECT
public:
    static constexpr int64_t kMinRangeNs = 100;

    explicit ZoomControl(QObject *parent = nullptr);

    int64_t traceStart() const { return m_traceStart; }
    int64_t traceEnd() const { return m_traceEnd; }
    int64_t rangeStart() const { return m_rangeStart; }
    int64_t rangeEnd() const { return m_rangeEnd; }
    int64_t rangeDuration() const { return m_rangeEnd - m_rangeStart; }
    int64_t selectionStart() const { return m_selectionStart; }
    int64_t selectionEnd() const { return m_selectionEnd; }
    bool hasSelection() const { return m_selectionEnd > m_selectionStart; }

    void setTrace(int64_t start, int64_t end); // also fits the range to the whole trace
    void setRange(int64_t start, int64_t end);
    void setSelection(int64_t start, int64_t end);
    void clearSelection();

    // Zooms by `factor` (> 1 zooms in) keeping time `anchor` at the same pixel.
    void zoomAt(double factor, int64_t anchor);
    void pan(int64_t deltaNs);
    // Pans by a fraction of the visible width (0.1 = a tenth to the right).
    void panFraction(double fraction);
    void fit();

    // Pixel maths for a viewport `width` px wide (TimeScale's rule).
    TimeScale scale(double width) const { return TimeScale(m_rangeStart, m_rangeEnd, width); }
    double xOf(int64_t t, double width) const { return scale(width).x(t); }
    int64_t timeAt(double x, double width) const { return scale(width).timeAt(x); }

signals:
    void rangeChanged(qint64 start, qint64 end);
    void selectionChanged(qint64 start, qint64 end);
    void traceChanged(qint64 start, qint64 end);

private:
    int64_t m_traceStart = 0;
    int64_t m_traceEnd = 1000;
    int64_t m_rangeStart = 0;
    int64_t m_rangeEnd = 1000;
    int64_t m_selectionStart = -1;
    int64_t m_selectionEnd = -1;
};

} // namespace syncline::ui
