// TimeServer — the reference clock of a job: answers NTP-style UDP requests (syncprotocol.h)
// with its receive time t2 and send time t3.
//
// Stamps are taken as close to the socket calls as user space allows: t2 right after
// recvmmsg() returns (one stamp for the whole batch it returned: every datagram of the batch had
// arrived by then, so each t2 is still a valid upper stamp), t3 immediately before each
// sendto(). Only the clock function passed in is read (CLOCK_MONOTONIC_RAW in production; a
// worker hosting the server passes its own, possibly transformed, clock).
//
// Datagrams that are not requests of this protocol version with this server's token hash are
// ignored and counted; a reply (kPacketSize bytes) is sent only to a request of at least that
// size, so the server never amplifies.
//
// Threading: start() binds and spawns one thread that owns the socket; stop() (also called by the
// destructor) wakes it through an eventfd and joins it within milliseconds. counters() may be
// called from any thread at any time. start()/stop() are not meant to race each other.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace syncline::rec {

struct TimeServerOptions
{
    std::string bindAddress = "0.0.0.0"; // an address or host name; "::" for IPv6 (dual stack)
    int port = 29400;                    // UDP; 0 = any free port (see TimeServer::port())
    std::string token;                   // job token; empty = serve only token-less requests
    std::string bootId; // clock domain id; empty = SYNCLINE_BOOT_ID or the kernel's
};

struct TimeServerCounters
{
    uint64_t served = 0;        // replies sent
    uint64_t malformed = 0;     // too short, unknown kind, a reply sent to us, bad reserved byte
    uint64_t foreign = 0;       // another protocol's magic
    uint64_t wrongVersion = 0;  // our magic, another version
    uint64_t tokenMismatch = 0; // our protocol, another job's token
    uint64_t sendErrors = 0;    // sendto() failed (reply lost)
};

class TimeServer
{
public:
    TimeServer(TimeServerOptions options, std::function<int64_t()> now);
    ~TimeServer();
    TimeServer(const TimeServer &) = delete;
    TimeServer &operator=(const TimeServer &) = delete;

    // Binds the socket and starts the serving thread. On failure returns false and sets *error
    // to a sentence naming the address (e.g. "bind 0.0.0.0:29400: Address already in use").
    bool start(std::string *error);
    void stop();
    bool running() const { return m_thread.joinable(); }

    int port() const { return m_boundPort; } // the bound port, valid after start()
    uint64_t bootHash() const { return m_bootHash; }
    uint64_t instance() const { return m_instance; }
    TimeServerCounters counters() const;

    // The boot id the server reports when the options leave it empty: SYNCLINE_BOOT_ID, else
    // machineBootId() ("" when unreadable).
    static std::string defaultBootId();

private:
    void run();
    void handleDatagram(const unsigned char *data, size_t size, const void *addr, unsigned addrLen,
                        int64_t t2);

    TimeServerOptions m_options;
    std::function<int64_t()> m_now;
    uint64_t m_tokenHash = 0;
    uint64_t m_bootHash = 0;
    uint64_t m_instance = 0;
    int m_socket = -1;
    int m_wakeFd = -1;
    int m_boundPort = 0;
    std::thread m_thread;
    std::atomic<uint64_t> m_served{0};
    std::atomic<uint64_t> m_malformed{0};
    std::atomic<uint64_t> m_foreign{0};
    std::atomic<uint64_t> m_wrongVersion{0};
    std::atomic<uint64_t> m_tokenMismatch{0};
    std::atomic<uint64_t> m_sendErrors{0};
};

} // namespace syncline::rec
