// FileTimerClient — the recorder's API: nested, per-thread events written to one JSON Lines
// log per worker (docs/log-format.md), configured by timer_config.json (docs/config.md).
//
//   syncline::rec::FileTimerClient timer("timer_config.json", "timer_events.log");
//   timer.startEvent("forward");           // B
//   timer.startEvent("layer1", {{"i", int64_t(1)}});
//   timer.endEvent("layer1");              // E
//   timer.endEvent("forward");
//   { syncline::rec::ScopedEvent s(timer, "optimizer"); ... }   // or SYNCLINE_SCOPE
//
// Hot path (startEvent/endEvent/instant/recordInterval): a clock read, a thread-local name-id
// lookup and a 32-byte record pushed into this thread's buffer with one release store. It never
// blocks and never does I/O; the writer thread (LogWriter) formats and writes, at least every
// flush_interval_ms.
//
// Errors. The constructor throws ConfigError for a bad config file, bad log path template or
// bad environment (a setup mistake, reported before training starts). A log file that cannot be
// opened or written is NOT an exception: one line on stderr, ok() false, lastError() says why,
// recording calls go on working (records are discarded). Misuse throws TimerError and writes
// nothing: endEvent(name) when `name` is not the innermost open event of the calling thread or
// when nothing is open; an empty name; recordInterval with end < start.
//
// Nesting: each thread has its own stack of open events; B/E nest perfectly per thread.
// Callbacks: onStart(name) runs before the event is recorded (it is not part of the event's
// time; if it throws, the event is not started); onEnd(name) runs after the E is recorded (if
// it throws, the event has ended). Either way the log stays valid.
// fork(): in the child, every client created before fork() is disabled: calls are no-ops, it
// writes nothing (the parent's file is untouched by the child) and its destructor releases
// without writing a close record. A child that wants a log creates a new client (use {pid} or a
// distinct path). Clients created in the child work normally.
// Time sync: when config.sync.enabled and a server is configured (sync.server or env
// SYNCLINE_TIME_SERVER), a SyncClient thread exchanges bursts with it and every exchange is
// written as a `sync` record; with sync.host_server, rank 0 also runs the TimeServer on that
// port (clock: this client's clock). Failures (no server, port in use) are `note` records and
// one stderr line; recording is never affected.
// Shutdown: close() (idempotent; also the destructor, and an atexit handler for clients still
// alive at normal process exit) writes everything queued and a `close` record. Calls after
// close() are ignored.
// Threading: every member function is thread-safe; the client must outlive the threads that use
// it (their per-thread buffers are freed when the thread exits or the client is destroyed).
#pragma once

#include "recorder/clock.h"
#include "recorder/eventargs.h"
#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline::rec {

class ClientTimeSync;
class LogWriter;
class ThreadBuffer;
struct Record;
enum class RecordType : uint8_t;

class TimerError : public std::logic_error
{
public:
    using std::logic_error::logic_error;
};

struct TimerCallbacks
{
    std::function<void(std::string_view)> onStart;
    std::function<void(std::string_view)> onEnd;
};

// The recorder's counters (also what its LogWriter keeps); all zero in a fork child.
struct RecorderStats
{
    uint64_t events = 0;     // records accepted from the API (B, E, I, X, msg, thread)
    uint64_t written = 0;    // B/E/I/X/msg/thread records written to the file (none after an error)
    uint64_t dropped = 0;    // events lost to the overflow policy
    uint64_t bufferFull = 0; // times a thread found its buffer full
    uint64_t bytes = 0;      // bytes written to the file
    bool ioError = false;    // the file could not be opened or written
};

class FileTimerClient
{
public:
    using Callbacks = TimerCallbacks;

    // configPath: timer_config.json (missing file → defaults, noted in the log; "" → defaults).
    // logPath: a path template that replaces the config's log_path when not empty.
    explicit FileTimerClient(const std::string &configPath = "timer_config.json",
                             const std::string &logPath = "", Callbacks callbacks = {});
    ~FileTimerClient();
    FileTimerClient(const FileTimerClient &) = delete;
    FileTimerClient &operator=(const FileTimerClient &) = delete;

    void startEvent(std::string_view name);
    void startEvent(std::string_view name, const EventArgs &args);
    void endEvent(std::string_view name);
    void endEvent(std::string_view name, const EventArgs &args);
    void instant(std::string_view name, const EventArgs &args = {});
    // A complete interval measured elsewhere, in this client's clock (nowNs()) ns.
    void recordInterval(std::string_view name, int64_t startNs, int64_t endNs,
                        const EventArgs &args = {});
    // The same on a named track of its own instead of the calling thread's: for intervals that
    // overlap the caller's events without nesting in them (GPU work, asynchronous communication,
    // backward passes seen through hooks). Each track name gets one track, written with a tid
    // no thread has (-1, -2, ... in order of first use) and a `thread` record naming it.
    // Callable from any thread (one mutex per client orders the producers of these tracks).
    // An empty track name throws TimerError.
    void recordIntervalOnTrack(std::string_view track, std::string_view name, int64_t startNs,
                               int64_t endNs, const EventArgs &args = {});
    // One side of a message between ranks (a `msg` record, docs/log-format.md), stamped now on
    // the calling thread: send = true for the sending side; peer = the other rank; id matches the
    // send to its receive (unique in the job). The clock correction uses pairs as causality
    // constraints. An empty id throws TimerError.
    void message(bool send, int64_t peer, std::string_view id);
    // One sample of the counter `name` (a `C` record, format 1.1), stamped now: GPU memory,
    // loss, queue depth... The viewer draws each name as a line graph under the worker's tracks.
    // Hot path like instant(). A NaN or infinite value is written as null (shown as no sample).
    // An empty name throws TimerError.
    void counter(std::string_view name, double value);
    void setThreadName(std::string_view name);
    // Blocks until everything recorded before the call is written.
    void flush();
    // Writes everything queued and the close record, stops the threads; then, with the config's
    // event_store on, writes the log's index and event store in this thread (LogStoreWriter).
    void close();

    // This client's local clock (the stamps in the log).
    int64_t nowNs() const { return m_clock.now(); }
    // Global (reference) time: the sync client's estimate when time sync runs and has samples,
    // otherwise nowNs() (local time; boundNs, if given, is then -1 = unknown).
    int64_t globalTimeNs(int64_t *boundNs = nullptr) const;

    int64_t rank() const { return m_identity.rank; }
    // The file written: the expanded template, or its first free incarnation name when that
    // file existed (logs are never truncated; see LogPath::incarnation).
    std::string logPath() const { return m_logPath; }
    std::string configPath() const { return m_configPath; }
    const TimerConfig &config() const { return m_config; }
    const WorkerIdentity &identity() const { return m_identity; }
    RecorderStats stats() const;
    bool ok() const;
    std::string lastError() const;
    // False after close() and in a fork child.
    bool enabled() const;

private:
    ThreadBuffer *threadBuffer();
    ThreadBuffer *createThreadBuffer(std::string_view name);
    void beforeStart(std::string_view name); // name check and onStart callback
    void pushBegin(std::string_view name, std::string *args);
    void pushEnd(std::string_view name, std::string *args);
    // instant() and message(): checks `text` (TimerError(emptyError) when empty), sets the
    // record's type and time; returns the calling thread's buffer.
    ThreadBuffer *beginPoint(Record &r, RecordType type, std::string_view text,
                             const char *emptyError);
    void abandonAfterFork();
    void writeEventStore();

    const uint64_t m_serial; // unique per client in the process (thread-local cache key)
    const uint64_t m_forkGeneration;
    std::string m_configPath;
    TimerConfig m_config;
    WorkerIdentity m_identity;
    Clock m_clock;
    std::string m_logPath;
    std::string m_logFile; // m_logPath made absolute when the log was opened (the event store's)
    Callbacks m_callbacks;
    int64_t m_creatorTid = 0;
    std::atomic<bool> m_closed{false};
    std::atomic<int> m_threadCount{0};
    std::atomic<bool> m_counterNoted{false}; // the note for format-1.0 readers was written
    std::unique_ptr<LogWriter> m_writer;
    // Named tracks of recordIntervalOnTrack (their buffers are also the writer's), under
    // m_trackMutex.
    std::mutex m_trackMutex;
    std::vector<std::pair<std::string, std::shared_ptr<ThreadBuffer>>> m_tracks;
    // Time sync (config `sync`), only when a server is configured: rank 0 may host the time
    // server; every rank runs a SyncClient whose exchanges become `sync` records.
    std::unique_ptr<ClientTimeSync> m_timeSync;
};

} // namespace syncline::rec
