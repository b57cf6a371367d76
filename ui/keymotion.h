// KeyMotion — W/S (zoom) and A/D (pan) held down, as Perfetto users expect: the press does one
// step at once (what a tap does: 1.5× zoom, 15 % pan), then, while the key stays down (after
// kHoldDelayMs), the view moves continuously at a rate that accelerates over kRampMs — zoom
// from 2× to 16× a second, pan from 0.5 to 2 views a second. Each 16 ms tick applies the rate ×
// the real time since the last tick, so a slow frame never queues steps up and the motion stops
// the moment the key is released (auto-repeat presses are ignored).
// Threading: GUI thread only.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <cstdint>
#include <functional>

namespace syncline::ui {

class ZoomControl;

class KeyMotion : public QObject
{
    Q_OBJECT
public:
    static constexpr int kHoldDelayMs = 150;
    static constexpr int kRampMs = 600;
    static constexpr double kTapZoom = 1.5;
    static constexpr double kTapPan = 0.15;

    // centre(): the time zooms keep in place (the mouse cursor's, else the view's centre).
    KeyMotion(ZoomControl *zoom, std::function<int64_t()> centre, QObject *parent = nullptr);
    // True when `key` is W, S, A or D (the event is handled).
    bool press(int key, bool autoRepeat);
    bool release(int key, bool autoRepeat);
    void stop();
    bool moving() const { return m_timer.isActive(); }

private:
    void step(double seconds, bool tap);

    ZoomControl *m_zoom;
    std::function<int64_t()> m_centre;
    QTimer m_timer;
    QElapsedTimer m_held, m_last;
    int m_key = 0;
};

} // namespace syncline::ui
