#include "timeline/report/textwriter.h"

#include "recorder/utf8.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace syncline {

TextWriter &TextWriter::num(int64_t v)
{
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    m_buf.append(tmp, r.ptr);
    maybeFlush();
    return *this;
}

TextWriter &TextWriter::num(double v)
{
    char tmp[32];
    const int n = std::snprintf(tmp, sizeof tmp, "%.6g", v);
    m_buf.append(tmp, size_t(n));
    return *this;
}

TextWriter &TextWriter::numExact(double v)
{
    if (!std::isfinite(v)) {
        m_buf += "null";
        return *this;
    }
    char tmp[32];
    const auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    m_buf.append(tmp, size_t(res.ptr - tmp));
    return *this;
}

TextWriter &TextWriter::micros(int64_t ns)
{
    const bool neg = ns < 0;
    const uint64_t a = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    if (neg)
        m_buf += '-';
    num(int64_t(a / 1000));
    const unsigned frac = unsigned(a % 1000);
    m_buf += '.';
    m_buf += char('0' + frac / 100);
    m_buf += char('0' + frac / 10 % 10);
    m_buf += char('0' + frac % 10);
    return *this;
}

namespace {

using utf8::sequenceLength;

} // namespace

TextWriter &TextWriter::jsonString(std::string_view s)
{
    m_buf += '"';
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            m_buf += '\\';
            m_buf += char(c);
        } else if (c < 0x20) {
            char tmp[8];
            std::snprintf(tmp, sizeof tmp, "\\u%04x", c);
            m_buf += tmp;
        } else if (c < 0x80) {
            m_buf += char(c);
        } else if (const size_t n = sequenceLength(s, i)) {
            m_buf.append(s.substr(i, n));
            i += n - 1;
        } else {
            m_buf += "\\ufffd";
        }
    }
    m_buf += '"';
    maybeFlush();
    return *this;
}

TextWriter &TextWriter::utf8Text(std::string_view s)
{
    if (utf8::isValid(s))
        return *this << s;
    return *this << utf8::replaceInvalid(s);
}

TextWriter &TextWriter::csvField(std::string_view s)
{
    if (!utf8::isValid(s))
        return csvField(utf8::replaceInvalid(s));
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        m_buf.append(s);
        return *this;
    }
    m_buf += '"';
    for (char c : s) {
        if (c == '"')
            m_buf += '"';
        m_buf += c;
    }
    m_buf += '"';
    return *this;
}

void TextWriter::flush()
{
    if (!m_buf.empty()) {
        m_out.write(m_buf.data(), std::streamsize(m_buf.size()));
        m_buf.clear();
    }
}

bool TextWriter::toFile(const std::string &path, std::string *error,
                        const std::function<void(std::ostream &)> &fill)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        if (error)
            *error = path + ": cannot write: " + std::strerror(errno);
        return false;
    }
    fill(out);
    out.flush();
    if (!out) {
        if (error)
            *error = path + ": write failed";
        return false;
    }
    return true;
}

} // namespace syncline
