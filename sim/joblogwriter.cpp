// JobLogWriter — see joblogwriter.h.
#include "joblogwriter.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

namespace syncline::sim {

namespace {

// Wall clock of the reference at τ = 0 (display only). Every host's wall clock is its own
// monotonic clock relabelled by the reference's epoch (wall = epoch + local − refBase), as on
// hosts whose wall clocks are not synchronised: the header anchors then give a raw view that is
// off by exactly −θ(τ), the simulated offset, drift, wander and steps of that host.
constexpr int64_t kWallEpochNs = 1'764'438'000'000'000'000;

struct Record
{
    int64_t ts;
    int64_t seq;
    std::string line;
};

using File = std::unique_ptr<std::FILE, int (*)(std::FILE *)>;

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

std::vector<Record> workerRecords(const SimJob &job, size_t w)
{
    const SimWorker &sw = job.workers[w];
    std::vector<Record> r;
    int64_t seq = 0;
    for (const SimEvent &e : sw.events) {
        const char *name = job.names[size_t(e.nameId)].c_str();
        r.push_back({e.localBegin, seq++,
                     fmt("{\"t\":\"B\",\"ts\":%" PRId64
                         ",\"tid\":%d,\"name\":\"%s\",\"args\":{\"step\":%" PRId64 "}}",
                         e.localBegin, e.tid, name, e.step)});
        r.push_back({e.localEnd, seq++,
                     fmt("{\"t\":\"E\",\"ts\":%" PRId64 ",\"tid\":%d,\"name\":\"%s\"}", e.localEnd,
                         e.tid, name)});
    }
    for (const SimMessage &m : job.messages) {
        if (m.sendWorker == int(w))
            r.push_back({m.sendLocal, seq++,
                         fmt("{\"t\":\"msg\",\"ts\":%" PRId64
                             ",\"tid\":%d,\"dir\":\"send\",\"peer\":%d,\"id\":\"%s\"}",
                             m.sendLocal, sw.tidMain, job.workers[size_t(m.recvWorker)].rank,
                             m.id.c_str())});
        if (m.recvWorker == int(w))
            r.push_back({m.recvLocal, seq++,
                         fmt("{\"t\":\"msg\",\"ts\":%" PRId64
                             ",\"tid\":%d,\"dir\":\"recv\",\"peer\":%d,\"id\":\"%s\"}",
                             m.recvLocal, sw.tidMain, job.workers[size_t(m.sendWorker)].rank,
                             m.id.c_str())});
    }
    for (const sync::ClockSample &s : sw.samples) {
        r.push_back({s.t4, seq++,
                     fmt("{\"t\":\"sync\",\"burst\":%d,\"seq\":%d,\"ref\":\"%s\",\"t1\":%" PRId64
                         ",\"t2\":%" PRId64 ",\"t3\":%" PRId64 ",\"t4\":%" PRId64 "}",
                         s.burst, s.seq, job.refId.c_str(), s.t1, s.t2, s.t3, s.t4)});
    }
    std::sort(r.begin(), r.end(), [](const Record &a, const Record &b) {
        return a.ts < b.ts || (a.ts == b.ts && a.seq < b.seq);
    });
    return r;
}

std::string writeWorker(const SimJob &job, size_t w, const std::string &path)
{
    const SimWorker &sw = job.workers[w];
    File f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f)
        return path + ": " + std::strerror(errno);
    const std::string header = fmt(
        "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":%d,\"local_rank\":%d,"
        "\"world_size\":%d,\"group_rank\":%d,\"role\":\"trainer\",\"restart\":0,\"run_id\":\"sim-"
        "%" PRIu64 "\",\"host\":\"%s\",\"boot_id\":\"%s\",\"pid\":%d,\"clock\":\"monotonic_raw\","
        "\"anchor\":{\"mono_ns\":%" PRId64 ",\"wall_ns\":%" PRId64 ",\"spread_ns\":40},"
        "\"config\":null,\"start_ns\":%" PRId64 "}\n",
        sw.rank, sw.localRank, int(job.workers.size()), sw.host, job.config.seed,
        job.hostNames[size_t(sw.host)].c_str(), job.bootIds[size_t(sw.host)].c_str(), sw.pid,
        sw.startLocal, kWallEpochNs + (sw.startLocal - job.refBase), sw.startLocal);
    std::string out = header;
    out += fmt("{\"t\":\"thread\",\"tid\":%d,\"name\":\"main\"}\n", sw.tidMain);
    out += fmt("{\"t\":\"thread\",\"tid\":%d,\"name\":\"dataloader\"}\n", sw.tidLoader);
    int64_t written = 0, bytes = int64_t(out.size());
    int64_t nextHb = sw.startLocal + 1'000'000'000;
    for (const Record &rec : workerRecords(job, w)) {
        while (job.config.writeHeartbeats && rec.ts >= nextHb) {
            const std::string hb = fmt("{\"t\":\"hb\",\"ts\":%" PRId64 ",\"events\":%" PRId64
                                       ",\"dropped\":0,\"buffer_full\":0,\"bytes\":%" PRId64 "}\n",
                                       nextHb, written, bytes);
            out += hb;
            bytes += int64_t(hb.size());
            nextHb += 1'000'000'000;
        }
        out += rec.line;
        out += '\n';
        bytes += int64_t(rec.line.size()) + 1;
        ++written;
        if (out.size() > (1u << 20)) {
            std::fwrite(out.data(), 1, out.size(), f.get());
            out.clear();
        }
    }
    out += fmt("{\"t\":\"close\",\"ts\":%" PRId64 ",\"events\":%" PRId64
               ",\"dropped\":0,\"open\":0}\n",
               sw.endLocal, written);
    std::fwrite(out.data(), 1, out.size(), f.get());
    if (std::ferror(f.get()))
        return path + ": write failed";
    return {};
}

std::string writeTruth(const SimJob &job, const std::string &dir)
{
    const std::string p1 = dir + "/truth_events.csv", p2 = dir + "/truth_clock.csv",
                      p3 = dir + "/truth_workers.csv", p4 = dir + "/truth_steps.csv";
    File ev(std::fopen(p1.c_str(), "w"), &std::fclose),
        ck(std::fopen(p2.c_str(), "w"), &std::fclose),
        wk(std::fopen(p3.c_str(), "w"), &std::fclose),
        st(std::fopen(p4.c_str(), "w"), &std::fclose);
    if (!ev || !ck || !wk || !st)
        return dir + "/truth_*.csv: " + std::strerror(errno);
    std::fprintf(ev.get(),
                 "rank,event,name,tid,local_begin_ns,local_end_ns,true_begin_ns,true_end_ns\n");
    std::fprintf(ck.get(), "host,true_ns,local_ns,theta_ns\n");
    std::fprintf(wk.get(),
                 "rank,host,host_name,boot_id,offset_ns,drift_ppm,asymmetry_ns,floor_ns\n");
    std::fprintf(st.get(), "host,true_ns,size_ns\n");
    for (const SimWorker &w : job.workers) {
        for (size_t i = 0; i < w.events.size(); ++i) {
            const SimEvent &e = w.events[i];
            std::fprintf(ev.get(), "%d,%zu,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                         w.rank, i, job.names[size_t(e.nameId)].c_str(), e.tid, e.localBegin,
                         e.localEnd, e.trueBegin, e.trueEnd);
        }
        const TrueClock &c = job.clocks[size_t(w.host)];
        std::fprintf(wk.get(), "%d,%d,%s,%s,%.0f,%.6f,%.0f,%.0f\n", w.rank, w.host,
                     job.hostNames[size_t(w.host)].c_str(), job.bootIds[size_t(w.host)].c_str(),
                     c.offsetNs(), c.driftPpm(), c.asymmetryNs(), job.config.floorNs);
    }
    for (size_t h = 0; h < job.clocks.size(); ++h) {
        const TrueClock &c = job.clocks[h];
        for (double tau = 0; tau <= job.config.durationS * 1e9; tau += 1e9)
            std::fprintf(ck.get(), "%zu,%" PRId64 ",%" PRId64 ",%.1f\n", h, c.reference(tau),
                         c.local(tau), c.theta(tau));
        for (const ClockStep &s : c.steps())
            std::fprintf(st.get(), "%zu,%" PRId64 ",%.0f\n", h, c.reference(s.tau), s.sizeNs);
    }
    return {};
}

} // namespace

std::string JobLogWriter::logFileName(int rank)
{
    return "timer_events." + std::to_string(rank) + ".log";
}

std::string JobLogWriter::write(const SimJob &job, const std::string &dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return dir + ": " + ec.message();
    for (size_t w = 0; w < job.workers.size(); ++w) {
        const std::string err = writeWorker(job, w, dir + "/" + logFileName(job.workers[w].rank));
        if (!err.empty())
            return err;
    }
    return writeTruth(job, dir);
}

} // namespace syncline::sim
