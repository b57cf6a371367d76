// DirWatcher — tells a live reader (LiveJob) when files in a job's log directories may have
// changed: appended to, created, renamed into place or removed.
//
// Two mechanisms:
//  - Inotify: one watch per directory (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE |
//    IN_CLOSE_WRITE | IN_ATTRIB); wait() sleeps in poll(2) on the inotify fd, so an idle job
//    costs nothing but the wake-ups its own writes (records, heartbeats) cause.
//  - Polling: wait() returns every interval (default 250 ms, kDefaultPollMs) and the reader
//    re-reads every file from its offset — the fallback for file systems where inotify sees no
//    writes made on other machines (NFS, SMB/CIFS, Lustre, GPFS, CephFS, BeeGFS, 9p, FUSE).
// Mode::Auto picks Polling when any watched directory is on such a file system (statfs f_type)
// or when inotify cannot be set up, Inotify otherwise.
//
// wait() reports `entriesChanged` when a name appeared, moved or vanished (the reader should
// re-resolve its inputs; polling cannot see names appear: there FollowSchedule's periodic
// rescan finds them) and `filesChanged` when some file's data may have grown.
// Threading: one thread calls wait()/addDirectory(); fd() may be handed to a QSocketNotifier
// on another thread (it is only read from, never closed, until destruction).
#pragma once

#include "timeline/live/liveupdate.h"

#include <string>
#include <vector>

namespace syncline {

struct DirChanges
{
    bool filesChanged = false;   // data may have been appended
    bool entriesChanged = false; // names created / moved / removed: re-resolve the inputs
    bool timedOut = false;       // nothing happened within the timeout
};

class DirWatcher
{
public:
    using Mode = WatchMode;
    static constexpr int kDefaultPollMs = FollowOptions().pollIntervalMs;

    explicit DirWatcher(Mode mode = Mode::Auto, int pollIntervalMs = kDefaultPollMs);
    ~DirWatcher();
    DirWatcher(const DirWatcher &) = delete;
    DirWatcher &operator=(const DirWatcher &) = delete;

    // Adds a directory (idempotent). In Auto mode a network file system switches the watcher
    // to polling for good. Returns false with *error when the directory cannot be watched.
    bool addDirectory(const std::string &dir, std::string *error = nullptr);
    // Blocks up to timeoutMs (< 0: forever) for a change; in polling mode returns after
    // min(timeout, interval) with filesChanged set (the reader must look).
    DirChanges wait(int timeoutMs);
    // Non-blocking: drains the inotify queue (for callers that poll fd() themselves).
    DirChanges drain();

    Mode mode() const { return m_mode; } // Inotify or Polling once constructed
    int pollIntervalMs() const { return m_pollMs; }
    int fd() const { return m_fd; } // inotify fd, -1 in polling mode
    const std::vector<std::string> &directories() const { return m_dirs; }
    // True when `dir` lies on a file system where inotify misses remote writes.
    static bool isNetworkFileSystem(const std::string &dir, std::string *fsName = nullptr);
    static const char *modeName(Mode mode);

private:
    void switchToPolling();

    Mode m_mode;
    int m_pollMs;
    int m_fd = -1;
    std::vector<std::string> m_dirs;
};

} // namespace syncline
