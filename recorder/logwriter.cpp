// LogWriter — see logwriter.h.
#include "recorder/logwriter.h"

#include "recorder/filekind.h"
#include "recorder/filetimerclient.h"
#include "recorder/logpath.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::rec {

namespace {
constexpr size_t kWriteThreshold = 1 << 20; // write early when this much text is pending
constexpr size_t kDrainBatch = 16384;

int64_t steadyNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

LogWriter::LogWriter(const Clock &clock, std::string path, int flushIntervalMs,
                     int heartbeatIntervalMs)
    : m_clock(clock), m_path(std::move(path)), m_flushNs(int64_t(flushIntervalMs) * 1000000),
      m_pollNs(std::clamp<int64_t>(m_flushNs / 4, 500000, 10000000)),
      m_heartbeatNs(int64_t(heartbeatIntervalMs) * 1000000)
{
    m_out.reserve(kWriteThreshold + 65536);
}

LogWriter::~LogWriter()
{
    close();
}

namespace {
constexpr int kMaxIncarnations = 10000; // names tried after the configured one
} // namespace

bool LogWriter::open(const std::string &headerLine, int restart, int64_t pid)
{
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(m_path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec); // open() reports what matters
    const std::string configured = m_path;
    std::string why;
    // O_EXCL: never truncate, never share. O_NONBLOCK: an open() that reaches a FIFO (it cannot
    // with O_EXCL, but the character-device case opens an existing path) must not wait.
    constexpr int kFlags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK;
    for (int n = -1; n < kMaxIncarnations && m_fd < 0 && why.empty(); ++n) {
        const std::string candidate =
            n < 0 ? configured : LogPath::incarnation(configured, restart, pid, n);
        m_fd = ::open(candidate.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
        if (m_fd >= 0) {
            m_path = candidate;
            break;
        }
        if (errno != EEXIST) {
            m_path = candidate;
            why = std::strerror(errno);
            break;
        }
        struct stat st
        {
        };
        const bool exists = ::stat(candidate.c_str(), &st) == 0;
        if (n < 0 && exists && S_ISCHR(st.st_mode)) { // /dev/null, /dev/full: written as is
            m_fd = ::open(candidate.c_str(), kFlags);
            if (m_fd < 0)
                why = std::strerror(errno);
            break;
        }
        if (n < 0 && exists && !S_ISREG(st.st_mode)) {
            why = FileKind::notRegular(st.st_mode);
            break;
        }
        // An earlier incarnation's log (or a dangling link): try the next name.
    }
    if (m_fd < 0 && why.empty())
        why = "no free name after " + std::to_string(kMaxIncarnations) + " incarnations";
    if (m_fd < 0) {
        m_failed = true;
        reportError("cannot open log file '" + m_path + "': " + why +
                    "; events will not be recorded (the process goes on)");
        return false;
    }
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) & ~O_NONBLOCK);
    appendText(headerLine);
    writeOut();
    if (m_path != configured)
        appendNote("info", configured +
                               " exists (an earlier incarnation's log, kept); this one "
                               "writes " +
                               m_path);
    return !m_failed;
}

void LogWriter::start()
{
    m_thread = new std::thread([this] { run(); });
}

void LogWriter::close()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_closed)
            return;
        m_closed = true;
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread) {
        m_thread->join();
        delete m_thread;
        m_thread = nullptr;
    } else {
        finish(); // never started: write what there is
    }
    m_flushed.notify_all();
}

void LogWriter::abandon()
{
    m_thread = nullptr; // the thread does not exist in the child; leak its handle
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_failed = true;
}

void LogWriter::addBuffer(std::shared_ptr<ThreadBuffer> buffer)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_buffers.push_back(std::move(buffer));
}

void LogWriter::appendNote(std::string_view level, std::string_view msg)
{
    std::string line;
    RecordFormatter::appendNote(line, m_clock.now(), level, msg);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_side += line;
}

void LogWriter::appendSync(int64_t burst, int64_t seq, std::string_view ref, int64_t t1, int64_t t2,
                           int64_t t3, int64_t t4)
{
    std::string line;
    RecordFormatter::appendSync(line, burst, seq, ref, t1, t2, t3, t4);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_side += line;
}

void LogWriter::flush()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (m_closed || !m_thread)
        return;
    const uint64_t ticket = ++m_flushRequested;
    m_wake.notify_all();
    m_flushed.wait(lock, [&] { return m_flushDone >= ticket || m_closed; });
}

RecorderStats LogWriter::stats() const
{
    RecorderStats s;
    std::lock_guard<std::mutex> lock(m_mutex);
    s.events = m_retiredRecorded;
    s.dropped = m_retiredDropped;
    s.bufferFull = m_retiredFull;
    for (const auto &b : m_buffers) {
        s.events += b->accepted.load(std::memory_order_relaxed);
        s.dropped += b->dropped.load(std::memory_order_relaxed);
        s.bufferFull += b->bufferFull.load(std::memory_order_relaxed);
    }
    s.written = m_written.load(std::memory_order_relaxed);
    s.bytes = m_bytes.load(std::memory_order_relaxed);
    s.ioError = !m_error.empty();
    return s;
}

std::string LogWriter::error() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_error;
}

// The schedule (flush F, tick P = F/4 clamped to 0.5..10 ms): the writer wakes on a timer every
// P — at absolute deadlines, so a slow pass does not push the next one back — and not on volume
// (only a full batch, more than one drain can take at once, makes it go on without waiting). A
// record waits at most P to be drained; text drained is written once it is F - 2P old, checked
// every P: so a record is written at most P + (F - 2P) + P = F after it was recorded, as long as
// the thread runs when its timer fires (see docs/reliability.md for what a loaded machine adds).
void LogWriter::run()
{
#ifdef PR_SET_TIMERSLACK
    ::prctl(PR_SET_TIMERSLACK, 1000UL); // wake within 1 µs of the deadline (default 50 µs)
#endif
    int64_t nextHeartbeat = steadyNs() + m_heartbeatNs;
    auto nextTick = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<ThreadBuffer>> buffers;
    std::string side;
    for (;;) {
        uint64_t ticket;
        bool stop;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            ticket = m_flushRequested;
            stop = m_stop;
            buffers = m_buffers;
            side.swap(m_side);
        }
        const size_t drained = drainAll(buffers);
        if (!side.empty()) {
            appendText(side);
            side.clear();
        }
        if (stop) {
            finish();
            return;
        }
        const int64_t now = steadyNs();
        if (now >= nextHeartbeat) {
            checkStillLinked();
            const RecorderStats s = stats();
            std::string hb;
            // Each heartbeat pairs the clock with the wall clock again (the header's anchor is
            // one pair): readers place a host by its wall clock all along (--clock wall).
            const Clock::Anchor a = m_clock.anchor(3);
            RecordFormatter::appendHeartbeat(hb, a.monoNs, s.written, s.dropped, s.bufferFull,
                                             s.bytes, a.wallNs, a.spreadNs);
            appendText(hb);
            nextHeartbeat = now + m_heartbeatNs;
        }
        if (ticket > m_flushDone ||
            (m_pendingSince >= 0 && now - m_pendingSince >= m_flushNs - 2 * m_pollNs))
            writeOut();
        std::unique_lock<std::mutex> lock(m_mutex);
        if (ticket > m_flushDone) {
            m_flushDone = ticket;
            m_flushed.notify_all();
        }
        if (drained >= kDrainBatch)
            continue; // a burst: drain on at once rather than let the buffers fill
        nextTick += std::chrono::nanoseconds(m_pollNs);
        const auto wakeNow = std::chrono::steady_clock::now();
        if (nextTick <= wakeNow) // late (a long pass, or the thread did not run): no catch-up
            nextTick = wakeNow + std::chrono::nanoseconds(m_pollNs);
        m_wake.wait_until(lock, nextTick, [&] { return m_stop || m_flushRequested > m_flushDone; });
    }
}

size_t LogWriter::drainAll(const std::vector<std::shared_ptr<ThreadBuffer>> &buffers)
{
    size_t total = 0;
    for (const auto &b : buffers) {
        const bool retired = b->retired.load(std::memory_order_acquire);
        const int64_t tid = b->tid();
        size_t n;
        do {
            const bool wasEmpty = m_out.empty();
            uint64_t count = 0;
            n = b->drain(
                [&](Record &r) {
                    m_formatter.append(m_out, r, tid);
                    delete r.args;
                    r.args = nullptr;
                    ++count;
                },
                kDrainBatch);
            if (!m_failed) { // after an I/O failure records are discarded, not written
                m_written.fetch_add(count, std::memory_order_relaxed);
                m_outRecords += count;
            }
            total += n;
            if (wasEmpty && !m_out.empty())
                m_pendingSince = steadyNs();
            if (m_out.size() >= kWriteThreshold)
                writeOut();
        } while (n == kDrainBatch);
        if (retired && b->empty())
            retire(b);
    }
    return total;
}

void LogWriter::retire(const std::shared_ptr<ThreadBuffer> &b)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_retiredRecorded += b->accepted.load(std::memory_order_relaxed);
    m_retiredDropped += b->dropped.load(std::memory_order_relaxed);
    m_retiredFull += b->bufferFull.load(std::memory_order_relaxed);
    m_retiredOpen += b->openWritten.load(std::memory_order_relaxed);
    m_buffers.erase(std::remove(m_buffers.begin(), m_buffers.end(), b), m_buffers.end());
}

void LogWriter::appendText(const std::string &text)
{
    if (m_out.empty())
        m_pendingSince = steadyNs();
    m_out += text;
}

void LogWriter::checkStillLinked()
{
    struct stat st
    {
    };
    if (m_failed || m_fd < 0 || ::fstat(m_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 0)
        return;
    writeOut(); // what is queued goes to the unlinked inode's last readers, if any
    m_failed = true;
    reportError("log file '" + m_path +
                "' was deleted while being written; further events are discarded (the process "
                "goes on)");
}

void LogWriter::writeOut()
{
    m_pendingSince = -1;
    const uint64_t records = m_outRecords;
    m_outRecords = 0;
    if (m_out.empty())
        return;
    if (m_failed || m_fd < 0) {
        m_out.clear();
        return;
    }
    size_t done = 0;
    while (done < m_out.size()) {
        const ssize_t w = ::write(m_fd, m_out.data() + done, m_out.size() - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            const int err = w < 0 ? errno : ENOSPC;
            m_failed = true;
            // This batch's records did not all reach the file: `written` counts none of them.
            m_written.fetch_sub(records, std::memory_order_relaxed);
            reportError("writing log file '" + m_path + "' failed: " + std::strerror(err) +
                        "; further events are discarded (the process goes on)");
            break;
        }
        done += size_t(w);
        m_bytes.fetch_add(uint64_t(w), std::memory_order_relaxed);
    }
    m_out.clear();
}

void LogWriter::reportError(const std::string &msg)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_error.empty())
            return;
        m_error = msg;
    }
    std::fprintf(stderr, "syncline: %s\n", msg.c_str());
}

int64_t LogWriter::openEvents()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    int64_t open = m_retiredOpen;
    for (const auto &b : m_buffers)
        open += b->openWritten.load(std::memory_order_relaxed);
    return open;
}

void LogWriter::finish()
{
    std::vector<std::shared_ptr<ThreadBuffer>> buffers;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        buffers = m_buffers;
        m_out += m_side;
        m_side.clear();
    }
    drainAll(buffers);
    checkStillLinked();
    const RecorderStats s = stats();
    std::string line;
    const Clock::Anchor a = m_clock.anchor(3);
    RecordFormatter::appendClose(line, a.monoNs, s.written, s.dropped, openEvents(), a.wallNs,
                                 a.spreadNs);
    appendText(line);
    writeOut();
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

} // namespace syncline::rec
