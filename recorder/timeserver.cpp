#include "recorder/timeserver.h"

#include "recorder/syncprotocol.h"
#include "recorder/workeridentity.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace syncline::rec {

namespace {

constexpr unsigned kBatch = 32;      // datagrams taken per recvmmsg()
constexpr size_t kReceiveSize = 512; // larger datagrams are truncated; only 64 bytes matter

uint64_t randomInstance()
{
    std::random_device rd;
    const uint64_t v = (uint64_t(rd()) << 32) ^ rd() ^ uint64_t(::getpid());
    return v ? v : 1;
}

} // namespace

TimeServer::TimeServer(TimeServerOptions options, std::function<int64_t()> now)
    : m_options(std::move(options)), m_now(std::move(now))
{
    m_tokenHash = syncproto::tokenHash(m_options.token);
    const std::string boot = m_options.bootId.empty() ? defaultBootId() : m_options.bootId;
    m_bootHash = syncproto::fnv1a64(boot);
}

TimeServer::~TimeServer()
{
    stop();
}

std::string TimeServer::defaultBootId()
{
    if (const char *env = std::getenv("SYNCLINE_BOOT_ID"); env && *env)
        return env;
    return machineBootId();
}

bool TimeServer::start(std::string *error)
{
    if (running()) {
        *error = "time server already running";
        return false;
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo *list = nullptr;
    const std::string where = m_options.bindAddress + ":" + std::to_string(m_options.port);
    const std::string service = std::to_string(m_options.port);
    const char *node = m_options.bindAddress.empty() ? nullptr : m_options.bindAddress.c_str();
    if (int rc = getaddrinfo(node, service.c_str(), &hints, &list); rc != 0) {
        *error = "time server: cannot resolve bind address " + where + ": " + gai_strerror(rc);
        return false;
    }
    int fd = -1;
    std::string lastError = "no usable address";
    for (addrinfo *ai = list; ai; ai = ai->ai_next) {
        fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            lastError = std::strerror(errno);
            continue;
        }
        if (ai->ai_family == AF_INET6) {
            int off = 0; // "::" serves IPv4 clients too
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        }
        if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        lastError = std::strerror(errno);
        ::close(fd);
        fd = -1;
    }
    freeaddrinfo(list);
    if (fd < 0) {
        *error = "time server: bind " + where + ": " + lastError;
        return false;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &len);
    m_boundPort =
        ntohs(bound.ss_family == AF_INET ? reinterpret_cast<sockaddr_in *>(&bound)->sin_port
                                         : reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wakeFd < 0) {
        *error = std::string("time server: eventfd: ") + std::strerror(errno);
        ::close(fd);
        return false;
    }
    m_socket = fd;
    m_instance = randomInstance();
    m_thread = std::thread([this] { run(); });
    return true;
}

void TimeServer::stop()
{
    if (!m_thread.joinable())
        return;
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(m_wakeFd, &one, sizeof one);
    m_thread.join();
    ::close(m_socket);
    ::close(m_wakeFd);
    m_socket = -1;
    m_wakeFd = -1;
}

TimeServerCounters TimeServer::counters() const
{
    TimeServerCounters c;
    c.served = m_served.load(std::memory_order_relaxed);
    c.malformed = m_malformed.load(std::memory_order_relaxed);
    c.foreign = m_foreign.load(std::memory_order_relaxed);
    c.wrongVersion = m_wrongVersion.load(std::memory_order_relaxed);
    c.tokenMismatch = m_tokenMismatch.load(std::memory_order_relaxed);
    c.sendErrors = m_sendErrors.load(std::memory_order_relaxed);
    return c;
}

void TimeServer::run()
{
    unsigned char buffers[kBatch][kReceiveSize];
    sockaddr_storage addrs[kBatch];
    iovec iov[kBatch];
    mmsghdr msgs[kBatch];
    pollfd fds[2] = {{m_socket, POLLIN, 0}, {m_wakeFd, POLLIN, 0}};
    for (;;) {
        if (::poll(fds, 2, -1) < 0 && errno != EINTR)
            return;
        if (fds[1].revents)
            return; // stop()
        for (;;) {  // drain everything queued, one clock read per batch
            for (unsigned i = 0; i < kBatch; ++i) {
                iov[i] = {buffers[i], kReceiveSize};
                msgs[i] = {};
                msgs[i].msg_hdr.msg_iov = &iov[i];
                msgs[i].msg_hdr.msg_iovlen = 1;
                msgs[i].msg_hdr.msg_name = &addrs[i];
                msgs[i].msg_hdr.msg_namelen = sizeof addrs[i];
            }
            const int n = ::recvmmsg(m_socket, msgs, kBatch, MSG_DONTWAIT, nullptr);
            const int64_t t2 = m_now();
            if (n <= 0)
                break;
            for (int i = 0; i < n; ++i)
                handleDatagram(buffers[i], msgs[i].msg_len, &addrs[i], msgs[i].msg_hdr.msg_namelen,
                               t2);
            if (unsigned(n) < kBatch)
                break;
        }
    }
}

void TimeServer::handleDatagram(const unsigned char *data, size_t size, const void *addr,
                                unsigned addrLen, int64_t t2)
{
    syncproto::Packet p;
    switch (syncproto::decode(data, size, &p)) {
    case syncproto::DecodeStatus::Ok:
        break;
    case syncproto::DecodeStatus::ForeignMagic:
        m_foreign.fetch_add(1, std::memory_order_relaxed);
        return;
    case syncproto::DecodeStatus::WrongVersion:
        m_wrongVersion.fetch_add(1, std::memory_order_relaxed);
        return;
    default:
        m_malformed.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    if (p.kind != syncproto::Kind::Request) { // never answer a reply: no reflection loops
        m_malformed.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    if (p.tokenHash != m_tokenHash) {
        m_tokenMismatch.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    p.kind = syncproto::Kind::Reply;
    p.t2 = t2;
    p.bootHash = m_bootHash;
    p.serverInstance = m_instance;
    unsigned char out[syncproto::kPacketSize];
    p.t3 = m_now();
    syncproto::encode(p, out);
    const ssize_t sent = ::sendto(m_socket, out, sizeof out, MSG_NOSIGNAL,
                                  static_cast<const sockaddr *>(addr), addrLen);
    if (sent == static_cast<ssize_t>(sizeof out))
        m_served.fetch_add(1, std::memory_order_relaxed);
    else
        m_sendErrors.fetch_add(1, std::memory_order_relaxed);
}

} // namespace syncline::rec
