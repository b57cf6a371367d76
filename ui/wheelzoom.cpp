#include "wheelzoom.h"

#include "zoomcontrol.h"

#include <cmath>

namespace syncline::ui {

namespace {
constexpr double kLandLog = 0.002; // below ~0.2 % left, the next tick lands the motion
}

WheelZoom::WheelZoom(ZoomControl *zoom, QObject *parent) : QObject(parent), m_zoom(zoom)
{
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &WheelZoom::tick);
    // A range set by anything else (the overview, fit, zoom to event) ends the glide there.
    connect(m_zoom, &ZoomControl::rangeChanged, this, [this] {
        if (!m_applying) {
            m_timer.stop();
            m_remaining = 0;
        }
    });
}

void WheelZoom::add(double factor, int64_t anchor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    if (animating() && anchor != m_anchor)
        stop();
    m_anchor = anchor;
    m_remaining += std::log(factor);
    tick(); // a share at once: the wheel answers on the notch
}

void WheelZoom::stop()
{
    m_timer.stop();
    if (m_remaining != 0)
        apply(m_remaining);
    m_remaining = 0;
}

void WheelZoom::apply(double logFactor)
{
    m_applying = true;
    m_zoom->zoomAt(std::exp(logFactor), m_anchor);
    m_applying = false;
}

void WheelZoom::tick()
{
    double step = m_remaining * kShare;
    if (std::abs(m_remaining - step) < kLandLog)
        step = m_remaining;
    m_remaining -= step;
    apply(step);
    if (m_remaining == 0)
        m_timer.stop();
    else if (!m_timer.isActive())
        m_timer.start();
}

} // namespace syncline::ui
