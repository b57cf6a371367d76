#include "syncclient.h"

#include "syncestimator.h"
#include "syncprotocol.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <netdb.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace syncline::rec {

namespace {
using SteadyClock = std::chrono::steady_clock;
enum class Phase
{
    Resolving,
    Active,
    Done
};
enum class ExchangeResult
{
    Ok,
    Timeout,
    Refused
};
constexpr auto kResolveGrace = std::chrono::seconds(1);
} // namespace

struct SyncClient::State
{
    SyncClientOptions opts;
    std::function<int64_t()> now;
    std::function<void(const SyncExchange &)> sink;
    uint64_t tokenHash = 0;
    uint64_t nextRequestId = 0;

    mutable std::mutex mutex; // guards everything below
    std::condition_variable cv;
    std::thread thread;
    bool stopRequested = false;
    bool abandoned = false;
    bool messageGiven = false;
    Phase phase = Phase::Resolving;
    SyncClientCounters counters;
    std::string ref;
    SyncEstimator estimator;

    bool stopping()
    {
        std::lock_guard<std::mutex> lock(mutex);
        return stopRequested;
    }
    // Waits up to `seconds` or until stop(); true when stop was requested.
    bool waitOrStop(double seconds)
    {
        std::unique_lock<std::mutex> lock(mutex);
        return cv.wait_for(lock, std::chrono::duration<double>(seconds),
                           [this] { return stopRequested; });
    }
    // A problem: stderr the first time only, onMessage every time.
    void message(const std::string &text)
    {
        bool print = false;
        {
            std::lock_guard<std::mutex> lock(mutex);
            print = !messageGiven;
            messageGiven = true;
        }
        if (print)
            std::fprintf(stderr, "syncline: %s\n", text.c_str());
        if (opts.onMessage)
            opts.onMessage(text);
    }
};

namespace {

using State = SyncClient::State;

// Resolves and connects a UDP socket to the server; -1 with *error on failure.
int connectSocket(const std::string &server, std::string *error)
{
    std::string host;
    int port = 0;
    if (!syncproto::splitHostPort(server, syncproto::kDefaultPort, false, &host, &port, error))
        return -1;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo *list = nullptr;
    if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list); rc) {
        *error = "cannot resolve time server '" + server + "': " + gai_strerror(rc);
        return -1;
    }
    int fd = -1;
    for (addrinfo *ai = list; ai && fd < 0; ai = ai->ai_next) {
        fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        // connect(): the kernel then drops datagrams from other peers and reports ICMP
        // "port unreachable" as ECONNREFUSED, so a dead server on a live host shows at once.
        if (fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            *error = "time server '" + server + "': connect: " + std::strerror(errno);
            ::close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    return fd;
}

// One request/reply. On Ok fills x (burst, seq and ref are the caller's).
ExchangeResult exchange(State &st, int fd, SyncExchange *x, uint64_t *serverBoot)
{
    syncproto::Packet req;
    req.tokenHash = st.tokenHash;
    req.requestId = ++st.nextRequestId;
    unsigned char out[syncproto::kPacketSize];
    const auto deadline = SteadyClock::now() + std::chrono::milliseconds(st.opts.timeoutMs);
    req.t1 = st.now();
    syncproto::encode(req, out);
    if (::send(fd, out, sizeof out, 0) < 0)
        return errno == ECONNREFUSED ? ExchangeResult::Refused : ExchangeResult::Timeout;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
        pollfd pfd{fd, POLLIN, 0};
        if (left.count() < 0 || ::poll(&pfd, 1, int(std::max<int64_t>(0, left.count()))) == 0)
            return ExchangeResult::Timeout;
        unsigned char in[512];
        const ssize_t n = ::recv(fd, in, sizeof in, MSG_DONTWAIT);
        const int64_t t4 = st.now();
        if (n < 0) {
            if (errno == ECONNREFUSED)
                return ExchangeResult::Refused;
            continue; // EAGAIN/EINTR: poll again
        }
        syncproto::Packet rep;
        if (syncproto::decode(in, size_t(n), &rep) != syncproto::DecodeStatus::Ok ||
            rep.kind != syncproto::Kind::Reply || rep.tokenHash != st.tokenHash ||
            rep.requestId != req.requestId || rep.t1 != req.t1 ||
            !syncproto::replyTimesUsable(req.t1, rep.t2, rep.t3, t4)) {
            std::lock_guard<std::mutex> lock(st.mutex);
            ++st.counters.badReplies; // a late reply to an earlier request, or garbage
            continue;
        }
        x->t1 = req.t1;
        x->t2 = rep.t2;
        x->t3 = rep.t3;
        x->t4 = t4;
        *serverBoot = rep.bootHash;
        return ExchangeResult::Ok;
    }
}

std::string refFor(const std::string &server, uint64_t bootHash)
{
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bootHash));
    return server + "@" + hex;
}

// Publishes one exchange: ref bookkeeping, counters, then the sink.
void publish(State &st, SyncExchange &x, uint64_t boot)
{
    const std::string ref = refFor(st.opts.server, boot);
    {
        std::lock_guard<std::mutex> lock(st.mutex);
        if (ref != st.ref) {
            if (!st.ref.empty())
                ++st.counters.refChanges;
            st.ref = ref;
            st.estimator.clear(); // another reference clock: never mix
        }
        ++st.counters.exchanges;
    }
    x.ref = ref;
    if (st.sink)
        st.sink(x);
}

// One burst; returns the number of exchanges completed. A final burst (at stop), or one in flight
// when stop() is called, gives up at its first timeout; a regular one after two in a row.
int burst(State &st, int fd, int32_t number, bool final)
{
    int done = 0, timeoutsInRow = 0;
    int64_t lower = INT64_MIN, upper = INT64_MAX, firstMid = 0, midSum = 0;
    for (int32_t seq = 0; seq < st.opts.burstSize; ++seq) {
        SyncExchange x;
        x.burst = number;
        x.seq = seq;
        uint64_t boot = 0;
        const ExchangeResult r = exchange(st, fd, &x, &boot);
        if (r != ExchangeResult::Ok) {
            std::lock_guard<std::mutex> lock(st.mutex);
            ++st.counters.timeouts;
            // Give up on a refusal, after two timeouts in a row, or after one once stop() waits.
            if (r == ExchangeResult::Refused || final || st.stopRequested || ++timeoutsInRow >= 2)
                break;
            continue;
        }
        timeoutsInRow = 0;
        publish(st, x, boot);
        ++done;
        lower = std::max(lower, x.t3 - x.t4);
        upper = std::min(upper, x.t2 - x.t1);
        const int64_t mid = x.t1 + (x.t4 - x.t1) / 2;
        if (done == 1)
            firstMid = mid;
        midSum += mid - firstMid; // relative: no overflow on ns since boot
    }
    std::lock_guard<std::mutex> lock(st.mutex);
    ++st.counters.bursts;
    st.counters.answering = done > 0;
    if (done == 0)
        ++st.counters.failedBursts;
    else
        st.estimator.addBurst(firstMid + midSum / done, lower, upper);
    return done;
}

} // namespace

namespace {

void runSyncThread(const std::shared_ptr<State> &st)
{
    const double interval = std::max(st->opts.intervalS, 0.001);
    const double firstBackoff = std::min(interval, 1.0);
    // Resolving (DNS) backs off up to maxBackoffS; a silent server only up to the interval, so
    // samples resume within one interval of the path coming back, however long the outage.
    const double maxResolveBackoff = std::max(interval, st->opts.maxBackoffS);
    const double maxBackoff = interval;
    double backoff = firstBackoff;
    std::string error;
    int fd = -1;
    // Phase 1: resolve and connect (only host name resolution can block here).
    for (bool first = true; (fd = connectSocket(st->opts.server, &error)) < 0; first = false) {
        if (first)
            st->message(error + "; no clock sync until it does (retrying with back-off)");
        if (st->waitOrStop(backoff))
            break;
        backoff = std::min(backoff * 2, maxResolveBackoff);
    }
    {
        std::lock_guard<std::mutex> lock(st->mutex);
        if (st->abandoned || fd < 0) {
            st->phase = Phase::Done;
            st->cv.notify_all();
            if (fd >= 0)
                ::close(fd);
            return;
        }
        st->phase = Phase::Active;
        st->cv.notify_all();
    }
    // Phase 2: a burst at start, one every interval, back-off while the server is silent, and
    // a final burst once stop() was requested.
    backoff = firstBackoff;
    bool failing = false, answered = false;
    const auto quietUntil = SteadyClock::now() +
                            std::chrono::duration_cast<SteadyClock::duration>(
                                std::chrono::duration<double>(std::max(0.0, st->opts.quietStartS)));
    for (int32_t number = 0;; ++number) {
        const bool final = st->stopping();
        const int done = burst(*st, fd, number, final);
        if (final)
            break;
        double wait = interval;
        answered = answered || done > 0;
        if (done == 0 && !answered && SteadyClock::now() < quietUntil) {
            wait = std::min(interval, 0.1); // the server is expected to start soon
        } else if (done == 0) {
            if (!failing)
                st->message("time server " + st->opts.server + st->opts.serverOrigin +
                            " is not answering (timeout " + std::to_string(st->opts.timeoutMs) +
                            " ms); clock sync samples will have a gap; retrying with back-off");
            wait = backoff;
            backoff = std::min(backoff * 2, maxBackoff);
            failing = true;
        } else {
            failing = false;
            backoff = firstBackoff;
        }
        st->waitOrStop(wait);
    }
    ::close(fd);
    std::lock_guard<std::mutex> lock(st->mutex);
    st->phase = Phase::Done;
    st->cv.notify_all();
}

} // namespace

SyncClient::SyncClient(SyncClientOptions opts, std::function<int64_t()> now,
                       std::function<void(const SyncExchange &)> sink)
    : m_state(std::make_shared<State>())
{
    m_state->opts = std::move(opts);
    m_state->opts.burstSize = std::max(1, m_state->opts.burstSize);
    m_state->opts.timeoutMs = std::max(1, m_state->opts.timeoutMs);
    m_state->now = std::move(now);
    m_state->sink = std::move(sink);
    m_state->tokenHash = syncproto::tokenHash(m_state->opts.token);
    std::random_device rd; // request ids start at a random point: replies to another
    m_state->nextRequestId = (uint64_t(rd()) << 32) ^ rd(); // process's requests never match
}

SyncClient::~SyncClient()
{
    stop();
}

void SyncClient::start()
{
    if (m_started || m_state->thread.joinable() || m_state->stopRequested)
        return; // one run per SyncClient
    m_started = true;
    std::shared_ptr<State> st = m_state;
    m_state->thread = std::thread([st] { runSyncThread(st); });
}

void SyncClient::stop()
{
    if (!m_started)
        return;
    m_started = false;
    std::unique_lock<std::mutex> lock(m_state->mutex);
    m_state->stopRequested = true;
    m_state->cv.notify_all();
    const bool settled = m_state->cv.wait_for(
        lock, kResolveGrace, [this] { return m_state->phase != Phase::Resolving; });
    if (!settled) {
        // Stuck in getaddrinfo(): leave it; it sees `abandoned` and exits without calling
        // the clock or the sink. The shared State keeps what it touches alive.
        m_state->abandoned = true;
        lock.unlock();
        m_state->thread.detach();
        return;
    }
    lock.unlock();
    m_state->thread.join(); // Active: the final burst is bounded by timeouts
}

bool SyncClient::estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const
{
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->estimator.estimate(localNs, globalNs, boundNs);
}

SyncClientCounters SyncClient::counters() const
{
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->counters;
}

std::string SyncClient::ref() const
{
    std::lock_guard<std::mutex> lock(m_state->mutex);
    return m_state->ref;
}

} // namespace syncline::rec
