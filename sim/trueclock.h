// TrueClock — the ground truth of one host's clock in the simulator.
//
// τ is true time in ns since the start of the simulated job; the reference (time server) clock
// reads refBase + τ. The host's offset θ(τ) = reference − local is
//     offset + drift·τ + W(τ) + A·P/2π·(cos φ − cos(2πτ/P + φ)) − Σ steps before τ
// where W integrates a frequency random walk (one step a second) and the sinusoid is a slow
// thermal swing of the frequency with amplitude A (ppm) and period P. A step moves the local clock
// forward by Δ (θ drops by Δ), so local time never runs backwards. local(τ) = refBase + τ − θ(τ).
// Immutable after construction; const methods thread-safe.
#pragma once

#include "simconfig.h"
#include "simrandom.h"

#include <cstdint>
#include <vector>

namespace syncline::sim {

struct ClockStep
{
    double tau = 0.0;    // true time of the step (ns)
    double sizeNs = 0.0; // local clock jumps forward by this much
};

class TrueClock
{
public:
    TrueClock() = default;
    TrueClock(const SimConfig &cfg, int64_t refBase, SimRandom &rng);

    double theta(double tau) const;  // ns
    int64_t local(double tau) const; // local clock reading at τ (no read noise)
    int64_t reference(double tau) const { return m_refBase + int64_t(std::llround(tau)); }
    const std::vector<ClockStep> &steps() const { return m_steps; }
    double offsetNs() const { return m_offset; }
    double driftPpm() const { return m_drift * 1e6; }
    double asymmetryNs() const { return m_asymmetry; }
    void setAsymmetry(double a) { m_asymmetry = a; }

private:
    int64_t m_refBase = 0;
    double m_offset = 0.0, m_drift = 0.0;
    double m_amp = 0.0, m_period = 1.0, m_phase = 0.0;
    std::vector<double> m_wander; // W at whole seconds
    std::vector<ClockStep> m_steps;
    double m_asymmetry = 0.0; // forward − backward minimum delay of this host's sync path
};

} // namespace syncline::sim
