// WheelZoom — the wheel's zoom, animated: each notch asks for a factor (120 units ≈ 1.21×);
// the view moves a share of what is still asked at once, then the rest over a few 16 ms ticks
// (each tick kShare of the remainder, the last one exactly what is left), so the range glides
// to where an instant zoom would have put it and ends there exactly. The anchor time keeps its
// pixel on every tick. Notches while it glides add to what is left; a notch at another anchor
// first lands the old motion, then starts from there. stop() lands what is left at once (a
// drag or a key then starts from the final range); a range set by anything else ends the
// glide where that range is.
// Threading: GUI thread only.
#pragma once

#include <QObject>
#include <QTimer>

#include <cstdint>

namespace syncline::ui {

class ZoomControl;

class WheelZoom : public QObject
{
    Q_OBJECT
public:
    static constexpr int kTickMs = 16;
    static constexpr double kShare = 0.45; // of the remaining zoom, on the notch and per tick

    explicit WheelZoom(ZoomControl *zoom, QObject *parent = nullptr);
    // Zoom by `factor` (> 1 in, < 1 out) around `anchor` (global ns).
    void add(double factor, int64_t anchor);
    void stop();
    bool animating() const { return m_timer.isActive(); }

private:
    void apply(double logFactor);
    void tick();

    ZoomControl *m_zoom;
    QTimer m_timer;
    double m_remaining = 0; // log of the factor still to apply
    int64_t m_anchor = 0;
    bool m_applying = false; // our own zoomAt, not a range set elsewhere
};

} // namespace syncline::ui
