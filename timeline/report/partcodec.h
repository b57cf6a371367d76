// PartWriter / PartReader — the byte encoding of the parts a split job's tasks send each other
// (StatsParts, CompareRunPart, DiagnosisPart; docs/scale.md "Beyond one machine"): an 8-byte
// magic that names the kind of part, then varints, zigzag varints, length-prefixed strings, raw
// doubles. A reader that runs past the end or meets a bad varint sets ok = false and reads zeros
// from then on; count() refuses a count larger than the bytes left (every counted item takes at
// least one byte), so damaged bytes never allocate much. refused() is a decode's "no".
// Threading: values; one per buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace syncline {

using PartMagic = char[8];

// A decode's refusal: *why (when given) says why; nullopt for any part.
inline std::nullopt_t refused(std::string *why, std::string message)
{
    if (why)
        *why = std::move(message);
    return std::nullopt;
}

class PartWriter
{
public:
    explicit PartWriter(const PartMagic &magic) : bytes(magic, sizeof(PartMagic)) {}
    void varint(uint64_t v)
    {
        while (v >= 0x80) {
            bytes.push_back(char(uint8_t(v) | 0x80));
            v >>= 7;
        }
        bytes.push_back(char(uint8_t(v)));
    }
    void svarint(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); } // zigzag
    void str(std::string_view s)
    {
        varint(s.size());
        bytes.append(s);
    }
    void f64(double d)
    {
        char b[8];
        std::memcpy(b, &d, 8);
        bytes.append(b, 8);
    }
    std::string bytes;
};

class PartReader
{
public:
    explicit PartReader(std::string_view b) : m_b(b) {}
    // The bytes after `magic`; ok = false (and hasMagic() false) when they do not start with it.
    PartReader(std::string_view b, const PartMagic &magic)
        : m_magic(b.size() >= sizeof(PartMagic) &&
                  std::memcmp(b.data(), magic, sizeof(PartMagic)) == 0),
          m_b(m_magic ? b.substr(sizeof(PartMagic)) : std::string_view())
    {
        ok = m_magic;
    }
    bool hasMagic() const { return m_magic; }
    bool ok = true;
    uint64_t varint()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos >= m_b.size())
                return fail();
            const uint8_t c = uint8_t(m_b[m_pos++]);
            v |= uint64_t(c & 0x7f) << shift;
            if (!(c & 0x80))
                return v;
        }
        return fail();
    }
    int64_t svarint()
    {
        const uint64_t u = varint();
        return int64_t(u >> 1) ^ -int64_t(u & 1);
    }
    std::string str()
    {
        const uint64_t n = varint();
        if (!ok || n > m_b.size() - m_pos)
            return fail(), std::string();
        std::string s(m_b.substr(m_pos, n));
        m_pos += n;
        return s;
    }
    double f64()
    {
        double d = 0;
        if (m_b.size() - m_pos < 8)
            return fail(), 0.0;
        std::memcpy(&d, m_b.data() + m_pos, 8);
        m_pos += 8;
        return d;
    }
    // A count of items of at least one byte each: more than remain is a damaged part.
    size_t count()
    {
        const uint64_t n = varint();
        if (n > m_b.size() - m_pos)
            return fail(), 0;
        return size_t(n);
    }
    bool atEnd() const { return m_pos == m_b.size(); }

private:
    uint64_t fail()
    {
        ok = false;
        m_pos = m_b.size();
        return 0;
    }
    bool m_magic = true;
    std::string_view m_b;
    size_t m_pos = 0;
};

} // namespace syncline
