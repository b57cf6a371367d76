#include "syncprotocol.h"

#include "timerange.h"

namespace syncline::rec::syncproto {

namespace {

void put16(unsigned char *p, uint16_t v)
{
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
}

void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint16_t get16(const unsigned char *p)
{
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

} // namespace

uint64_t fnv1a64(const std::string &text)
{
    if (text.empty())
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t tokenHash(const std::string &token)
{
    const uint64_t h = fnv1a64(token);
    return (h == 0 && !token.empty()) ? 1 : h;
}

void encode(const Packet &packet, unsigned char *out)
{
    put32(out + 0, kMagic);
    put16(out + 4, kVersion);
    out[6] = static_cast<unsigned char>(packet.kind);
    out[7] = 0;
    put64(out + 8, packet.tokenHash);
    put64(out + 16, packet.requestId);
    put64(out + 24, static_cast<uint64_t>(packet.t1));
    put64(out + 32, static_cast<uint64_t>(packet.t2));
    put64(out + 40, static_cast<uint64_t>(packet.t3));
    put64(out + 48, packet.bootHash);
    put64(out + 56, packet.serverInstance);
}

DecodeStatus decode(const unsigned char *data, size_t size, Packet *packet)
{
    // Magic first: a short datagram of another protocol counts as foreign, not malformed.
    if (size < 4 || get32(data) != kMagic)
        return size < 4 ? DecodeStatus::TooShort : DecodeStatus::ForeignMagic;
    if (size < 6)
        return DecodeStatus::TooShort;
    if (get16(data + 4) != kVersion)
        return DecodeStatus::WrongVersion;
    if (size < kPacketSize)
        return DecodeStatus::TooShort;
    const unsigned kind = data[6];
    if (kind != static_cast<unsigned>(Kind::Request) && kind != static_cast<unsigned>(Kind::Reply))
        return DecodeStatus::WrongKind;
    if (data[7] != 0)
        return DecodeStatus::BadReserved;
    packet->kind = static_cast<Kind>(kind);
    packet->tokenHash = get64(data + 8);
    packet->requestId = get64(data + 16);
    packet->t1 = static_cast<int64_t>(get64(data + 24));
    packet->t2 = static_cast<int64_t>(get64(data + 32));
    packet->t3 = static_cast<int64_t>(get64(data + 40));
    packet->bootHash = get64(data + 48);
    packet->serverInstance = get64(data + 56);
    return DecodeStatus::Ok;
}

bool replyTimesUsable(int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    return logTimeInRange(t1) && logTimeInRange(t2) && logTimeInRange(t3) && logTimeInRange(t4) &&
           t1 <= t4 && t2 <= t3;
}

bool splitHostPort(const std::string &text, int defaultPort, bool allowZero, std::string *host,
                   int *port, std::string *error)
{
    std::string h = text;
    std::string p;
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string::npos) {
            *error = "'" + text + "': missing ']' after an IPv6 address";
            return false;
        }
        h = text.substr(1, close - 1);
        if (close + 1 < text.size()) {
            if (text[close + 1] != ':') {
                *error = "'" + text + "': expected ':port' after ']'";
                return false;
            }
            p = text.substr(close + 2);
        }
    } else {
        const size_t colon = text.rfind(':');
        // More than one ':' without brackets is a bare IPv6 address without a port.
        if (colon != std::string::npos && text.find(':') == colon) {
            h = text.substr(0, colon);
            p = text.substr(colon + 1);
        }
    }
    int value = defaultPort;
    if (!p.empty() || (text.size() && text.back() == ':')) {
        value = -1;
        if (!p.empty() && p.size() <= 5 && p.find_first_not_of("0123456789") == std::string::npos)
            value = std::stoi(p);
    }
    if (value < (allowZero ? 0 : 1) || value > 65535) {
        *error = "'" + text + "': port must be a number in " + (allowZero ? "0" : "1") + "..65535";
        return false;
    }
    if (h.empty()) {
        *error = "'" + text + "': missing host";
        return false;
    }
    *host = h;
    *port = value;
    return true;
}

} // namespace syncline::rec::syncproto
