#include "demobarrier.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace syncline::demo {

namespace {

int64_t monotonicNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// One connect attempt to host:port; returns the socket or -1 (errno set).
int connectOnce(const std::string &host, const std::string &port, std::string *why)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *list = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &list); rc != 0) {
        *why = gai_strerror(rc);
        return -2; // not worth retrying
    }
    int fd = -1;
    for (addrinfo *a = list; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            *why = std::strerror(errno);
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    if (fd >= 0) {
        const int one = 1; // a release must not wait for Nagle
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

} // namespace

DemoBarrier::DemoBarrier(const std::string &address, int64_t rank, int timeoutMs)
    : m_address(address), m_timeoutMs(timeoutMs)
{
    const size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
        throw std::runtime_error("demo barrier address '" + address + "' is not host:port");
    const std::string host = address.substr(0, colon), port = address.substr(colon + 1);
    // The launcher starts the server before the workers; retry briefly for a slow start.
    const int64_t deadline = monotonicNs() + int64_t(timeoutMs) * 1000000;
    std::string why;
    while ((m_fd = connectOnce(host, port, &why)) == -1 && monotonicNs() < deadline) {
        const timespec pause{0, 50000000};
        nanosleep(&pause, nullptr);
    }
    if (m_fd < 0)
        throw std::runtime_error("demo barrier at " + address + ": cannot connect: " + why);
    if (!sendLine("hello " + std::to_string(rank))) // fail() closed the socket
        throw std::runtime_error("demo barrier at " + address + ": " + m_error);
}

DemoBarrier::~DemoBarrier()
{
    leave();
    if (m_fd >= 0)
        close(m_fd);
}

DemoBarrier::Result DemoBarrier::arrive()
{
    if (m_fd < 0)
        return Result::Lost;
    const int64_t k = m_next++;
    if (!sendLine("arrive " + std::to_string(k)))
        return Result::Lost;
    const std::string wanted = "release " + std::to_string(k);
    const int64_t deadline = monotonicNs() + int64_t(m_timeoutMs) * 1000000;
    std::string line;
    for (;;) {
        const int got = readLine(&line, deadline);
        if (got < 0)
            return Result::Lost;
        if (got == 0)
            return Result::TimedOut;
        if (line == wanted)
            return Result::Released;
        // Anything else is the release of an instance this rank gave up on: skip it.
    }
}

void DemoBarrier::leave()
{
    if (m_left || m_fd < 0)
        return;
    m_left = true;
    sendLine("leave");
}

bool DemoBarrier::sendLine(const std::string &line)
{
    const std::string data = line + '\n';
    size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = send(m_fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fail(std::string("send: ") + std::strerror(errno));
            return false;
        }
        sent += size_t(n);
    }
    return true;
}

int DemoBarrier::readLine(std::string *line, int64_t deadlineNs)
{
    for (;;) {
        if (const size_t nl = m_pending.find('\n'); nl != std::string::npos) {
            line->assign(m_pending, 0, nl);
            m_pending.erase(0, nl + 1);
            return 1;
        }
        const int64_t left = deadlineNs - monotonicNs();
        if (left <= 0)
            return 0;
        pollfd p{m_fd, POLLIN, 0};
        const int ready = poll(&p, 1, int((left + 999999) / 1000000));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0) {
            fail(std::string("poll: ") + std::strerror(errno));
            return -1;
        }
        if (ready == 0)
            continue; // the deadline check above decides
        char buf[256];
        const ssize_t n = recv(m_fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fail(n == 0 ? std::string("the server closed the connection")
                        : std::string("recv: ") + std::strerror(errno));
            return -1;
        }
        m_pending.append(buf, size_t(n));
    }
}

void DemoBarrier::fail(const std::string &why)
{
    m_error = why;
    if (m_fd >= 0)
        close(m_fd);
    m_fd = -1;
}

} // namespace syncline::demo
