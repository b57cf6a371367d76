// Helpers for timeline tests: data paths and a tiny writer of syncline v1 logs (the format is
// spelled out by hand here on purpose, independent of the recorder's writer).
#pragma once

#include <QTemporaryDir>
#include <QtGlobal>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace testlogs {

inline std::string header(int rank, int restart = 0, const std::string &host = "node-a",
                          int64_t monoNs = 1000, int64_t wallNs = 1700000000000000000LL,
                          const std::string &boot = "boot-a")
{
    return "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" +
           std::to_string(rank) +
           ",\"local_rank\":0,\"world_size\":2,\"group_rank\":0,\"role\":\"trainer\",\"restart\":" +
           std::to_string(restart) + ",\"run_id\":\"job\",\"host\":\"" + host +
           "\",\"boot_id\":\"" + boot + "\",\"pid\":" + std::to_string(100 + rank) +
           ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":" + std::to_string(monoNs) +
           ",\"wall_ns\":" + std::to_string(wallNs) +
           ",\"spread_ns\":40},\"config\":null,\"start_ns\":" + std::to_string(monoNs) + "}\n";
}

inline std::string begin(int64_t ts, int tid, const std::string &name, const std::string &args = "")
{
    return "{\"t\":\"B\",\"ts\":" + std::to_string(ts) + ",\"tid\":" + std::to_string(tid) +
           ",\"name\":\"" + name + "\"" + (args.empty() ? "" : ",\"args\":" + args) + "}\n";
}

inline std::string end(int64_t ts, int tid, const std::string &name)
{
    return "{\"t\":\"E\",\"ts\":" + std::to_string(ts) + ",\"tid\":" + std::to_string(tid) +
           ",\"name\":\"" + name + "\"}\n";
}

inline std::string complete(int64_t ts, int64_t dur, int tid, const std::string &name)
{
    return "{\"t\":\"X\",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
           ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" + name + "\"}\n";
}

inline void write(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// A job of one worker per emulated host (rank h on host "host-h", boot "boot-h"), written by hand:
// host h's monotonic clock reads the reference clock − off_h (off_h = 1 s − h·250 ms); its
// header anchor (at local 1000 ns) pairs that with the wall clock EPOCH + reference +
// wallErrorsNs[h] (0: an exact wall clock, as under PTP). Sync bursts of 4 exchanges every
// 100 ms for 3 s, 20 µs out and 20 µs + asymmetryNs[h] back (the corrected clock is then off by
// asymmetry/2, inside its bound); one "mark" event per host at the true reference instant 2 s.
constexpr int64_t kWallEpochNs = 1'700'000'000'000'000'000LL;
inline int64_t hostOffsetNs(size_t h)
{
    return 1'000'000'000 - int64_t(h) * 250'000'000;
}
// earlyAsymmetryNs: per host, more asymmetry in its first 10 bursts (a path that settles);
// wallPairEveryNs > 0: heartbeats with wall-clock pairs (log format 1.2) that often, as exact
// (or as far off) as the host's anchor.
inline void writeHostsJob(const std::string &dir, const std::vector<int64_t> &wallErrorsNs,
                          const std::vector<int64_t> &asymmetryNs = {},
                          const std::vector<int64_t> &earlyAsymmetryNs = {},
                          int64_t wallPairEveryNs = 0)
{
    for (size_t h = 0; h < wallErrorsNs.size(); ++h) {
        const int64_t off = hostOffsetNs(h);
        const int64_t steady = h < asymmetryNs.size() ? asymmetryNs[h] : 0;
        const int64_t early = h < earlyAsymmetryNs.size() ? earlyAsymmetryNs[h] : 0;
        const std::string host = "host-" + std::to_string(h), boot = "boot-" + std::to_string(h);
        std::string text = header(int(h), 0, host, 1000, kWallEpochNs + 1000 + off +
                                  wallErrorsNs[h], boot);
        for (int burst = 0; burst < 30; ++burst)
            for (int seq = 0; seq < 4; ++seq) {
                const int64_t asym = steady + (burst < 10 ? early : 0);
                const int64_t t1 = 10'000'000 + burst * 100'000'000LL + seq * 100'000;
                const int64_t t2 = t1 + off + 20'000, t3 = t2 + 1'000,
                              t4 = t3 - off + 20'000 + asym;
                text += "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) +
                        ",\"seq\":" + std::to_string(seq) + ",\"ref\":\"srv\",\"t1\":" +
                        std::to_string(t1) + ",\"t2\":" + std::to_string(t2) +
                        ",\"t3\":" + std::to_string(t3) + ",\"t4\":" + std::to_string(t4) +
                        "}\n";
            }
        for (int64_t t = wallPairEveryNs; wallPairEveryNs > 0 && t < 3'000'000'000;
             t += wallPairEveryNs)
            text += "{\"t\":\"hb\",\"ts\":" + std::to_string(t) +
                    ",\"events\":0,\"dropped\":0,\"buffer_full\":0,\"bytes\":0,\"wall_ns\":" +
                    std::to_string(kWallEpochNs + t + off + wallErrorsNs[h]) +
                    ",\"wall_spread_ns\":50}\n";
        const int64_t mark = 2'000'000'000 - off;
        text += begin(mark, 1, "mark") + end(mark + 1000, 1, "mark");
        write(dir + "/w." + std::to_string(h) + ".log", text);
    }
}

} // namespace testlogs
