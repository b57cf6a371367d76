// FileTimerClient — see filetimerclient.h.
#include "recorder/filetimerclient.h"

#include "recorder/logpath.h"
#include "recorder/logwriter.h"
#include "recorder/nametable.h"
#include "recorder/recordformatter.h"
#include "recorder/syncclient.h"
#include "recorder/syncprotocol.h"
#include "recorder/threadbuffer.h"
#include "recorder/timeserver.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <set>
#include <sys/syscall.h>
#include <unistd.h>
#include <unordered_map>

namespace syncline::rec {

namespace {

std::atomic<uint64_t> g_nextSerial{1};
std::atomic<uint64_t> g_forkGeneration{0};

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

// Name → id, per thread: a direct-mapped cache on (pointer, length) whose hits are verified by
// content (so a reused pointer with other text cannot give a wrong id), then a hash map, then
// the global NameTable.
struct FastName
{
    const char *ptr;
    size_t len;
    uint32_t id;
    const std::string *text;
};
thread_local FastName t_fastNames[64];
struct SvHash
{
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
thread_local std::unordered_map<std::string, uint32_t, SvHash, std::equal_to<>> t_names;

uint32_t nameId(std::string_view name)
{
    FastName &f = t_fastNames[((uintptr_t(name.data()) >> 3) ^ name.size()) & 63];
    if (f.ptr == name.data() && f.len == name.size() && f.text &&
        std::memcmp(f.text->data(), name.data(), name.size()) == 0)
        return f.id;
    uint32_t id;
    if (auto it = t_names.find(name); it != t_names.end()) {
        id = it->second;
    } else {
        id = NameTable::instance().intern(name);
        t_names.emplace(std::string(name), id);
    }
    const std::string &text = NameTable::instance().name(id);
    f = {name.data(), name.size(), id, &text};
    return id;
}

} // namespace

// Live clients, for the atexit close and for fork safety (the mutex is held across fork()).
struct ClientRegistry
{
    static std::mutex &mutex()
    {
        static std::mutex *m = new std::mutex;
        return *m;
    }
    static std::set<FileTimerClient *> &clients()
    {
        static auto *s = new std::set<FileTimerClient *>;
        return *s;
    }
    static void closeAllAtExit()
    {
        std::vector<FileTimerClient *> live;
        {
            std::lock_guard<std::mutex> lock(mutex());
            live.assign(clients().begin(), clients().end());
        }
        for (FileTimerClient *c : live) {
            if (c->m_forkGeneration == g_forkGeneration.load())
                c->close();
        }
    }
    static void install()
    {
        static std::once_flag once;
        std::call_once(once, [] {
            std::atexit(closeAllAtExit);
            // Hold the registry and name-table locks across fork() so that the child never
            // inherits them locked by a thread that does not exist there.
            pthread_atfork(
                [] {
                    mutex().lock();
                    NameTable::instance().lockForFork();
                },
                [] {
                    NameTable::instance().unlockAfterFork();
                    mutex().unlock();
                },
                [] {
                    g_forkGeneration.fetch_add(1);
                    NameTable::instance().unlockAfterFork();
                    mutex().unlock();
                });
        });
    }
};

FileTimerClient::FileTimerClient(const std::string &configPath, const std::string &logPath,
                                 Callbacks callbacks)
    : m_serial(g_nextSerial.fetch_add(1)), m_forkGeneration(g_forkGeneration.load()),
      m_configPath(configPath), m_callbacks(std::move(callbacks))
{
    m_config = TimerConfig::loadOrDefaults(configPath);
    m_config.applyEnvironment([](const char *k) -> const char * { return std::getenv(k); });
    m_identity = WorkerIdentity::fromEnvironment();
    m_logPath = LogPath::expand(logPath.empty() ? m_config.logPath : logPath, m_identity);
    m_clock = Clock(m_config.clock, m_config.testClock.offsetNs, m_config.testClock.driftPpm);
    m_creatorTid = currentTid();

    const Clock::Anchor anchor = m_clock.anchor();
    const int64_t startNs = m_clock.now();
    m_writer = std::make_unique<LogWriter>(m_clock, m_logPath, m_config.flushIntervalMs,
                                           m_config.heartbeatIntervalMs);
    m_writer->open(headerLine(anchor, startNs));
    if (!m_config.loadedFromFile)
        m_writer->appendNote("info", configPath.empty()
                                         ? "no config file given; using defaults"
                                         : "no config file at " + configPath + "; using defaults");
    if (m_config.clock != m_clock.source())
        m_writer->appendNote(
            "warning", std::string("clock \"") + Clock::sourceName(m_config.clock) +
                           "\" unavailable; using \"" + Clock::sourceName(m_clock.source()) + "\"");
    m_writer->start();
    ClientRegistry::install();
    {
        std::lock_guard<std::mutex> lock(ClientRegistry::mutex());
        ClientRegistry::clients().insert(this);
    }
    startSync();
}

FileTimerClient::~FileTimerClient()
{
    if (m_forkGeneration != g_forkGeneration.load()) {
        abandonAfterFork();
    } else {
        close();
    }
    std::lock_guard<std::mutex> lock(ClientRegistry::mutex());
    ClientRegistry::clients().erase(this);
}

void FileTimerClient::startSync()
{
    const SyncSettings &sync = m_config.sync;
    if (!sync.enabled || !sync.server)
        return;
    const std::string server = *sync.server;
    if (sync.hostServer && m_identity.rank == 0) {
        TimeServerOptions opts;
        opts.token = sync.token;
        opts.bootId = m_identity.bootId;
        std::string host, error;
        // The port as the SyncClient reads `server` ("host", "host:port", "[v6]:port").
        if (!syncproto::splitHostPort(server, syncproto::kDefaultPort, false, &host, &opts.port,
                                      &error)) {
            m_writer->appendNote("warning", "time server not started: sync.server " + error);
        } else {
            m_timeServer = std::make_unique<TimeServer>(opts, [this] { return m_clock.now(); });
            if (m_timeServer->start(&error))
                m_writer->appendNote("info", "time server started on port " +
                                                 std::to_string(m_timeServer->port()));
            else
                m_writer->appendNote("warning", "time server not started: " + error);
        }
    }
    SyncClientOptions opts;
    opts.server = server;
    opts.burstSize = sync.burstSize;
    opts.intervalS = sync.intervalS;
    opts.timeoutMs = sync.timeoutMs;
    opts.token = sync.token;
    LogWriter *writer = m_writer.get();
    // Accepts onMessage(msg) and onMessage(level, msg): each becomes a `note` record.
    opts.onMessage = [writer](const auto &...parts) {
        const std::string text[] = {parts...};
        if constexpr (sizeof...(parts) == 2)
            writer->appendNote(text[0], text[1]);
        else
            writer->appendNote("warning", text[0]);
    };
    m_syncClient = std::make_unique<SyncClient>(
        opts, [this] { return m_clock.now(); },
        [writer](const SyncExchange &x) {
            writer->appendSync(x.burst, x.seq, x.ref, x.t1, x.t2, x.t3, x.t4);
        });
    m_syncClient->start();
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
    (void)m_syncClient.release();
    (void)m_timeServer.release();
}

std::string FileTimerClient::headerLine(const Clock::Anchor &anchor, int64_t startNs) const
{
    nlohmann::ordered_json h;
    h["t"] = "header";
    h["format"] = "syncline";
    h["version"] = 1;
    h["rank"] = m_identity.rank;
    h["local_rank"] = m_identity.localRank;
    h["world_size"] = m_identity.worldSize;
    h["group_rank"] = m_identity.groupRank;
    h["role"] = m_identity.role;
    h["restart"] = m_identity.restart;
    h["run_id"] = m_identity.runId;
    h["host"] = m_identity.host;
    h["boot_id"] = m_identity.bootId;
    h["pid"] = m_identity.pid;
    h["clock"] = Clock::sourceName(m_clock.source());
    h["anchor"] = {
        {"mono_ns", anchor.monoNs}, {"wall_ns", anchor.wallNs}, {"spread_ns", anchor.spreadNs}};
    if (m_config.loadedFromFile)
        h["config"] = m_config.sourcePath;
    else
        h["config"] = nullptr;
    h["start_ns"] = startNs;
    if (m_clock.hasTransform())
        h["skew"] = {{"offset_ns", m_clock.offsetNs()}, {"drift_ppm", m_clock.driftPpm()}};
    h["flush_interval_ms"] = m_config.flushIntervalMs;
    h["overflow"] = TimerConfig::overflowName(m_config.overflow);
    return h.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

bool FileTimerClient::enabled() const
{
    return !m_closed.load(std::memory_order_relaxed) &&
           m_forkGeneration == g_forkGeneration.load(std::memory_order_relaxed);
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
    r.nameId = nameId(threadName);
    buffer->pushOther(r);
    m_writer->addBuffer(std::move(buffer));
    return t_lastBuffer;
}

void FileTimerClient::pushBegin(std::string_view name, std::string *args)
{
    ThreadBuffer *b = threadBuffer();
    Record r;
    r.type = RecordType::Begin;
    r.nameId = nameId(name);
    r.args = args;
    r.ts = m_clock.now();
    const bool written = b->pushBegin(r);
    if (!written) {
        delete args;
        b->dropped.store(b->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    } else {
        b->openWritten.store(b->openWritten.load(std::memory_order_relaxed) + 1,
                             std::memory_order_relaxed);
    }
    b->stack().push_back({r.nameId, written});
}

void FileTimerClient::startEvent(std::string_view name)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("startEvent: empty event name");
    if (m_callbacks.onStart)
        m_callbacks.onStart(name);
    pushBegin(name, nullptr);
}

void FileTimerClient::startEvent(std::string_view name, const EventArgs &args)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("startEvent: empty event name");
    if (m_callbacks.onStart)
        m_callbacks.onStart(name);
    pushBegin(name, args.empty() ? nullptr : new std::string(RecordFormatter::formatArgs(args)));
}

void FileTimerClient::pushEnd(std::string_view name, std::string *args)
{
    const int64_t ts = m_clock.now();
    ThreadBuffer *b = threadBuffer();
    auto &stack = b->stack();
    const uint32_t id = nameId(name);
    if (stack.empty() || stack.back().nameId != id) {
        delete args;
        const std::string n(name);
        throw TimerError(stack.empty()
                             ? "endEvent(\"" + n + "\"): no event is open on this thread"
                             : "endEvent(\"" + n +
                                   "\"): the innermost open event of this "
                                   "thread is \"" +
                                   NameTable::instance().name(stack.back().nameId) + "\"");
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
    b->openWritten.store(b->openWritten.load(std::memory_order_relaxed) - 1,
                         std::memory_order_relaxed);
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
    pushEnd(name, args.empty() ? nullptr : new std::string(RecordFormatter::formatArgs(args)));
    if (m_callbacks.onEnd)
        m_callbacks.onEnd(name);
}

void FileTimerClient::instant(std::string_view name, const EventArgs &args)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("instant: empty event name");
    Record r;
    r.type = RecordType::Instant;
    r.ts = m_clock.now();
    ThreadBuffer *b = threadBuffer();
    r.nameId = nameId(name);
    r.args = args.empty() ? nullptr : new std::string(RecordFormatter::formatArgs(args));
    if (!b->pushOther(r)) {
        delete r.args;
        b->dropped.store(b->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
}

void FileTimerClient::recordInterval(std::string_view name, int64_t startNs, int64_t endNs,
                                     const EventArgs &args)
{
    if (!enabled())
        return;
    if (name.empty())
        throw TimerError("recordInterval: empty event name");
    if (endNs < startNs)
        throw TimerError("recordInterval(\"" + std::string(name) + "\"): end " +
                         std::to_string(endNs) + " is before start " + std::to_string(startNs));
    ThreadBuffer *b = threadBuffer();
    Record r;
    r.type = RecordType::Complete;
    r.nameId = nameId(name);
    r.ts = startNs;
    r.dur = endNs - startNs;
    r.args = args.empty() ? nullptr : new std::string(RecordFormatter::formatArgs(args));
    if (!b->pushOther(r)) {
        delete r.args;
        b->dropped.store(b->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
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
    r.nameId = nameId(name);
    if (!b->pushOther(r))
        b->dropped.store(b->dropped.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void FileTimerClient::flush()
{
    if (enabled())
        m_writer->flush();
}

void FileTimerClient::close()
{
    if (m_forkGeneration != g_forkGeneration.load())
        return; // fork child: see abandonAfterFork()
    if (m_closed.exchange(true))
        return;
    // The final sync burst is written before the close record; the server (rank 0) goes last.
    if (m_syncClient)
        m_syncClient->stop();
    m_writer->close();
    if (m_timeServer)
        m_timeServer->stop();
}

int64_t FileTimerClient::globalTimeNs(int64_t *boundNs) const
{
    const int64_t local = m_clock.now();
    int64_t global = local, bound = -1;
    if (m_syncClient && m_syncClient->estimate(local, &global, &bound)) {
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
    RecorderStats s;
    if (!m_writer)
        return s;
    const LogWriter::Stats w = m_writer->stats();
    s.events = w.recorded;
    s.written = w.written;
    s.dropped = w.dropped;
    s.bufferFull = w.bufferFull;
    s.bytes = w.bytes;
    s.ioError = !m_writer->error().empty();
    return s;
}

bool FileTimerClient::ok() const
{
    return m_writer && m_writer->error().empty();
}

std::string FileTimerClient::lastError() const
{
    return m_writer ? m_writer->error() : std::string("disabled after fork()");
}

void FileTimerClient::appendSyncRecord(int64_t burst, int64_t seq, std::string_view ref, int64_t t1,
                                       int64_t t2, int64_t t3, int64_t t4)
{
    if (enabled())
        m_writer->appendSync(burst, seq, ref, t1, t2, t3, t4);
}

void FileTimerClient::appendNote(std::string_view level, std::string_view msg)
{
    if (enabled())
        m_writer->appendNote(level, msg);
}

} // namespace syncline::rec
