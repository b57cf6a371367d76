// bench_timeserver — the time server's cost on loopback, against a bare UDP echo measured in
// the same run (baseline: recvfrom + sendto of the same 64 bytes, no protocol, no clock reads).
//
// Rows: round trip (t4 − t1 as the client sees it) min / median / p99 over N ping-pongs, and
// ping-pong rate; for the time server also the exchange's guaranteed half-width
// ((t2 − t1) − (t3 − t4)) / 2, i.e. the best bound one exchange gives. Then the SyncClient: a
// burst of 8 as the recorder does it, its duration and the live estimate's bound.
//
// Usage: bench_timeserver [N]   (default 20000 ping-pongs per row)
#include "../tests/common/loopbackudp.h"
#include "../tests/common/monotonicraw.h"
#include "recorder/syncclient.h"
#include "recorder/syncprotocol.h"
#include "recorder/timeserver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace syncline::rec;
namespace proto = syncline::rec::syncproto;

namespace {

using syncline::test::boundUdpSocket;
using syncline::test::connectedUdpSocket;
constexpr auto &rawNs = syncline::test::monotonicRawNs;

struct Row
{
    std::vector<int64_t> rtt;
    std::vector<int64_t> half; // guaranteed half-width per exchange (time server only)
    double seconds = 0;
};

// n ping-pongs of a 64-byte request; decodes replies when `protocol`.
Row pingPong(int port, int n, bool protocol)
{
    Row row;
    const int fd = connectedUdpSocket(port);
    unsigned char out[proto::kPacketSize], in[256];
    proto::Packet req;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        req.requestId = uint64_t(i) + 1;
        req.t1 = rawNs();
        proto::encode(req, out);
        ::send(fd, out, sizeof out, 0);
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 1000) != 1)
            continue;
        const ssize_t got = ::recv(fd, in, sizeof in, 0);
        const int64_t t4 = rawNs();
        row.rtt.push_back(t4 - req.t1);
        proto::Packet rep;
        if (protocol && proto::decode(in, size_t(got), &rep) == proto::DecodeStatus::Ok)
            row.half.push_back(((rep.t2 - req.t1) - (rep.t3 - t4)) / 2);
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::close(fd);
    return row;
}

int64_t pct(std::vector<int64_t> v, double q)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

void printRow(const char *name, const Row &r)
{
    std::printf("%-28s %9lld %9lld %9lld %12.0f", name, (long long)pct(r.rtt, 0),
                (long long)pct(r.rtt, 0.5), (long long)pct(r.rtt, 0.99),
                double(r.rtt.size()) / r.seconds);
    if (!r.half.empty())
        std::printf(" %10lld %10lld", (long long)pct(r.half, 0), (long long)pct(r.half, 0.5));
    std::printf("\n");
}

} // namespace

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
    // Baseline: bare echo thread.
    int echoPort = 0;
    const int echoFd = boundUdpSocket(&echoPort);
    std::atomic<bool> stop{false};
    std::thread echo([&] {
        unsigned char buf[256];
        while (!stop) {
            pollfd p{echoFd, POLLIN, 0};
            if (::poll(&p, 1, 50) != 1)
                continue;
            sockaddr_storage from{};
            socklen_t len = sizeof from;
            const ssize_t got =
                ::recvfrom(echoFd, buf, sizeof buf, 0, reinterpret_cast<sockaddr *>(&from), &len);
            if (got > 0)
                ::sendto(echoFd, buf, size_t(got), 0, reinterpret_cast<sockaddr *>(&from), len);
        }
    });
    TimeServerOptions o;
    o.bindAddress = "127.0.0.1";
    o.port = 0;
    TimeServer server(o, rawNs);
    std::string error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    pingPong(echoPort, n / 10, false); // warm-up
    pingPong(server.port(), n / 10, true);
    const Row base = pingPong(echoPort, n, false);
    const Row ts = pingPong(server.port(), n, true);
    stop = true;
    echo.join();
    ::close(echoFd);

    std::printf("loopback, %d ping-pongs per row, ns\n", n);
    std::printf("%-28s %9s %9s %9s %12s %10s %10s\n", "", "rtt min", "rtt p50", "rtt p99",
                "exchanges/s", "half min", "half p50");
    printRow("bare UDP echo (baseline)", base);
    printRow("TimeServer", ts);
    std::printf("ratio TimeServer / baseline: rtt p50 %.2f, rate %.2f\n",
                double(pct(ts.rtt, 0.5)) / double(pct(base.rtt, 0.5)),
                (double(ts.rtt.size()) / ts.seconds) / (double(base.rtt.size()) / base.seconds));

    // The recorder's way: SyncClient bursts of 8, 20 bursts 50 ms apart.
    std::vector<int64_t> burstSpan;
    std::vector<SyncExchange> xs;
    SyncClientOptions co;
    co.server = "127.0.0.1:" + std::to_string(server.port());
    co.intervalS = 0.05;
    SyncClient client(co, rawNs, [&](const SyncExchange &x) { xs.push_back(x); });
    client.start();
    while (client.counters().bursts < 20)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    client.stop();
    int64_t g = 0, bound = -1;
    client.estimate(rawNs(), &g, &bound);
    int64_t first = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (xs[i].seq == 0)
            first = xs[i].t1;
        if (xs[i].seq == co.burstSize - 1)
            burstSpan.push_back(xs[i].t4 - first);
    }
    std::printf("SyncClient: %zu bursts of %d, burst duration p50 %lld ns, live bound after "
                "stop %lld ns\n",
                burstSpan.size(), co.burstSize, (long long)pct(burstSpan, 0.5), (long long)bound);
    return 0;
}
