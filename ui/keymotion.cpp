#include "keymotion.h"

#include "zoomcontrol.h"

#include <algorithm>
#include <cmath>

namespace syncline::ui {

KeyMotion::KeyMotion(ZoomControl *zoom, std::function<int64_t()> centre, QObject *parent)
    : QObject(parent), m_zoom(zoom), m_centre(std::move(centre))
{
    m_timer.setInterval(16);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (m_held.elapsed() < kHoldDelayMs) {
            m_last.restart();
            return;
        }
        const double dt = std::min(0.1, double(m_last.nsecsElapsed()) / 1e9);
        m_last.restart();
        step(dt, false);
    });
}

bool KeyMotion::press(int key, bool autoRepeat)
{
    if (key != Qt::Key_W && key != Qt::Key_S && key != Qt::Key_A && key != Qt::Key_D)
        return false;
    if (autoRepeat && key == m_key)
        return true; // the timer moves while the key is down
    m_key = key;
    step(0, true);
    m_held.start();
    m_last.start();
    m_timer.start();
    return true;
}

bool KeyMotion::release(int key, bool autoRepeat)
{
    if (key != Qt::Key_W && key != Qt::Key_S && key != Qt::Key_A && key != Qt::Key_D)
        return false;
    if (!autoRepeat && key == m_key)
        stop();
    return true;
}

void KeyMotion::stop()
{
    m_timer.stop();
    m_key = 0;
}

// A tap: one fixed step. Held: the rate at this time since the press × dt seconds.
void KeyMotion::step(double dt, bool tap)
{
    const double ramp =
        std::clamp(double(m_held.isValid() ? m_held.elapsed() : 0) / kRampMs, 0.0, 1.0);
    const bool zoom = m_key == Qt::Key_W || m_key == Qt::Key_S;
    const double sign = (m_key == Qt::Key_W || m_key == Qt::Key_D) ? 1.0 : -1.0;
    if (zoom) {
        const double factor =
            tap ? kTapZoom : std::exp(std::log(2.0) * (1.0 + 3.0 * ramp) * dt); // 2×–16× a s
        m_zoom->zoomAt(sign > 0 ? factor : 1.0 / factor, m_centre());
    } else {
        m_zoom->panFraction(sign * (tap ? kTapPan : (0.5 + 1.5 * ramp) * dt));
    }
}

} // namespace syncline::ui
