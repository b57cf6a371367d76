// TextWriter — a buffered writer for big text exports (CSV, JSON): appends into a string and
// flushes to the ostream in 1 MiB chunks; integer formatting with std::to_chars; JSON and CSV
// escaping. Threading: one writer per stream.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace syncline {

class TextWriter
{
public:
    explicit TextWriter(std::ostream &out) : m_out(out) { m_buf.reserve(kChunk + 4096); }
    ~TextWriter() { flush(); }

    TextWriter &operator<<(std::string_view s)
    {
        m_buf.append(s);
        maybeFlush();
        return *this;
    }
    TextWriter &operator<<(char c)
    {
        m_buf += c;
        return *this;
    }
    TextWriter &num(int64_t v);
    TextWriter &num(double v);
    // The shortest text that reads back as the same double (std::to_chars); "null" if not finite.
    TextWriter &numExact(double v);
    // ns → µs with exactly three decimals: 1234567 → "1234.567", -5 → "-0.005".
    TextWriter &micros(int64_t ns);
    // A JSON string literal with quotes; valid UTF-8 passes through, each invalid byte becomes
    // \ufffd (recorder/utf8.h).
    TextWriter &jsonString(std::string_view s);
    // Text copied as is (e.g. an args object's JSON), each invalid UTF-8 byte replaced by U+FFFD.
    TextWriter &utf8Text(std::string_view s);
    // RFC 4180 field: quoted (with "" doubling) when it holds a comma, quote, CR or LF; invalid
    // UTF-8 replaced by U+FFFD.
    TextWriter &csvField(std::string_view s);
    void flush();
    bool ok() const { return bool(m_out); }

    // Creates/truncates `path`, lets `fill` write the whole file, and checks the result; false
    // with *error = "<path>: cannot write: <reason>" or "<path>: write failed" (the exporters'
    // writeFile()).
    static bool toFile(const std::string &path, std::string *error,
                       const std::function<void(std::ostream &)> &fill);

private:
    static constexpr size_t kChunk = 1 << 20;
    void maybeFlush()
    {
        if (m_buf.size() >= kChunk)
            flush();
    }
    std::ostream &m_out;
    std::string m_buf;
};

} // namespace syncline
