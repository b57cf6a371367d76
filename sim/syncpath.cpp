// SyncPath — see syncpath.h.
#include "syncpath.h"

#include <cmath>

namespace syncline::sim {

double SyncPath::delay(double minimum)
{
    double d = minimum + m_rng.exponential(m_cfg.queueMeanNs);
    if (m_rng.chance(m_cfg.outlierRate))
        d += m_rng.logUniform(m_cfg.outlierMinNs, m_cfg.outlierMaxNs);
    return d;
}

sync::ClockSample SyncPath::exchange(const TrueClock &clock, double tau, int burst, int seq)
{
    const double asym = clock.asymmetryNs();
    const double fwdMin = m_cfg.minDelayNs + std::max(asym, 0.0);
    const double backMin = m_cfg.minDelayNs + std::max(-asym, 0.0);
    const double tau2 = tau + delay(fwdMin);
    const double tau3 = tau2 + m_cfg.serverProcNs + m_rng.exponential(m_cfg.serverProcNs / 4);
    const double tau4 = tau3 + delay(backMin);
    auto noise = [&] { return int64_t(std::llround(m_cfg.readNoiseNs * m_rng.normal())); };
    sync::ClockSample s;
    s.t1 = clock.local(tau) + noise();
    s.t2 = clock.reference(tau2) + noise();
    s.t3 = std::max(s.t2, clock.reference(tau3) + noise());
    s.t4 = std::max(s.t1, clock.local(tau4) + noise());
    s.burst = burst;
    s.seq = seq;
    return s;
}

std::vector<sync::ClockSample> SyncPath::run(const TrueClock &clock, double firstTau,
                                             double lastTau)
{
    std::vector<sync::ClockSample> out;
    const double interval = m_cfg.burstIntervalS * 1e9;
    std::vector<double> starts;
    for (double t = firstTau; t < lastTau; t += interval)
        starts.push_back(t + m_rng.uniform(0.0, 1e7)); // scheduling jitter up to 10 ms
    starts.push_back(lastTau);                         // the burst at close
    int burst = 0;
    for (double t : starts) {
        double tau = t;
        for (int k = 0; k < m_cfg.burstSize; ++k) {
            const sync::ClockSample s = exchange(clock, tau, burst, k);
            out.push_back(s);
            tau += double(s.t4 - s.t1) + m_cfg.exchangeGapNs; // next exchange after this reply
        }
        ++burst;
    }
    return out;
}

} // namespace syncline::sim
