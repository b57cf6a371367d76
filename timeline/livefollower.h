// LiveFollower — the loop that keeps a LiveJob current without a GUI (the headless
// `syncline attach --until-idle`, the benchmark, scripts): wait for the DirWatcher (inotify, or
// the polling interval), read what was appended, merge it, repeat.
//
// step(): waits up to `tickMs` (default 250 ms, so worker states are re-evaluated at least four
// times a second even when nothing is written), coalesces bursts of change notifications by
// reading at most once per `minIntervalMs` (default 20 ms), re-resolves the inputs when names
// changed (every 5 s anyway as a safety net), then LiveJob::ingest() + commit(), and adds any
// new log directory to the watcher.
// Threading: one thread; owns neither the job nor anything shared.
#pragma once

#include "dirwatcher.h"
#include "livejob.h"

#include <chrono>
#include <functional>

namespace syncline {

class LiveFollower
{
public:
    struct Options
    {
        DirWatcher::Mode mode = DirWatcher::Mode::Auto;
        int pollIntervalMs = DirWatcher::kDefaultPollMs;
        int tickMs = 250;
        int minIntervalMs = 20;
    };

    LiveFollower(LiveJob &job, const Options &options);
    LiveUpdate step();
    // Steps until no file changed for idleS seconds (after at least one step), calling
    // onUpdate after every step; returns false when `stop` (polled each step) asked to stop.
    bool runUntilIdle(double idleS, const std::function<void(const LiveUpdate &)> &onUpdate = {},
                      const std::function<bool()> &stop = {});
    const DirWatcher &watcher() const { return m_watcher; }

private:
    void watchNewDirectories();

    LiveJob &m_job;
    Options m_options;
    DirWatcher m_watcher;
    std::chrono::steady_clock::time_point m_lastRead{};
    std::chrono::steady_clock::time_point m_lastRescan{};
};

} // namespace syncline
