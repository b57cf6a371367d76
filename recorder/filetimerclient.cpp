// FileTimerClient — see filetimerclient.h.
#include "recorder/filetimerclient.h"

#include "recorder/clientregistry.h"
#include "recorder/clienttimesync.h"
#include "recorder/headerrecord.h"
#include "recorder/logpath.h"
#include "recorder/logstorewriter.h"
#include "recorder/logwriter.h"
#include "recorder/nameidcache.h"
#include "recorder/nametable.h"
#include "recorder/recordformatter.h"
#include "recorder/threadbuffer.h"
#include "recorder/timerange.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace syncline::rec {

namespace {

std::atomic<uint64_t> g_nextSerial{1};

int64_t currentTid()
{
    return int64_t(::syscall(SYS_gettid));
}

// The calling thread's buffers, one per client it recorded into. Its destructor (thread exit)
// marks them retired so the writer frees them once drained.
struct TlsBuffers
{
    std::vector<std::pair<uint64_t, std::shared_ptr<ThreadBuffer>>> slots;
    ~TlsBuffers()
    {
        for (auto &s : slots)
            s.second->retired.store(true, std::memory_order_release);
    }
};
thread_local TlsBuffers t_buffers;
thread_local uint64_t t_lastSerial = 0; // one-entry cache in front of t_buffers
thread_local ThreadBuffer *t_lastBuffer = nullptr;

std::string *formattedArgs(const EventArgs &args)
{
    return args.empty() ? nullptr : new std::string(RecordFormatter::formatArgs(args));
}

// An I/X/thread record: queued, or dropped and counted (its args freed) when the buffer is full.
void pushOrDrop(ThreadBuffer *b, const Record &r)
{
    if (r.nameId == NameTable::kFull || !b->pushOther(r)) {
        delete r.args;
        b->countDrop();
    }
}

} // namespace

FileTimerClient::FileTimerClient(const std::string &configPath, const std::string &logPath,
                                 Callbacks callbacks)
    : m_serial(g_nextSerial.fetch_add(1)), m_forkGeneration(ClientRegistry::forkGeneration()),
      m_configPath(configPath), m_callbacks(std::move(callbacks))
{
    m_config = TimerConfig::loadOrDefaults(configPath);
    m_config.applyEnvironment([](const char *k) -> const char * { return std::getenv(k); });
    m_identity = WorkerIdentity::fromEnvironment();
    m_logPath = LogPath::expand(logPath.empty() ? m_config.logPath : logPath, m_identity);
    m_clock = Clock(m_config.clock, m_config.testClock.offsetNs, m_config.testClock.driftPpm,
                    m_config.testClock.wallOffsetNs);
    m_creatorTid = currentTid();

    const Clock::Anchor anchor = m_clock.anchor();
    const int64_t startNs = m_clock.now();
    m_writer = std::make_unique<LogWriter>(m_clock, m_logPath, m_config.flushIntervalMs,
                                           m_config.heartbeatIntervalMs);
    m_writer->open(HeaderRecord::format(m_identity, m_clock, anchor, m_config, startNs),
                   int(m_identity.restart), m_identity.pid);
    m_logPath = m_writer->path(); // another name when the configured file existed
    // The file as it is named now: the process may change its directory before close().
    std::error_code ec;
    m_logFile = std::filesystem::absolute(m_logPath, ec).string();
    if (!m_config.loadedFromFile)
        m_writer->appendNote("info", configPath.empty()
                                         ? "no config file given; using defaults"
                                         : "no config file at " + configPath + "; using defaults");
    if (m_config.clock != m_clock.source())
        m_writer->appendNote(
            "warning", std::string("clock \"") + Clock::sourceName(m_config.clock) +
                           "\" unavailable; using \"" + Clock::sourceName(m_clock.source()) + "\"");
    m_writer->start();
    ClientRegistry::add(this);
    if (m_config.sync.enabled && m_config.sync.server)
        m_timeSync =
            std::make_unique<ClientTimeSync>(m_config.sync, m_identity, m_clock, *m_writer);
}

FileTimerClient::~FileTimerClient()
{
    if (m_forkGeneration != ClientRegistry::forkGeneration()) {
        abandonAfterFork();
    } else {
        close();
    }
    ClientRegistry::remove(this);
}

void FileTimerClient::abandonAfterFork()
{
    // In a fork child: the writer and sync threads do not exist here. Leak what refers to
    // them; write nothing (the file belongs to the parent).
    m_closed.store(true);
    if (m_writer) {
        m_writer->abandon();
        (void)m_writer.release();
    }
    (void)m_timeSync.release();
}

bool FileTimerClient::enabled() const
{
    return !m_closed.load(std::memory_order_relaxed) &&
           m_forkGeneration == ClientRegistry::forkGeneration(std::memory_order_relaxed);
}

ThreadBuffer *FileTimerClient::threadBuffer()
{
    if (t_lastSerial == m_serial)
        return t_lastBuffer;
    for (auto &slot : t_buffers.slots) {
        if (slot.first == m_serial) {
            t_lastSerial = m_serial;
            t_lastBuffer = slot.second.get();
            return t_lastBuffer;
        }
    }
    return createThreadBuffer({});
}

ThreadBuffer *FileTimerClient::createThreadBuffer(std::string_view name)
{
    const int64_t tid = currentTid();
    auto buffer = std::make_shared<ThreadBuffer>(tid, size_t(m_config.bufferEvents),
                                                 m_config.overflow == OverflowPolicy::Grow);
    // Forget buffers of clients that are gone (their writer dropped its reference).
    auto &slots = t_buffers.slots;
    for (size_t i = 0; i < slots.size();) {
        if (slots[i].second.use_count() == 1) {
            slots[i] = std::move(slots.back());
            slots.pop_back();
        } else {
            ++i;
        }
    }
    slots.emplace_back(m_serial, buffer);
    t_lastSerial = m_serial;
    t_lastBuffer = buffer.get();
    std::string threadName(name);
    if (threadName.empty())
        threadName =
            tid == m_creatorTid ? std::string("main") : "thread-" + std::to_string(++m_threadCount);
    Record r;
    r.type = RecordType::ThreadName;
    r.nameId = NameIdCache::id(threadName);
    if (r.nameId != NameTable::kFull)
        buffer->pushOther(r);
    else
        buffer->countDrop();
    m_writer->addBuffer(std::move(buffer));
    return t_lastBuffer;
}

void FileTimerClient::beforeStart(std::string_view name)
{
    if (name.empty())
        throw TimerError("startEvent: empty event name");
    if (m_callbacks.onStart)
        m_callbacks.onStart(name);
}

void FileTimerClient::pushBegin(std::string_view name, std::string *args)
{
    ThreadBuffer *b = threadBuffer();
    Record r;
    r.type = RecordType::Begin;
    r.nameId = NameIdCache::id(name);
    r.args = args;
    r.ts = m_clock.now();
    const bool written = r.nameId != NameTable::kFull && b->pushBegin(r);
    if (!written) {
        delete args;
        b->countDrop();
    } else {
        b->addOpenWritten(1);
    }
    b->stack().push_back({r.nameId, written});
}

void FileTimerClient::startEvent(std::string_view name)
{
    if (!enabled())
        return;
    beforeStart(name);
    pushBegin(name, nullptr);
}

void FileTimerClient::startEvent(std::string_view name, const EventArgs &args)
{
    if (!enabled())
        return;
    beforeStart(name);
    pushBegin(name, formattedArgs(args));
}

void FileTimerClient::pushEnd(std::string_view name, std::string *args)
{
    const int64_t ts = m_clock.now();
    ThreadBuffer *b = threadBuffer();
    auto &stack = b->stack();
    const uint32_t id = NameIdCache::id(name);
    if (stack.empty() || stack.back().nameId != id) {
        delete args;
        const std::string n(name);
        throw TimerError(stack.empty()
                             ? "endEvent(\"" + n + "\"): no event is open on this thread"
                             : "endEvent(\"" + n +
                                   "\"): the innermost open event of this "
                                   "thread is \"" +
                                   (stack.back().nameId == NameTable::kFull
                                        ? std::string("(a name past the name table's limit)")
                                        : NameTable::instance().name(stack.back().nameId)) +
                                   "\"");
    }
    const bool written = stack.back().written;
    stack.pop_back();
    if (!written) {
        delete args; // its B was dropped: drop the E too (counted once, at the B)
        return;
    }
    Record r;
    r.type = RecordType::End;
    r.nameId = id;
    r.ts = ts;
    r.args = args;
    b->pushEnd(r);
    b->addOpenWritten(-1);
}

void FileTimerClient::endEvent(std::string_view name)
{
    if (!enabled())
        return;
    pushEnd(name, nullptr);
    if (m_callbacks.onEnd)
        m_callbacks.onEnd(name);
}

void FileTimerClient::endEvent(std::string_view name, const EventArgs &args)
{
    if (!enabled())
        return;
    pushEnd(name, formattedArgs(args));
    if (m_callbacks.onEnd)
        m_callbacks.onEnd(name);
}

// The one preamble of the point records (instant, msg): the text checked, the time read first
// (before the buffer lookup, so the stamp is as close to the call as it can be), the buffer.
// Defined here, before its callers, so that it inlines into them: the hot path stays one call.
inline ThreadBuffer *FileTimerClient::beginPoint(Record &r, RecordType type, std::string_view text,
                                                 const char *emptyError)
{
    if (text.empty())
        throw TimerError(emptyError);
    r.type = type;
    r.ts = m_clock.now();
    return threadBuffer();
}

void FileTimerClient::instant(std::string_view name, const EventArgs &args)
{
    if (!enabled())
        return;
    Record r;
    ThreadBuffer *b = beginPoint(r, RecordType::Instant, name, "instant: empty event name");
    r.nameId = NameIdCache::id(name);
    r.args = formattedArgs(args);
    pushOrDrop(b, r);
}

void FileTimerClient::recordInterval(std::string_view name, int64_t startNs, int64_t endNs,
                                     const EventArgs &args)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("recordInterval: empty event name");
    if (!logTimeInRange(startNs) || !logTimeInRange(endNs))
        throw TimerError("recordInterval(\"" + std::string(name) + "\"): start " +
                         std::to_string(startNs) + " or end " + std::to_string(endNs) +
                         " is outside the log's time range (|t| <= 2^62 ns)");
    if (endNs < startNs)
        throw TimerError("recordInterval(\"" + std::string(name) + "\"): end " +
                         std::to_string(endNs) + " is before start " + std::to_string(startNs));
    ThreadBuffer *b = threadBuffer();
    Record r;
    r.type = RecordType::Complete;
    r.nameId = NameIdCache::id(name);
    r.ts = startNs;
    r.dur = endNs - startNs;
    r.args = formattedArgs(args);
    pushOrDrop(b, r);
}

void FileTimerClient::recordIntervalOnTrack(std::string_view track, std::string_view name,
                                            int64_t startNs, int64_t endNs, const EventArgs &args)
{
    if (!enabled())
        return;
    if (track.empty())
        throw TimerError("recordIntervalOnTrack: empty track name");
    if (name.empty())
        throw TimerError("recordIntervalOnTrack: empty event name");
    if (endNs < startNs)
        throw TimerError("recordIntervalOnTrack(\"" + std::string(name) + "\"): end " +
                         std::to_string(endNs) + " is before start " + std::to_string(startNs));
    Record r;
    r.type = RecordType::Complete;
    r.nameId = NameIdCache::id(name);
    r.ts = startNs;
    r.dur = endNs - startNs;
    r.args = formattedArgs(args);
    std::lock_guard<std::mutex> lock(m_trackMutex);
    ThreadBuffer *b = nullptr;
    for (auto &t : m_tracks)
        if (t.first == track)
            b = t.second.get();
    if (!b) {
        // A tid no thread has: Linux thread ids are positive.
        auto buffer = std::make_shared<ThreadBuffer>(-int64_t(m_tracks.size()) - 1,
                                                     size_t(m_config.bufferEvents),
                                                     m_config.overflow == OverflowPolicy::Grow);
        Record t;
        t.type = RecordType::ThreadName;
        t.nameId = NameIdCache::id(track);
        buffer->pushOther(t);
        b = buffer.get();
        m_tracks.emplace_back(std::string(track), buffer);
        m_writer->addBuffer(std::move(buffer));
    }
    pushOrDrop(b, r);
}

void FileTimerClient::message(bool send, int64_t peer, std::string_view id)
{
    if (!enabled())
        return;
    Record r;
    ThreadBuffer *b = beginPoint(r, RecordType::Message, id, "message: empty id");
    r.nameId = send ? 0 : 1;
    r.dur = peer;
    std::string *text = new std::string;
    RecordFormatter::appendEscaped(*text, id);
    r.args = text;
    pushOrDrop(b, r);
}

void FileTimerClient::counter(std::string_view name, double value)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("counter: empty counter name");
    Record r;
    r.type = RecordType::Counter;
    r.ts = m_clock.now();
    ThreadBuffer *b = threadBuffer();
    r.nameId = NameIdCache::id(name);
    static_assert(sizeof(r.dur) == sizeof value);
    std::memcpy(&r.dur, &value, sizeof value);
    if (!m_counterNoted.load(std::memory_order_relaxed) && !m_counterNoted.exchange(true))
        // Readers of format 1.0 skip `C` records silently (unknown type); they show notes.
        m_writer->appendNote("info", "this log holds counter records (\"t\":\"C\", log format "
                                     "1.1); readers of format 1.0 skip them");
    pushOrDrop(b, r);
}

void FileTimerClient::setThreadName(std::string_view name)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("setThreadName: empty name");
    bool exists = t_lastSerial == m_serial;
    for (auto &slot : t_buffers.slots)
        exists = exists || slot.first == m_serial;
    if (!exists) {
        createThreadBuffer(name); // its first thread record carries the name
        return;
    }
    ThreadBuffer *b = threadBuffer();
    Record r;
    r.type = RecordType::ThreadName;
    r.nameId = NameIdCache::id(name);
    pushOrDrop(b, r);
}

void FileTimerClient::flush()
{
    if (enabled())
        m_writer->flush();
}

void FileTimerClient::close()
{
    if (m_forkGeneration != ClientRegistry::forkGeneration())
        return; // fork child: see abandonAfterFork()
    if (m_closed.exchange(true))
        return;
    // The final sync burst is written before the close record; the server (rank 0) goes last.
    if (m_timeSync)
        m_timeSync->stopClient();
    m_writer->close();
    if (m_timeSync)
        m_timeSync->stopServer();
    if (m_config.eventStore)
        writeEventStore();
}

void FileTimerClient::writeEventStore()
{
    // Only a whole log: one whose writing failed, or /dev/null, is left as it is.
    struct stat st
    {
    };
    if (!m_writer->error().empty() || m_logFile.empty() || ::stat(m_logFile.c_str(), &st) != 0 ||
        !S_ISREG(st.st_mode))
        return;
    const LogStoreWriter write = logStoreWriter();
    std::string error;
    if (!write)
        error = "this program does not link syncline's loader";
    else if (write(m_logFile, m_config, &error))
        return;
    std::fprintf(stderr, "syncline: %s: event store not written (%s); the log is parsed when opened\n",
                 m_logFile.c_str(), error.c_str());
}

int64_t FileTimerClient::globalTimeNs(int64_t *boundNs) const
{
    const int64_t local = m_clock.now();
    int64_t global = local, bound = -1;
    if (m_timeSync && m_timeSync->estimate(local, &global, &bound)) {
        if (boundNs)
            *boundNs = bound;
        return global;
    }
    if (boundNs)
        *boundNs = -1;
    return local;
}

RecorderStats FileTimerClient::stats() const
{
    return m_writer ? m_writer->stats() : RecorderStats();
}

bool FileTimerClient::ok() const
{
    return m_writer && m_writer->error().empty();
}

std::string FileTimerClient::lastError() const
{
    return m_writer ? m_writer->error() : std::string("disabled after fork()");
}

} // namespace syncline::rec
