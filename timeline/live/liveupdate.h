// liveupdate — the live stage's vocabulary, all a user interface needs of it (the viewer
// includes only this header, and drives a job through ui/LiveController): what to follow
// (LiveOptions, FollowOptions), what a commit changed (LiveUpdate, LiveTrackChange) and how each
// worker stands (WorkerState, LiveWorkerStatus). Plain values; no threading rules of their own.
#pragma once

#include "timeline/live/followschedule.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

enum class WorkerState : uint8_t
{
    Running,
    Silent,
    Finished,
    EndedWithoutClose
};

// How a job's directories are watched (DirWatcher): Auto picks Polling on network file systems.
enum class WatchMode
{
    Auto,
    Inotify,
    Polling
};

// How a follower (LiveFollower headless, LiveController in the viewer) watches and paces.
struct FollowOptions
{
    WatchMode mode = WatchMode::Auto;
    int pollIntervalMs = 250; // polling mode: look at every file this often
    FollowSchedule::Intervals schedule;
};

struct LiveOptions
{
    std::string path; // the job's log directory (or a timer_config.json)
    std::string alignOn;
    bool correctClocks = true;
    bool alignCollectives = true; // false: --no-align (ClockCorrector::Options)
    bool wallClocks = false;      // --clock wall (ClockCorrector::Options::wallClocks)
    double silentAfterS = -1.0; // < 0: the config's silent_after_s
    double endedAfterS = 0.0;   // workers on other machines: silent this long → ended; 0 = never
    int clockRefreshMs = 1000;  // at most one clock refresh per interval
    size_t readChunkBytes = 4 << 20;
    // Most log files kept open between reads; the files past it are opened for each read and
    // closed after it (a replacement is then found by device and inode). 0: a quarter of the
    // open-file limit in force when the job starts, at least 16.
    size_t maxOpenFiles = 0;
};

// One track that got new events in a commit (indices valid after that commit): events before
// `from` kept their index, depth, parent and start; from `from` on they are new or re-nested.
struct LiveTrackChange
{
    uint32_t worker = 0;
    uint32_t track = 0;
    uint32_t from = 0;
};

struct LiveUpdate
{
    uint64_t revision = 0; // bumped whenever anything visible changed
    int64_t newBytes = 0;
    size_t newEvents = 0;
    size_t closedEvents = 0;
    bool structureChanged = false; // workers or tracks were added (indices may have shifted)
    bool clockChanged = false;
    bool statesChanged = false;
    bool countersChanged = false; // counter samples or series were added (Worker::counters)
    bool newCounters = false;     // ... of which new series (a view relays its rows)
    bool linksChanged = false;    // Timeline::links was rebuilt (message arrows; a view re-indexes)
    size_t newNames = 0;          // names interned into Timeline::names
    std::vector<LiveTrackChange> changedTracks; // what a view must re-index (incremental views)
    bool changed() const
    {
        return newEvents || closedEvents || structureChanged || clockChanged || statesChanged ||
               countersChanged || linksChanged;
    }
};

// One worker as the live job sees it after a commit (LiveJob::status()).
struct LiveWorkerStatus
{
    WorkerState state = WorkerState::Running;
    double silentForS = 0; // seconds since its file last grew
    std::string sourceFile;
    // Why it counts as ended (EndedWithoutClose only; e.g. "its process is gone", "probably
    // crashed: restart 1 of rank 3 started"); "" otherwise.
    std::string endReason;
};

const char *workerStateName(WorkerState state);

} // namespace syncline
