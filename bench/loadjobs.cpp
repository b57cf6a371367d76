// bench_load's job shapes — see loadjobs.h.
#include "bench/loadjobs.h"
#include "bench/simjob.h"

#include "sim/joblogwriter.h"
#include "sim/simconfig.h"
#include "sim/simulator.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace syncline::bench {

namespace {

void append(std::string &s, int64_t v)
{
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    s.append(tmp, r.ptr);
}

} // namespace

// One step = 10 events: "train_step" ⊃ 4 × "layer_k" (B/E) ⊃ 1 X kernel each, plus one X
// "allreduce" at the end of the step.
void generateWorker(const std::string &path, int rank, int workers, int64_t events)
{
    std::string s;
    s.reserve(size_t(events) * 90);
    const int64_t mono0 = 1000000000LL + rank * 7777;
    s += "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":";
    append(s, rank);
    s += ",\"local_rank\":0,\"world_size\":";
    append(s, workers);
    s += ",\"group_rank\":0,\"role\":\"trainer\",\"restart\":0,\"run_id\":\"bench\",\"host\":"
         "\"node-";
    append(s, rank / 8);
    s += "\",\"boot_id\":\"boot-";
    append(s, rank / 8);
    s += "\",\"pid\":";
    append(s, 1000 + rank);
    s += ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":";
    append(s, mono0);
    s += ",\"wall_ns\":1764438000123456789,\"spread_ns\":41},\"config\":null,\"start_ns\":";
    append(s, mono0);
    s += "}\n";
    const int tid = 2000 + rank;
    int64_t t = mono0 + 1000;
    auto rec = [&](const char *type, int64_t ts, const char *name, int k, const char *extra) {
        s += "{\"t\":\"";
        s += type;
        s += "\",\"ts\":";
        append(s, ts);
        s += ",\"tid\":";
        append(s, tid);
        s += ",\"name\":\"";
        s += name;
        if (k >= 0)
            append(s, k);
        s += '"';
        s += extra;
        s += "}\n";
    };
    const int64_t steps = events / 10;
    for (int64_t step = 0; step < steps; ++step) {
        std::string args;
        if (step % 5 == 0) {
            args = ",\"args\":{\"step\":" + std::to_string(step) + "}";
        }
        rec("B", t, "train_step", -1, args.c_str());
        for (int k = 0; k < 4; ++k) {
            rec("B", t + 10 + k * 200, "layer_", k, "");
            s += "{\"t\":\"X\",\"ts\":";
            append(s, t + 20 + k * 200);
            s += ",\"dur\":150,\"tid\":";
            append(s, tid);
            s += ",\"name\":\"kernel\"}\n";
            rec("E", t + 190 + k * 200, "layer_", k, "");
        }
        s += "{\"t\":\"X\",\"ts\":";
        append(s, t + 850);
        s += ",\"dur\":100,\"tid\":";
        append(s, tid);
        s += ",\"name\":\"allreduce\"}\n";
        rec("E", t + 990, "train_step", -1, "");
        t += 1000 + (step % 7);
        if (step % 100 == 0) {
            for (int seq = 0; seq < 4; ++seq) {
                s += "{\"t\":\"sync\",\"burst\":";
                append(s, step / 100);
                s += ",\"seq\":";
                append(s, seq);
                s += ",\"ref\":\"10.0.0.1:29400\",\"t1\":";
                append(s, t + seq * 100);
                s += ",\"t2\":";
                append(s, t + seq * 100 + 5000000 + 20000);
                s += ",\"t3\":";
                append(s, t + seq * 100 + 5000000 + 20500);
                s += ",\"t4\":";
                append(s, t + seq * 100 + 41000);
                s += "}\n";
            }
        }
        if (step % 1000 == 0) {
            s += "{\"t\":\"hb\",\"ts\":";
            append(s, t);
            s += ",\"events\":";
            append(s, step * 15);
            s += ",\"dropped\":0,\"buffer_full\":0,\"bytes\":";
            append(s, int64_t(s.size()));
            s += "}\n";
        }
    }
    s += "{\"t\":\"close\",\"ts\":";
    append(s, t);
    s += ",\"events\":1,\"dropped\":0,\"open\":0}\n";
    std::ofstream(path, std::ios::binary).write(s.data(), std::streamsize(s.size()));
}

void generateRealistic(const std::string &dir, uint64_t seed, int workers, double durationS)
{
    syncline::sim::SimConfig cfg =
        syncline::sim::configFor(syncline::sim::Regime::Datacenter, seed, workers, durationS);
    cfg.workersPerHost = 8;
    cfg.iterationMs = 2;
    writeSimJob(cfg, dir, "bench_load");
}

std::vector<std::string> logsIn(const std::string &dir)
{
    std::vector<std::string> files;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".log")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace syncline::bench
