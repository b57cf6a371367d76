// TimeFormat — turns int64 ns durations and timestamps into short human text for the ruler,
// tooltips, tables and the status bar, and picks "nice" ruler steps.
//
// Invariants: all inputs are int64 ns; nothing here converts absolute times to float before
// subtracting (callers pass differences). Units go ns, µs, ms, s; minutes appear past 100 s.
// Threading: pure functions, safe from any thread.
#pragma once

#include <QString>

#include <cstdint>

namespace syncline::ui {

// "850 ns", "12.4 µs", "3.25 ms", "1.500 s", "2 min 03.4 s". `digits` significant-ish precision.
QString formatDuration(int64_t ns, int digits = 3);
// A ruler label for time `ns` (relative to the display origin) when ticks are `stepNs` apart:
// enough decimals that neighbouring ticks differ, unit chosen from the step.
QString formatTick(int64_t ns, int64_t stepNs);
// Wall-clock text "HH:MM:SS.mmm" (UTC+local zone per QDateTime) with sub-ms digits when the
// step is below a millisecond.
QString formatWallClock(int64_t wallNs, int64_t stepNs);
// Smallest step in {1, 2, 5} · 10^k ns that is >= minStepNs (minStepNs >= 1).
int64_t niceStep(double minStepNs);

} // namespace syncline::ui
