// LiveFollower — the loop that keeps a LiveJob current without a GUI (the headless
// `syncline attach --until-idle`, the benchmark, scripts): wait for the DirWatcher (inotify, or
// the polling interval), read what was appended, merge it, repeat.
//
// step(): waits up to the schedule's tick (default 250 ms, so worker states are re-evaluated at
// least four times a second even when nothing is written), reads when a file changed or a rescan
// is due — paced by FollowSchedule, the same schedule the viewer's LiveController follows (at
// most one read per 20 ms, a rescan when names changed and every 2 s anyway) — then
// LiveJob::ingest() + commit(), and adds any new log directory to the watcher.
// Threading: one thread; owns neither the job nor anything shared.
#pragma once

#include "timeline/live/dirwatcher.h"
#include "timeline/live/followschedule.h"
#include "timeline/live/livejob.h"

#include <chrono>
#include <functional>

namespace syncline {

class LiveFollower
{
public:
    using Options = FollowOptions;

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
    DirWatcher m_watcher;
    FollowSchedule m_schedule;
};

} // namespace syncline
