// Loopback UDP sockets for tests and benchmarks of the time server and sync client: a socket
// bound to an ephemeral 127.0.0.1 port (a silent peer), a port nothing listens on (bound, read
// back, closed: a refused peer), and a socket connected to a loopback port (a client).
// Header-only, POSIX; every function returns a plain fd the caller closes (-1 on failure).
// Thread-safe.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace syncline::test {

inline sockaddr_in loopbackAddress(int port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// A UDP socket bound to 127.0.0.1 on a free port; *port receives the port (0 on failure).
inline int boundUdpSocket(int *port, int flags = 0)
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM | flags, 0);
    sockaddr_in a = loopbackAddress(0);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) {
        *port = 0;
        return fd;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

// A loopback UDP port that was free a moment ago and that nothing listens on now.
inline int freeUdpPort()
{
    int port = 0;
    const int fd = boundUdpSocket(&port);
    if (fd >= 0)
        ::close(fd);
    return port;
}

// A UDP socket connected to 127.0.0.1:port (send()/recv() talk to that port only).
inline int connectedUdpSocket(int port, int flags = 0)
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM | flags, 0);
    const sockaddr_in a = loopbackAddress(port);
    if (fd >= 0)
        ::connect(fd, reinterpret_cast<const sockaddr *>(&a), sizeof a);
    return fd;
}

} // namespace syncline::test
