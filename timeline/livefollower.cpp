#include "livefollower.h"

#include <algorithm>
#include <thread>

namespace syncline {

using SteadyClock = std::chrono::steady_clock;

LiveFollower::LiveFollower(LiveJob &job, const Options &options)
    : m_job(job), m_options(options), m_watcher(options.mode, options.pollIntervalMs)
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
    const bool first = m_lastRead == SteadyClock::time_point{};
    DirChanges c;
    if (first) {
        c.filesChanged = c.entriesChanged = true;
    } else {
        c = m_watcher.wait(m_options.tickMs);
        // Coalesce: a writer flushing every few ms must not make us parse every few ms.
        const auto next = m_lastRead + std::chrono::milliseconds(m_options.minIntervalMs);
        if (c.filesChanged && SteadyClock::now() < next) {
            std::this_thread::sleep_until(next);
            const DirChanges more = m_watcher.drain();
            c.entriesChanged = c.entriesChanged || more.entriesChanged;
        }
    }
    const auto now = SteadyClock::now();
    const bool rescan = c.entriesChanged || now - m_lastRescan > std::chrono::seconds(5);
    if (rescan)
        m_lastRescan = now;
    if (c.filesChanged || rescan) {
        m_job.ingest(rescan);
        m_lastRead = SteadyClock::now();
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
