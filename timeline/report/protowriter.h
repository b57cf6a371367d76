// ProtoWriter — the few protocol buffer encodings the Perfetto exporter needs, by hand (no
// protobuf library): varints, fixed64, doubles and length-delimited fields (strings, bytes,
// nested messages) appended to a byte buffer, per the wire format
// (https://protobuf.dev/programming-guides/encoding/): a field is its tag (number << 3 | wire
// type) as a varint, then the value — wire type 0 varint, 1 eight bytes little-endian, 2 a
// varint length and that many bytes.
// A nested message is written in place by begin() … end(): begin() reserves 5 bytes for the
// length (a varint of a length below 2^35), end() writes the length's varint there and moves
// the payload up over the bytes it did not need (nested messages here are small: a packet).
// Negative int32/int64 values are encoded as 10-byte varints (two's complement, as protobuf's
// int32/int64 — not sint); signed fields here are written through varint(uint64_t(v)).
// Threading: one writer per thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace syncline {

class ProtoWriter
{
public:
    enum Wire : uint32_t
    {
        Varint = 0,
        Fixed64 = 1,
        Len = 2
    };

    std::string &bytes() { return m_out; }
    void clear() { m_out.clear(); }

    void rawVarint(uint64_t v)
    {
        while (v >= 0x80) {
            m_out.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        m_out.push_back(char(uint8_t(v)));
    }
    void tag(uint32_t field, Wire wire) { rawVarint((uint64_t(field) << 3) | wire); }
    void varint(uint32_t field, uint64_t v)
    {
        tag(field, Varint);
        rawVarint(v);
    }
    void sint(uint32_t field, int64_t v) { varint(field, uint64_t(v)); } // int32/int64 fields
    void fixed64(uint32_t field, uint64_t v)
    {
        tag(field, Fixed64);
        char b[8];
        for (int i = 0; i < 8; ++i)
            b[i] = char(uint8_t(v >> (8 * i)));
        m_out.append(b, 8);
    }
    void dbl(uint32_t field, double v)
    {
        uint64_t u = 0;
        std::memcpy(&u, &v, sizeof u);
        fixed64(field, u);
    }
    void string(uint32_t field, std::string_view s)
    {
        tag(field, Len);
        rawVarint(s.size());
        m_out.append(s.data(), s.size());
    }
    // A nested message: begin(field) … end(mark).
    size_t begin(uint32_t field)
    {
        tag(field, Len);
        const size_t mark = m_out.size();
        m_out.append(kLenBytes, char(0x80));
        return mark;
    }
    void end(size_t mark)
    {
        const uint64_t len = m_out.size() - mark - kLenBytes;
        char v[kLenBytes];
        size_t k = 0;
        uint64_t rest = len;
        do {
            v[k] = char(uint8_t(rest & 0x7f) | (rest >= 0x80 ? 0x80 : 0));
            rest >>= 7;
            ++k;
        } while (rest && k < kLenBytes);
        std::memcpy(&m_out[mark], v, k);
        if (k < kLenBytes) // the length's bytes shrunk to its varint: the payload moves up
            m_out.erase(mark + k, kLenBytes - k);
    }

private:
    static constexpr size_t kLenBytes = 5;
    std::string m_out;
};

} // namespace syncline
