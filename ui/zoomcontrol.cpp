#include "zoomcontrol.h"

#include <algorithm>
#include <cmath>

namespace syncline::ui {

ZoomControl::ZoomControl(QObject *parent) : QObject(parent) {}

void ZoomControl::setTrace(int64_t start, int64_t end)
{
    if (end - start < kMinRangeNs)
        end = start + kMinRangeNs;
    m_traceStart = start;
    m_traceEnd = end;
    emit traceChanged(start, end);
    fit();
}

void ZoomControl::setRange(int64_t start, int64_t end)
{
    if (end < start)
        std::swap(start, end);
    int64_t width = std::max(end - start, kMinRangeNs);
    const int64_t traceWidth = m_traceEnd - m_traceStart;
    width = std::min(width, traceWidth);
    // Keep the centre when the requested range is narrower than the minimum.
    if (end - start < kMinRangeNs)
        start = start + (end - start) / 2 - width / 2;
    start = std::clamp(start, m_traceStart, m_traceEnd - width);
    end = start + width;
    if (start == m_rangeStart && end == m_rangeEnd)
        return;
    m_rangeStart = start;
    m_rangeEnd = end;
    emit rangeChanged(start, end);
}

void ZoomControl::setSelection(int64_t start, int64_t end)
{
    if (end < start)
        std::swap(start, end);
    if (start == m_selectionStart && end == m_selectionEnd)
        return;
    m_selectionStart = start;
    m_selectionEnd = end;
    emit selectionChanged(start, end);
}

void ZoomControl::clearSelection()
{
    setSelection(-1, -1);
}

void ZoomControl::zoomAt(double factor, int64_t anchor)
{
    if (!(factor > 0))
        return;
    const double oldWidth = double(rangeDuration());
    const double newWidth = std::max(double(kMinRangeNs), oldWidth / factor);
    // The anchor keeps its fraction of the range: (anchor - start) / width is invariant.
    const double fraction = double(anchor - m_rangeStart) / oldWidth;
    const int64_t start = anchor - int64_t(std::llround(fraction * newWidth));
    setRange(start, start + int64_t(std::llround(newWidth)));
}

void ZoomControl::pan(int64_t deltaNs)
{
    setRange(m_rangeStart + deltaNs, m_rangeEnd + deltaNs);
}

void ZoomControl::panFraction(double fraction)
{
    pan(int64_t(std::llround(fraction * double(rangeDuration()))));
}

void ZoomControl::fit()
{
    setRange(m_traceStart, m_traceEnd);
}

} // namespace syncline::ui
