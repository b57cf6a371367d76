// ForeignWriter — an independent writer of syncline logs (docs/log-format.md) for tests of the
// clock correction on inputs other tools write: it uses neither the recorder nor the simulator,
// only the documented format, and keeps the ground truth of every clock.
//
// Model: true time τ (ns); the time server's clock reads τ + kRefOffsetNs; a host's clock reads
// offset + τ·(1 + drift). An exchange starting at τ1: t1 = local(τ1), t2 = ref(τ1 + out),
// t3 = t2 + processing, t4 = local(τ1 + out + processing + back), with out/back = a minimum
// delay + exponential queueing + rare outliers (log-uniform). Bursts may be in flight at once
// (two threads of the writer), and the `sync` records may be written in any order: the format
// numbers bursts (`burst`) and exchanges (`seq`) and says nothing about contiguity.
// Plain value types; single-threaded.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace foreignwriter {

constexpr int64_t kRefOffsetNs = 5'000'000'000'000; // the server's clock zero, far from the hosts'

struct Clock
{
    int64_t offsetNs = 0;
    double driftPpm = 0.0;

    int64_t local(double tau) const
    {
        return offsetNs + int64_t(std::llround(tau * (1.0 + driftPpm * 1e-6)));
    }
    // The reference time (server clock) at which this clock read `local`.
    double reference(int64_t local) const
    {
        return double(local - offsetNs) / (1.0 + driftPpm * 1e-6) + double(kRefOffsetNs);
    }
};

struct Path
{
    double minOutNs = 20'000, minBackNs = 20'000; // minimum one-way delays
    double queueMeanNs = 5'000;                     // exponential queueing, each way
    double outlierP = 0.05;                         // outliers: log-uniform 50 µs .. 20 ms
    double processingNs = 3'000;
    double gapNs = 30'000; // between one exchange's reply and the next request
};

struct Exchange
{
    int burst = 0, seq = 0;
    int64_t t1 = 0, t2 = 0, t3 = 0, t4 = 0;
};

struct Record
{
    int64_t order = 0; // local time the writer wrote it
    std::string line;
};

class Log
{
public:
    Log(const Clock &clock, const Path &path, uint64_t seed) : m_clock(clock), m_path(path), m_rng(seed) {}

    // One burst of `size` exchanges starting at τ; returns the τ its last reply arrived.
    // queueMeanNs > 0: this burst's queueing (a loaded machine slows a whole burst).
    double burst(int number, double tau, int size = 8, double queueMeanNs = 0)
    {
        const double usual = m_path.queueMeanNs;
        if (queueMeanNs > 0)
            m_path.queueMeanNs = queueMeanNs;
        for (int seq = 0; seq < size; ++seq)
            tau = exchange(number, seq, tau) + m_path.gapNs;
        m_path.queueMeanNs = usual;
        return tau;
    }

    // Two bursts in flight at once: their exchanges alternate in a random order (two threads
    // sharing one socket each, so each exchange still runs alone). Returns the end τ.
    double interleaved(int a, int b, double tau, int size = 8)
    {
        int na = 0, nb = 0;
        std::bernoulli_distribution coin(0.5);
        while (na < size || nb < size) {
            const bool first = nb >= size || (na < size && coin(m_rng));
            tau = exchange(first ? a : b, first ? na++ : nb++, tau) + m_path.gapNs;
        }
        return tau;
    }

    double exchange(int burst, int seq, double tau1)
    {
        const double out = delay(m_path.minOutNs), back = delay(m_path.minBackNs);
        Exchange x;
        x.burst = burst;
        x.seq = seq;
        x.t1 = m_clock.local(tau1);
        const double tau2 = tau1 + out, tau3 = tau2 + m_path.processingNs, tau4 = tau3 + back;
        x.t2 = int64_t(std::llround(tau2)) + kRefOffsetNs;
        x.t3 = int64_t(std::llround(tau3)) + kRefOffsetNs;
        x.t4 = m_clock.local(tau4);
        m_exchanges.push_back(x);
        return tau4;
    }

    // A begin/end pair on thread 1 at true times [a, b).
    void event(const std::string &name, double a, double b)
    {
        const int64_t la = m_clock.local(a), lb = m_clock.local(b);
        m_events.push_back({la, "{\"t\":\"B\",\"ts\":" + std::to_string(la) +
                                    ",\"tid\":1,\"name\":\"" + name + "\"}"});
        m_events.push_back({lb, "{\"t\":\"E\",\"ts\":" + std::to_string(lb) +
                                    ",\"tid\":1,\"name\":\"" + name + "\"}"});
        m_stamps.push_back(la);
        m_stamps.push_back(lb);
    }

    // Any other record, written at local time `local` (its place in the file).
    void record(int64_t local, std::string line)
    {
        m_events.push_back({local, std::move(line)});
        m_stamps.push_back(local);
    }

    // Writes the file: header (start at τ `start`), the records, `close` at τ `close` when >= 0.
    // shuffleSync: the sync records in a random order (else in the order their replies came).
    void write(const std::string &file, int rank, int restart, const std::string &host,
               const std::string &boot, double start, double close, bool shuffleSync)
    {
        std::vector<Record> recs = m_events;
        std::vector<Record> sync;
        for (const Exchange &x : m_exchanges)
            sync.push_back({x.t4, "{\"t\":\"sync\",\"burst\":" + std::to_string(x.burst) +
                                      ",\"seq\":" + std::to_string(x.seq) +
                                      ",\"ref\":\"foreign-server@0badc0de\",\"t1\":" +
                                      std::to_string(x.t1) + ",\"t2\":" + std::to_string(x.t2) +
                                      ",\"t3\":" + std::to_string(x.t3) +
                                      ",\"t4\":" + std::to_string(x.t4) + "}"});
        std::sort(sync.begin(), sync.end(),
                  [](const Record &a, const Record &b) { return a.order < b.order; });
        if (shuffleSync) {
            std::vector<int64_t> orders;
            for (const Record &r : sync)
                orders.push_back(r.order);
            std::shuffle(sync.begin(), sync.end(), m_rng);
            for (size_t i = 0; i < sync.size(); ++i)
                sync[i].order = orders[i]; // same places in the file, other records there
        }
        recs.insert(recs.end(), sync.begin(), sync.end());
        std::stable_sort(recs.begin(), recs.end(),
                         [](const Record &a, const Record &b) { return a.order < b.order; });
        const int64_t s = m_clock.local(start);
        m_stamps.push_back(s);
        std::ofstream f(file, std::ios::binary);
        f << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" << rank
          << ",\"local_rank\":0,\"world_size\":8,\"group_rank\":0,\"role\":\"default\",\"restart\":"
          << restart << ",\"run_id\":\"foreign\",\"host\":\"" << host << "\",\"boot_id\":\"" << boot
          << "\",\"pid\":" << (1000 + rank * 10 + restart) << ",\"clock\":\"monotonic_raw\","
          << "\"anchor\":{\"mono_ns\":" << s << ",\"wall_ns\":" << (int64_t(1'700'000'000) * 1'000'000'000 + int64_t(start))
          << ",\"spread_ns\":50},\"config\":null,\"start_ns\":" << s << "}\n";
        f << "{\"t\":\"thread\",\"tid\":1,\"name\":\"main\"}\n";
        for (const Record &r : recs)
            f << r.line << "\n";
        if (close >= 0) {
            const int64_t c = m_clock.local(close);
            m_stamps.push_back(c);
            f << "{\"t\":\"close\",\"ts\":" << c << ",\"events\":" << m_events.size()
              << ",\"dropped\":0,\"open\":0}\n";
        }
    }

    const std::vector<int64_t> &stamps() const { return m_stamps; } // every local time written
    const Clock &clock() const { return m_clock; }
    const std::vector<Exchange> &exchanges() const { return m_exchanges; }
    std::mt19937_64 &rng() { return m_rng; }

private:
    double delay(double minimum)
    {
        std::exponential_distribution<double> queue(1.0 / m_path.queueMeanNs);
        double d = minimum + queue(m_rng);
        if (std::bernoulli_distribution(m_path.outlierP)(m_rng))
            d += std::exp(std::uniform_real_distribution<double>(std::log(50e3), std::log(20e6))(m_rng));
        return d;
    }

    Clock m_clock;
    Path m_path;
    std::mt19937_64 m_rng;
    std::vector<Exchange> m_exchanges;
    std::vector<Record> m_events;
    std::vector<int64_t> m_stamps;
};

} // namespace foreignwriter
