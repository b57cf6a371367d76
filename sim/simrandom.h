// SimRandom — the simulator's seeded random source. mt19937_64 (whose sequence the C++ standard
// fixes) with hand-written distributions, so the same seed gives the same job on every standard
// library. Not thread-safe: one instance per generator.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace syncline::sim {

class SimRandom
{
public:
    explicit SimRandom(uint64_t seed) : m_rng(seed) {}

    double uniform() { return double(m_rng() >> 11) * 0x1.0p-53; } // [0, 1)
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    double exponential(double mean) { return -mean * std::log1p(-uniform()); }
    double normal()
    {
        const double u1 = 1.0 - uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    double logUniform(double a, double b) { return a * std::exp(std::log(b / a) * uniform()); }
    bool chance(double p) { return uniform() < p; }
    uint64_t next() { return m_rng(); }

private:
    std::mt19937_64 m_rng;
};

} // namespace syncline::sim
