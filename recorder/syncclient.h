// SyncClient — the recorder's sync thread: bursts of NTP-style exchanges with the time server
// (syncprotocol.h), one burst at start(), one every intervalS seconds, one at stop(). Every
// completed exchange goes to the sink (FileTimerClient writes it as a `sync` record); the recent
// bursts feed a live estimate of reference time (SyncEstimator).
//
// Exchange: t1 = now() just before send(), t4 = now() right after recv() returns; the reply must
// carry our token hash and the request id we sent (stale or foreign replies are dropped and
// counted). An exchange that times out (timeoutMs) is not reported. Burst numbers count every
// burst attempted, from 0, so a failed burst leaves a gap; seq is the exchange's index within its
// burst. ref = "<server as configured>@<server boot hash, 16 hex>": bursts against a different
// reference clock are never combined (the estimate restarts when ref changes).
//
// A missing or dead server never blocks or crashes the worker: the first failure prints one
// message on stderr (and calls onMessage), later bursts are retried with back-off (from
// min(intervalS, 1 s), doubling, capped at intervalS: samples resume within one interval of the
// server answering again, however long it was silent), and the samples simply have a gap. A
// server name that cannot be resolved is retried from min(intervalS, 1 s), doubling up to
// max(intervalS, maxBackoffS). A burst is abandoned after two consecutive timeouts. With quietStartS, the
// failures before the server first answers within that time are retried quickly and not reported.
//
// Threading: start()/stop() from one owning thread. stop() asks for the final burst and waits
// for it: at most about (burstSize + 1) × timeoutMs, since a burst in flight is cut short and
// the final burst stops at its first timeout. Only host name resolution can block longer; stop()
// then leaves the thread behind after 1 s and it exits later without touching sink or clock.
// The sink and onMessage are called on the sync thread, never after stop() returns.
// estimate(), counters() and ref() are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace syncline::rec {

struct SyncExchange
{
    int32_t burst = 0;
    int32_t seq = 0;
    std::string ref;
    int64_t t1 = 0; // local send (ns)
    int64_t t2 = 0; // reference receive (ns)
    int64_t t3 = 0; // reference send (ns)
    int64_t t4 = 0; // local receive (ns)
};

struct SyncClientOptions
{
    std::string server; // host:port ([v6]:port); port defaults to 29400
    int burstSize = 8;
    double intervalS = 1.0;
    int timeoutMs = 100;
    std::string token;
    double maxBackoffS = 30.0; // cap of the retries while the name cannot be resolved
    // A server expected to come up after this client (the job's own, served by rank 0 under
    // torchrun): for this many seconds after start(), until the first reply, a failed burst is
    // retried after min(intervalS, 0.1 s) and reported to no one. 0: report the first failure.
    double quietStartS = 0.0;
    // Appended to the server's name in messages, e.g. " (the job's own: ...)"; "" for a server
    // the user named.
    std::string serverOrigin;
    // Each time the server stops answering (or cannot be resolved): one sentence, e.g. for a
    // `note` record. Only the first one also goes to stderr.
    std::function<void(const std::string &msg)> onMessage;
};

struct SyncClientCounters
{
    uint64_t bursts = 0;       // bursts attempted
    uint64_t failedBursts = 0; // bursts that completed no exchange
    uint64_t exchanges = 0;    // exchanges completed (sent to the sink)
    uint64_t timeouts = 0;     // exchanges that got no valid reply in time
    uint64_t badReplies = 0;   // datagrams dropped: malformed, wrong token or stale id
    uint64_t refChanges = 0;   // times the reference clock changed (server moved host)
    bool answering = false;    // the last burst completed an exchange
};

class SyncClient
{
public:
    SyncClient(SyncClientOptions opts, std::function<int64_t()> now,
               std::function<void(const SyncExchange &)> sink);
    ~SyncClient();
    SyncClient(const SyncClient &) = delete;
    SyncClient &operator=(const SyncClient &) = delete;

    void start();
    void stop();

    // Live estimate of reference time at local time localNs (SyncEstimator); false before the
    // first successful burst.
    bool estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const;
    SyncClientCounters counters() const;
    std::string ref() const; // empty before the first reply

    struct State; // shared with the sync thread (syncclient.cpp)

private:
    std::shared_ptr<State> m_state;
    bool m_started = false;
};

} // namespace syncline::rec
