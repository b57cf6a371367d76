// fuzz_syncpacket — the time server's datagram decoder (syncproto::decode) on arbitrary bytes,
// the encode/decode round trip of whatever decodes, and a decoded reply taken as the client takes
// it: the acceptance rule (syncproto::replyTimesUsable), the burst bounds and the estimator
// (SyncEstimator) on the accepted times. The client's own t1/t4 come from the input too (within
// the range its clock reaches); the server's t2/t3 are whatever the datagram says.
#include "recorder/syncestimator.h"
#include "recorder/syncprotocol.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace syncline::rec;

namespace {
[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "fuzz_syncpacket: %s\n", what);
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SyncEstimator estimator;
    int64_t local = 0;
    // The input is a sequence of datagrams of kPacketSize bytes (the last one may be short),
    // each followed by 4 bytes of client round-trip time.
    for (size_t pos = 0; pos < size; pos += syncproto::kPacketSize + 4) {
        const size_t n = std::min(size - pos, syncproto::kPacketSize + 4);
        syncproto::Packet p;
        const auto status = syncproto::decode(data + pos, std::min(n, syncproto::kPacketSize), &p);
        if (status != syncproto::DecodeStatus::Ok)
            continue;
        unsigned char again[syncproto::kPacketSize];
        syncproto::encode(p, again);
        syncproto::Packet q;
        if (syncproto::decode(again, sizeof again, &q) != syncproto::DecodeStatus::Ok ||
            q.kind != p.kind || q.tokenHash != p.tokenHash || q.requestId != p.requestId ||
            q.t1 != p.t1 || q.t2 != p.t2 || q.t3 != p.t3 || q.bootHash != p.bootHash ||
            q.serverInstance != p.serverInstance)
            fail("encode/decode round trip differs");
        if (std::memcmp(again, data + pos, syncproto::kPacketSize) != 0)
            fail("re-encoding a decoded datagram changed its bytes");
        uint32_t rtt = 0;
        if (n == syncproto::kPacketSize + 4)
            std::memcpy(&rtt, data + pos + syncproto::kPacketSize, 4);
        // The client's clock: ns since boot, increasing.
        const int64_t t1 = int64_t(uint64_t(p.t1) % (uint64_t(1) << 56));
        const int64_t t4 = t1 + int64_t(rtt);
        if (!syncproto::replyTimesUsable(t1, p.t2, p.t3, t4))
            continue;
        const int64_t lower = p.t3 - t4, upper = p.t2 - t1;
        local = std::max(local, t1 + (t4 - t1) / 2);
        estimator.addBurst(local, lower, upper);
        int64_t global = 0, bound = 0;
        if (estimator.estimate(local, &global, &bound) && bound < 0)
            fail("negative bound");
    }
    std::string host, error;
    int port = 0;
    (void)syncproto::splitHostPort(
        std::string(reinterpret_cast<const char *>(data), std::min<size_t>(size, 80)),
        syncproto::kDefaultPort, true, &host, &port, &error);
    return 0;
}
