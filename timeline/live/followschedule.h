// FollowSchedule — when a live follower reads, and when it re-resolves the job's inputs: the one
// schedule shared by the headless LiveFollower and the viewer's LiveController, so both follow a
// job at the same pace. A pure value type: it never sleeps, reads a clock or touches a file; the
// caller passes the steady-clock time.
//
// Rules (defaults in Intervals):
//   - a read starts no earlier than minReadIntervalMs after the previous one started: a writer
//     flushing every few ms must not make the follower parse every few ms (bursts coalesce);
//   - a read re-resolves the inputs (lists the directories: new ranks, elastic restarts) when it
//     is the first, when names in a watched directory changed (namesChanged()), or when
//     rescanIntervalMs passed since the last rescan — a safety net for names that appear without
//     a notification (a new subdirectory, polling, network file systems); such a rescan is due
//     even when no file changed (rescanDue());
//   - a commit without a read happens at least every tickMs, so worker states (silent, ended)
//     and open events move on time.
// Example (defaults): reads start at t = 0 (rescan), then on changes at 20, 40, ... ms at the
// earliest; with no notification at all, the next read is the rescan at t = 2000 ms.
// Threading: none of its own; one owner.
#pragma once

#include <chrono>

namespace syncline {

struct FollowIntervals
{
    int tickMs = 250;
    int minReadIntervalMs = 20;
    int rescanIntervalMs = 2000;
};

class FollowSchedule
{
public:
    using Clock = std::chrono::steady_clock;
    using Intervals = FollowIntervals;

    explicit FollowSchedule(Intervals intervals = {}) : m_intervals(intervals) {}

    const Intervals &intervals() const { return m_intervals; }
    bool started() const { return m_started; }
    // Names in a watched directory were created, moved or removed: the next read rescans.
    void namesChanged() { m_namesChanged = true; }
    // The earliest time the next read may start (a time in the past: now).
    Clock::time_point earliestRead() const
    {
        return m_started ? m_lastRead + std::chrono::milliseconds(m_intervals.minReadIntervalMs)
                         : Clock::time_point::min();
    }
    // Whether a read that starts at `now` re-resolves the inputs.
    bool rescanDue(Clock::time_point now) const
    {
        return !m_started || m_namesChanged ||
               now - m_lastRescan >= std::chrono::milliseconds(m_intervals.rescanIntervalMs);
    }
    // Records that a read starts at `now`; returns whether it rescans (rescanDue(now)).
    bool beginRead(Clock::time_point now)
    {
        const bool rescan = rescanDue(now);
        m_started = true;
        m_lastRead = now;
        if (rescan) {
            m_namesChanged = false;
            m_lastRescan = now;
        }
        return rescan;
    }

private:
    Intervals m_intervals;
    bool m_started = false;
    bool m_namesChanged = false;
    Clock::time_point m_lastRead{};
    Clock::time_point m_lastRescan{};
};

} // namespace syncline
