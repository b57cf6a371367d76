// Clock — the recorder's monotonic time source, in int64 nanoseconds.
//
// Sources (config key `clock`, header key `clock`):
//   MonotonicRaw  CLOCK_MONOTONIC_RAW (default; never slewed or stepped by NTP)
//   Monotonic     CLOCK_MONOTONIC (slewed by NTP, never stepped)
//   Tsc           the invariant TSC (x86-64 with constant_tsc + nonstop_tsc), scaled to ns:
//                 stamp = monotonic_raw at calibration + ticks since calibration · scale.
//                 The scale is calibrated once per process against CLOCK_MONOTONIC_RAW, so two
//                 processes using "tsc" differ by their calibration error (ppm level): treat
//                 each tsc process as its own clock domain. Unavailable → constructor falls back
//                 to MonotonicRaw (check source()).
//
// Synthetic transform (test/demo facility, config `test_clock` or env
// SYNCLINE_TEST_CLOCK_OFFSET_NS / SYNCLINE_TEST_CLOCK_DRIFT_PPM): now() returns
//   stamp = raw · (1 + driftPpm·1e-6) + offsetNs
// computed as raw + llround(raw · driftPpm·1e-6) + offsetNs, so the int64 part stays exact and
// only the drift term (≤ 1e11 ns for any realistic uptime) goes through a double (error < 1 ns).
// The result is strictly monotonic whenever raw is (|driftPpm| < 1e6). anchor() adds the wall
// offset to the wall-clock read: by default offsetNs (the emulated host's wall clock is off by
// the same amount, so a viewer that trusts wall clocks — the raw mode — sees the hosts disagree,
// as unsynchronised hosts do); `wallOffsetNs` sets it apart (config test_clock.wall_offset_ns,
// env SYNCLINE_TEST_WALL_OFFSET_NS): 0 emulates a host whose wall clock is exact (PTP), a few ms
// one whose wall clock is off although its sync path is fine.
//
// Invariants: now() never decreases within a process. Threading: a Clock is immutable after
// construction; now() is safe from any thread and never blocks.
#pragma once

#include <cmath>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string_view>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace syncline::rec {

enum class ClockSource
{
    MonotonicRaw,
    Monotonic,
    Tsc
};

class Clock
{
public:
    // A paired read of the monotonic clock (this Clock's now()) and CLOCK_REALTIME.
    struct Anchor
    {
        int64_t monoNs = 0;
        int64_t wallNs = 0;
        int64_t spreadNs = 0; // duration of the chosen read pair (its uncertainty)
    };

    Clock() = default; // MonotonicRaw, no transform
    explicit Clock(ClockSource source, int64_t offsetNs = 0, double driftPpm = 0.0,
                   std::optional<int64_t> wallOffsetNs = std::nullopt);

    ClockSource source() const { return m_source; }
    bool hasTransform() const { return m_transform; }
    int64_t offsetNs() const { return m_offsetNs; }
    int64_t wallOffsetNs() const { return m_wallOffsetNs; }
    double driftPpm() const { return m_driftPpm; }

    // The stamp used for every record: rawNow() through the synthetic transform if any.
    int64_t now() const { return m_transform ? transform(rawNow()) : rawNow(); }

    // The untransformed clock reading.
    int64_t rawNow() const
    {
        switch (m_source) {
        case ClockSource::Monotonic:
            return readPosix(CLOCK_MONOTONIC);
#if defined(__x86_64__)
        case ClockSource::Tsc: {
            const uint64_t ticks = __rdtsc() - m_tscBaseTicks;
            return m_tscBaseNs + int64_t((unsigned __int128)ticks * m_tscMult >> 32);
        }
#endif
        default:
            return readPosix(CLOCK_MONOTONIC_RAW);
        }
    }

    int64_t transform(int64_t raw) const
    {
        return raw + std::llround(double(raw) * m_driftScale) + m_offsetNs;
    }

    // Median (by wall − mono offset) of `samples` back-to-back paired reads.
    Anchor anchor(int samples = 9) const;

    static int64_t wallNs()
    {
        return readPosix(CLOCK_REALTIME);
    }
    static const char *sourceName(ClockSource source);
    static std::optional<ClockSource> sourceFromName(std::string_view name);
    // True on x86-64 when /proc/cpuinfo lists constant_tsc and nonstop_tsc.
    static bool tscAvailable();

private:
    static int64_t readPosix(clockid_t id)
    {
        timespec ts;
        clock_gettime(id, &ts);
        return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    }

    ClockSource m_source = ClockSource::MonotonicRaw;
    bool m_transform = false;
    int64_t m_offsetNs = 0;
    int64_t m_wallOffsetNs = 0;
    double m_driftPpm = 0.0;
    double m_driftScale = 0.0; // driftPpm · 1e-6
    uint64_t m_tscBaseTicks = 0;
    int64_t m_tscBaseNs = 0;
    uint64_t m_tscMult = 0; // ns per tick, 32.32 fixed point
};

} // namespace syncline::rec
