#include "timeline/live/dirwatcher.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/vfs.h>
#include <thread>
#include <unistd.h>

namespace syncline {

namespace {

constexpr uint32_t kWatchMask =
    IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB;

struct FsMagic
{
    unsigned long magic;
    const char *name;
};

// statfs f_type values (linux/magic.h and the file systems' own headers).
constexpr FsMagic kNetworkFs[] = {
    {0x6969, "nfs"},        {0x517B, "smb"},       {0xFF534D42, "cifs"}, {0xFE534D42, "smb2"},
    {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"},  {0x00C36400, "ceph"}, {0x19830326, "beegfs"},
    {0x01021997, "9p"},     {0x65735546, "fuse"},  {0x5346414F, "afs"},  {0x6B414653, "kafs"},
    {0x013111A8, "ibrix"},  {0x7461636F, "ocfs2"}, {0x1161970, "gfs2"},
};

} // namespace

DirWatcher::DirWatcher(Mode mode, int pollIntervalMs)
    : m_mode(mode), m_pollMs(std::max(10, pollIntervalMs))
{
    if (m_mode == Mode::Polling)
        return;
    m_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    m_mode = m_fd >= 0 ? Mode::Inotify : Mode::Polling;
}

DirWatcher::~DirWatcher()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

const char *DirWatcher::modeName(Mode mode)
{
    switch (mode) {
    case Mode::Inotify:
        return "inotify";
    case Mode::Polling:
        return "polling";
    default:
        return "auto";
    }
}

bool DirWatcher::isNetworkFileSystem(const std::string &dir, std::string *fsName)
{
    struct statfs s
    {
    };
    if (::statfs(dir.c_str(), &s) != 0)
        return false;
    for (const FsMagic &m : kNetworkFs)
        if (static_cast<unsigned long>(s.f_type) == m.magic) {
            if (fsName)
                *fsName = m.name;
            return true;
        }
    return false;
}

void DirWatcher::switchToPolling()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_mode = Mode::Polling;
}

bool DirWatcher::addDirectory(const std::string &dir, std::string *error)
{
    if (std::find(m_dirs.begin(), m_dirs.end(), dir) != m_dirs.end())
        return true;
    if (m_mode == Mode::Inotify && isNetworkFileSystem(dir))
        switchToPolling();
    if (m_mode == Mode::Inotify && inotify_add_watch(m_fd, dir.c_str(), kWatchMask) < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) {
            if (error)
                *error = dir + ": cannot watch: " + std::strerror(err);
            return false;
        }
        switchToPolling(); // out of watches (ENOSPC) or not supported: poll instead
    }
    m_dirs.push_back(dir);
    return true;
}

DirChanges DirWatcher::drain()
{
    DirChanges c;
    if (m_fd < 0)
        return c;
    alignas(inotify_event) char buf[16384];
    for (;;) {
        const ssize_t n = ::read(m_fd, buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t off = 0; off < n;) {
            const auto *ev = reinterpret_cast<const inotify_event *>(buf + off);
            if (ev->mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB))
                c.filesChanged = true;
            if (ev->mask & (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_Q_OVERFLOW))
                c.entriesChanged = c.filesChanged = true;
            off += ssize_t(sizeof(inotify_event) + ev->len);
        }
    }
    return c;
}

DirChanges DirWatcher::wait(int timeoutMs)
{
    if (m_mode == Mode::Polling) {
        const int ms = timeoutMs < 0 ? m_pollMs : std::min(timeoutMs, m_pollMs);
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        DirChanges c;
        c.filesChanged = true;
        return c;
    }
    pollfd p{m_fd, POLLIN, 0};
    int r;
    do {
        r = ::poll(&p, 1, timeoutMs);
    } while (r < 0 && errno == EINTR);
    if (r <= 0) {
        DirChanges c;
        c.timedOut = true;
        return c;
    }
    return drain();
}

} // namespace syncline
