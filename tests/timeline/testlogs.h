// Helpers for timeline tests: data paths and a tiny writer of syncline v1 logs (the format is
// spelled out by hand here on purpose, independent of the recorder's writer).
#pragma once

#include <QTemporaryDir>
#include <QtGlobal>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

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

} // namespace testlogs
