// Clock — see clock.h.
#include "recorder/clock.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace syncline::rec {

namespace {

struct TscCalibration
{
    bool ok = false;
    uint64_t baseTicks = 0;
    int64_t baseNs = 0;
    uint64_t mult = 0;
};

#if defined(__x86_64__)
// One tight (ticks, raw ns) pair: the read whose surrounding TSC window is narrowest.
void tightPair(uint64_t *ticks, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; ++i) {
        const uint64_t a = __rdtsc();
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
        const uint64_t b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            *ticks = a + (b - a) / 2;
            *ns = int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
        }
    }
}

// Calibrated once per process: two tight pairs 20 ms apart (≈ 1–2 ppm scale error).
TscCalibration calibrateTsc()
{
    TscCalibration c;
    if (!Clock::tscAvailable())
        return c;
    uint64_t t0 = 0, t1 = 0;
    int64_t n0 = 0, n1 = 0;
    tightPair(&t0, &n0);
    timespec pause{0, 20000000};
    nanosleep(&pause, nullptr);
    tightPair(&t1, &n1);
    if (t1 <= t0 || n1 <= n0)
        return c;
    const long double nsPerTick = (long double)(n1 - n0) / (long double)(t1 - t0);
    c.ok = true;
    c.baseTicks = t1;
    c.baseNs = n1;
    c.mult = uint64_t(nsPerTick * 4294967296.0L + 0.5L);
    return c;
}
#endif

const TscCalibration &tscCalibration()
{
#if defined(__x86_64__)
    static const TscCalibration c = calibrateTsc();
#else
    static const TscCalibration c;
#endif
    return c;
}

} // namespace

Clock::Clock(ClockSource source, int64_t offsetNs, double driftPpm,
             std::optional<int64_t> wallOffsetNs)
    : m_source(source), m_transform(offsetNs != 0 || driftPpm != 0.0), m_offsetNs(offsetNs),
      m_wallOffsetNs(wallOffsetNs.value_or(offsetNs)), m_driftPpm(driftPpm),
      m_driftScale(driftPpm * 1e-6)
{
    if (m_source == ClockSource::Tsc) {
        const TscCalibration &c = tscCalibration();
        if (!c.ok) {
            m_source = ClockSource::MonotonicRaw;
            return;
        }
        m_tscBaseTicks = c.baseTicks;
        m_tscBaseNs = c.baseNs;
        m_tscMult = c.mult;
    }
}

Clock::Anchor Clock::anchor(int samples) const
{
    std::vector<Anchor> pairs;
    pairs.reserve(std::max(samples, 1));
    for (int i = 0; i < std::max(samples, 1); ++i) {
        const int64_t m1 = now();
        // The synthetic transform emulates another host: its wall clock is off by the wall
        // offset (by default the monotonic offset: hosts' wall clocks disagree too, so raw
        // views show the skew; 0 emulates a host whose wall clock is exact, as under PTP).
        const int64_t w = wallNs() + m_wallOffsetNs;
        const int64_t m2 = now();
        pairs.push_back({m1 + (m2 - m1) / 2, w, m2 - m1});
    }
    // Median of the offsets wall − mono: robust against a read pair split by preemption.
    std::sort(pairs.begin(), pairs.end(), [](const Anchor &a, const Anchor &b) {
        return a.wallNs - a.monoNs < b.wallNs - b.monoNs;
    });
    return pairs[pairs.size() / 2];
}

const char *Clock::sourceName(ClockSource source)
{
    switch (source) {
    case ClockSource::Monotonic:
        return "monotonic";
    case ClockSource::Tsc:
        return "tsc";
    case ClockSource::MonotonicRaw:
        break;
    }
    return "monotonic_raw";
}

std::optional<ClockSource> Clock::sourceFromName(std::string_view name)
{
    if (name == "monotonic_raw")
        return ClockSource::MonotonicRaw;
    if (name == "monotonic")
        return ClockSource::Monotonic;
    if (name == "tsc")
        return ClockSource::Tsc;
    return std::nullopt;
}

bool Clock::tscAvailable()
{
#if defined(__x86_64__)
    static const bool available = [] {
        std::ifstream in("/proc/cpuinfo");
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("flags", 0) == 0) {
                std::istringstream words(line);
                std::string w;
                bool constant = false, nonstop = false;
                while (words >> w) {
                    constant = constant || w == "constant_tsc";
                    nonstop = nonstop || w == "nonstop_tsc";
                }
                return constant && nonstop;
            }
        }
        return false;
    }();
    return available;
#else
    return false;
#endif
}

} // namespace syncline::rec
