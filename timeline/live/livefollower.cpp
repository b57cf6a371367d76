#include "timeline/live/livefollower.h"

#include <algorithm>
#include <thread>

namespace syncline {

using SteadyClock = std::chrono::steady_clock;

LiveFollower::LiveFollower(LiveJob &job, const Options &options)
    : m_job(job), m_watcher(options.mode, options.pollIntervalMs),
      m_schedule(options.schedule)
{
    watchNewDirectories();
}

void LiveFollower::watchNewDirectories()
{
    for (const std::string &d : m_job.directories())
        m_watcher.addDirectory(d);
}

LiveUpdate LiveFollower::step()
{
    DirChanges c;
    if (!m_schedule.started()) {
        c.filesChanged = true;
    } else {
        c = m_watcher.wait(m_schedule.intervals().tickMs);
        // Coalesce: a writer flushing every few ms must not make us parse every few ms.
        if (c.filesChanged && SteadyClock::now() < m_schedule.earliestRead()) {
            std::this_thread::sleep_until(m_schedule.earliestRead());
            c.entriesChanged = m_watcher.drain().entriesChanged || c.entriesChanged;
        }
    }
    if (c.entriesChanged)
        m_schedule.namesChanged();
    const auto now = SteadyClock::now();
    bool rescan = false;
    if (c.filesChanged || m_schedule.rescanDue(now)) {
        rescan = m_schedule.beginRead(now);
        m_job.ingest(rescan);
    }
    const LiveUpdate u = m_job.commit();
    if (rescan)
        watchNewDirectories();
    return u;
}

bool LiveFollower::runUntilIdle(double idleS,
                                const std::function<void(const LiveUpdate &)> &onUpdate,
                                const std::function<bool()> &stop)
{
    const auto idle = std::chrono::duration_cast<SteadyClock::duration>(
        std::chrono::duration<double>(std::max(0.0, idleS)));
    for (;;) {
        const LiveUpdate u = step();
        if (onUpdate)
            onUpdate(u);
        if (stop && stop())
            return false;
        if (SteadyClock::now() - m_job.lastChange() >= idle)
            return true;
    }
}

} // namespace syncline
