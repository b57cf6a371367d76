// LogWriter — the one writer thread of a FileTimerClient: drains every ThreadBuffer, formats
// JSON Lines (RecordFormatter) and write()s them to the log file.
//
// Guarantees: anything queued is written within flush_interval_ms of being recorded, while the
// writer thread gets a core when its timer fires (it wakes every flushInterval/4, clamped to
// 0.5..10 ms, at absolute deadlines, whatever the volume; see run()); an `hb` record every heartbeat_interval_ms; a `close` record on close().
// Recording threads never wait for it. I/O failures (cannot open, ENOSPC, EIO…) print one
// message to stderr, set error() (and stats().ioError), and from then on text is discarded while
// the buffers keep being drained; the process goes on. So does a log deleted while being
// written (st_nlink == 0 at a heartbeat or at close). stats().written counts only records that
// reached the file: a batch whose write failed, and everything after, is not counted.
// Side records (sync, note) from other threads go through a small mutex-protected queue — not
// the hot path.
// Threading: all public functions are thread-safe except start()/close()/abandon(), which the
// owning client calls. After fork() the child must call abandon() only.
#pragma once

#include "recorder/clock.h"
#include "recorder/recordformatter.h"
#include "recorder/threadbuffer.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace syncline::rec {

struct RecorderStats; // filetimerclient.h: the client's stats are the writer's

class LogWriter
{
public:
    LogWriter(const Clock &clock, std::string path, int flushIntervalMs, int heartbeatIntervalMs);
    ~LogWriter();

    // Creates missing parent directories, creates a new file and writes `headerLine`. A log is
    // never truncated or shared: when the path exists as a regular file (an earlier
    // incarnation's log), the first free LogPath::incarnation(path, restart, pid, n) is created
    // instead (O_CREAT|O_EXCL, so two processes never get one file); path() is the file in use.
    // An existing character device (/dev/null) is written as it is; any other existing
    // non-regular file (a FIFO: open() would block) is refused. False (and error() set, one
    // line on stderr) when it fails; the writer then discards.
    bool open(const std::string &headerLine, int restart = 0, int64_t pid = 0);
    const std::string &path() const { return m_path; }
    void start();
    // Stops the thread after writing everything queued and a close record; idempotent.
    void close();
    // In a fork child: forget the (non-existent) thread and close the fd; writes nothing.
    void abandon();

    void addBuffer(std::shared_ptr<ThreadBuffer> buffer);
    void appendNote(std::string_view level, std::string_view msg);
    void appendSync(int64_t burst, int64_t seq, std::string_view ref, int64_t t1, int64_t t2,
                    int64_t t3, int64_t t4);
    // Blocks until everything queued before the call is written (or discarded after an error).
    void flush();

    RecorderStats stats() const;
    std::string error() const;

private:
    void run();
    size_t drainAll(const std::vector<std::shared_ptr<ThreadBuffer>> &buffers);
    void retire(const std::shared_ptr<ThreadBuffer> &b);
    void appendText(const std::string &text);
    void writeOut();
    // The log was unlinked (st_nlink == 0, checked at every heartbeat and at close): reported
    // like a write failure, and from then on events are discarded, not counted as written.
    void checkStillLinked();
    void reportError(const std::string &msg);
    void finish();
    int64_t openEvents();

    const Clock m_clock;
    std::string m_path; // set by open(), then fixed
    const int64_t m_flushNs;
    const int64_t m_pollNs;
    const int64_t m_heartbeatNs;
    int m_fd = -1;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_flushed;
    std::vector<std::shared_ptr<ThreadBuffer>> m_buffers;
    std::string m_side;
    uint64_t m_flushRequested = 0;
    uint64_t m_flushDone = 0;
    bool m_stop = false;
    bool m_closed = false;
    std::string m_error;
    std::thread *m_thread = nullptr; // a pointer so that a fork child can leak it

    // Writer-thread state.
    RecordFormatter m_formatter;
    std::string m_out;
    int64_t m_pendingSince = -1;
    bool m_failed = false;
    uint64_t m_outRecords = 0; // records formatted into m_out since the last writeOut()
    uint64_t m_retiredDropped = 0, m_retiredFull = 0, m_retiredRecorded = 0;
    int64_t m_retiredOpen = 0;
    std::atomic<uint64_t> m_written{0}, m_bytes{0};
};

} // namespace syncline::rec
