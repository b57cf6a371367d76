// SyncProtocol — the wire format of the time server (UDP, fixed little-endian binary).
//
// One datagram layout serves both directions (docs/timeserver.md has the table):
//
//   offset size field
//        0    4 magic            0x53544C53 ("SLTS" read as bytes 'S','L','T','S')
//        4    2 version          1
//        6    1 kind             1 = request, 2 = reply
//        7    1 reserved         0
//        8    8 token hash       FNV-1a 64 of the job token; 0 = no token
//       16    8 request id       chosen by the client, echoed by the server
//       24    8 t1               client send time (client clock, ns), echoed
//       32    8 t2               server receive time (server clock, ns); 0 in a request
//       40    8 t3               server send time (server clock, ns); 0 in a request
//       48    8 boot hash        FNV-1a 64 of the server's boot id (clock domain); 0 in a request
//       56    8 server instance  random per server start (a restart is visible); 0 in a request
//
// kPacketSize (64) bytes in all. Requests are padded to the full size so that a reply is never
// larger than its request (no amplification); the server answers only requests of at least
// kPacketSize bytes and ignores any bytes beyond (room for later versions).
//
// Invariants: integers are little-endian on the wire whatever the host; times are int64 ns.
// Threading: pure functions, no state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace syncline::rec {

namespace syncproto {

constexpr uint32_t kMagic = 0x53544C53u; // bytes on the wire: 'S' 'L' 'T' 'S'
constexpr uint16_t kVersion = 1;
constexpr size_t kPacketSize = 64;
constexpr int kDefaultPort = 29400; // UDP; documented in docs/timeserver.md

enum class Kind : uint8_t
{
    Request = 1,
    Reply = 2
};

// Why a datagram was refused; Ok when it decoded.
enum class DecodeStatus
{
    Ok,
    TooShort,
    ForeignMagic,
    WrongVersion,
    WrongKind,
    BadReserved
};

struct Packet
{
    Kind kind = Kind::Request;
    uint64_t tokenHash = 0;
    uint64_t requestId = 0;
    int64_t t1 = 0;
    int64_t t2 = 0;
    int64_t t3 = 0;
    uint64_t bootHash = 0;
    uint64_t serverInstance = 0;
};

// FNV-1a 64 of the token; the empty token hashes to 0 ("no token") and a non-empty token never
// does (a 0 result is mapped to 1).
uint64_t tokenHash(const std::string &token);
// FNV-1a 64 of any string (boot ids); 0 for the empty string.
uint64_t fnv1a64(const std::string &text);

// Writes exactly kPacketSize bytes into out (which must hold that many).
void encode(const Packet &packet, unsigned char *out);
// Decodes the first kPacketSize bytes of data; size is the datagram length.
DecodeStatus decode(const unsigned char *data, size_t size, Packet *packet);

// Whether a reply's times can be used with the client's own t1 (send) and t4 (receive):
// t1 <= t4, t2 <= t3 (the server cannot answer before it received) and every time within
// the log's range (timerange.h: ±2^62 ns, so t2 − t1 and t3 − t4 fit in int64). A hostile or broken server's reply that fails this is counted as bad,
// never computed with (t2 − t1 on arbitrary int64s overflows).
bool replyTimesUsable(int64_t t1, int64_t t2, int64_t t3, int64_t t4);

// Splits "host:port", "[v6addr]:port" or "host" (port = defaultPort). Returns false with a
// message naming the text when the port is not a number in 1..65535 (0 allowed when allowZero).
bool splitHostPort(const std::string &text, int defaultPort, bool allowZero, std::string *host,
                   int *port, std::string *error);

} // namespace syncproto

} // namespace syncline::rec
