// Helpers of the live-job tests (tst_livejob, tst_livedirectory): appending to real files,
// sync and heartbeat records, polling a LiveJob until a condition holds, live_worker processes.
#pragma once

#include "tests/timeline/testlogs.h"

#include "sync/syncengine.h"
#include "timeline/live/dirwatcher.h"
#include "timeline/live/livefollower.h"
#include "timeline/live/livejob.h"
#include "timeline/load/jobloader.h"

#include <QtTest>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace livetest {

using namespace syncline;

inline void append(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

inline std::string syncRecord(int burst, int seq, int64_t t1, int64_t offset)
{
    const int64_t t2 = t1 + offset + 20000, t3 = t2 + 1000, t4 = t3 - offset + 20000;
    return "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) +
           ",\"seq\":" + std::to_string(seq) + ",\"ref\":\"srv\",\"t1\":" + std::to_string(t1) +
           ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
           ",\"t4\":" + std::to_string(t4) + "}\n";
}

inline std::string heartbeat(int64_t ts)
{
    return "{\"t\":\"hb\",\"ts\":" + std::to_string(ts) +
           ",\"events\":1,\"dropped\":0,\"buffer_full\":0,\"bytes\":1}\n";
}

// Polls until `done` or the (generous) timeout; returns whether done became true.
inline bool pollUntil(LiveJob &job, const std::function<bool()> &done, int timeoutMs = 20000)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < until) {
        job.poll();
        if (done())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

inline int workerOfRank(const LiveJob &job, int rank)
{
    const Timeline &tl = *job.timeline();
    for (size_t i = 0; i < tl.workers.size(); ++i)
        if (tl.workers[i].info.rank == rank)
            return int(i);
    return -1;
}

// A child process running live_worker with the given rank.
inline pid_t startWorker(const std::string &dir, int rank, int world)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("RANK", std::to_string(rank).c_str(), 1);
        ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
        const std::string config = dir + "/timer_config.json", log = dir + "/rank{rank}.log";
        ::execl(SYNCLINE_BINARY_DIR "/tests/live_worker", "live_worker", "--config", config.c_str(),
                "--log", log.c_str(), "--step-ms", "5", nullptr);
        ::_exit(127);
    }
    return pid;
}

inline LiveOptions options(const std::string &dir)
{
    LiveOptions o;
    o.path = dir;
    return o;
}

} // namespace livetest
