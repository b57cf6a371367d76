// TrueClock — see trueclock.h.
#include "trueclock.h"

#include <algorithm>
#include <cmath>

namespace syncline::sim {

namespace {
constexpr double kTwoPi = 6.283185307179586;
}

TrueClock::TrueClock(const SimConfig &cfg, int64_t refBase, SimRandom &rng) : m_refBase(refBase)
{
    m_offset = rng.uniform(-cfg.maxOffsetNs, cfg.maxOffsetNs);
    m_drift = rng.uniform(-cfg.maxDriftPpm, cfg.maxDriftPpm) * 1e-6;
    m_amp = rng.uniform(cfg.thermalPpmMin, cfg.thermalPpmMax) * 1e-6;
    m_period = rng.uniform(cfg.thermalPeriodMinS, cfg.thermalPeriodMaxS) * 1e9;
    m_phase = rng.uniform(0.0, kTwoPi);
    const int seconds = int(std::ceil(cfg.durationS)) + 2;
    const double sigma = cfg.wanderPpm * 1e-6 / std::sqrt(3600.0); // per √s
    m_wander.assign(size_t(seconds) + 1, 0.0);
    double freq = 0.0;
    for (int k = 1; k <= seconds; ++k) {
        m_wander[size_t(k)] = m_wander[size_t(k - 1)] + freq * 1e9;
        freq += sigma * rng.normal();
    }
    // Poisson steps, kept away from the first and last 5 % of the run.
    const double rate = cfg.stepsPerHour / 3600.0; // per s
    if (rate > 0) {
        double t = 0.05 * cfg.durationS + rng.exponential(1.0 / rate);
        while (t < 0.95 * cfg.durationS) {
            m_steps.push_back({t * 1e9, rng.uniform(cfg.stepMinNs, cfg.stepMaxNs)});
            t += rng.exponential(1.0 / rate);
        }
    }
}

double TrueClock::theta(double tau) const
{
    const double s = std::max(0.0, tau / 1e9);
    const size_t k = std::min(size_t(s), m_wander.size() - 2);
    const double frac = s - double(k);
    const double w = m_wander[k] + (m_wander[k + 1] - m_wander[k]) * frac;
    double th = m_offset + m_drift * tau + w +
                m_amp * m_period / kTwoPi *
                    (std::cos(m_phase) - std::cos(kTwoPi * tau / m_period + m_phase));
    for (const ClockStep &st : m_steps) {
        if (st.tau <= tau)
            th -= st.sizeNs;
    }
    return th;
}

int64_t TrueClock::local(double tau) const
{
    return m_refBase + int64_t(std::llround(tau - theta(tau)));
}

} // namespace syncline::sim
