// GzipInput — see gzipinput.h.
#include "timeline/load/parse/chrome/gzipinput.h"

#include "timeline/load/parse/filereader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace syncline::load {

namespace {

constexpr size_t kChunk = 256 * 1024;

size_t defaultLimit()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return size_t(8) << 30;
    return size_t(pages) / 2 * size_t(page);
}

// The gzip trailer's ISIZE (inflated length mod 2^32) of the last member.
size_t trailerSize(int fd, int64_t fileSize)
{
    unsigned char t[4];
    if (fileSize < 18 || ::pread(fd, t, 4, fileSize - 4) != 4)
        return 0;
    return size_t(t[0]) | size_t(t[1]) << 8 | size_t(t[2]) << 16 | size_t(t[3]) << 24;
}

// Streams `fd` through zlib straight into the memory `space(&n)` hands out (n bytes there;
// nullptr: no more room, the stream is cut there), telling `used(n)` how much of it each inflate
// call wrote. Returns the note saying where it stopped early ("" when the stream ended cleanly;
// "limit" when space ran out).
template <class Space, class Used>
std::string inflateFd(int fd, Space &&space, Used &&used, const std::atomic<bool> *cancel,
                      int64_t *consumed, std::string *error)
{
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) { // 32: gzip (or zlib) header detected
        *error = "zlib could not start";
        return {};
    }
    std::vector<unsigned char> in(kChunk);
    std::string stopped;
    int64_t readTotal = 0;
    bool ended = false; // the last member's end was seen
    bool eof = false;
    bool any = false;
    while (stopped.empty()) {
        if (z.avail_in == 0 && !eof) {
            ssize_t n;
            do
                n = ::read(fd, in.data(), in.size());
            while (n < 0 && errno == EINTR);
            if (n < 0) {
                stopped = "read error at compressed byte " + std::to_string(readTotal) + ": " +
                          std::strerror(errno);
                break;
            }
            if (n == 0)
                eof = true;
            readTotal += n;
            z.next_in = in.data();
            z.avail_in = uInt(n);
        }
        if (z.avail_in == 0 && eof) {
            if (!ended)
                stopped = "the gzip stream ends early (file cut at compressed byte " +
                          std::to_string(readTotal) + ")";
            break;
        }
        if (ended) {
            // Another member follows (concatenated gzip), or trailing bytes that are not one.
            if (z.avail_in >= 2 && (z.next_in[0] != 0x1f || z.next_in[1] != 0x8b)) {
                stopped = "bytes after the end of the gzip stream (at compressed byte " +
                          std::to_string(readTotal - int64_t(z.avail_in)) + ") ignored";
                break;
            }
            inflateReset(&z);
            ended = false;
        }
        if (cancel && cancel->load()) {
            stopped = "cancelled";
            break;
        }
        size_t room = 0;
        unsigned char *out = space(&room);
        if (!out || room == 0) {
            stopped = "limit";
            break;
        }
        const uInt offered = uInt(std::min<size_t>(room, size_t(1) << 30));
        z.next_out = out;
        z.avail_out = offered;
        const int rc = ::inflate(&z, Z_NO_FLUSH);
        const size_t produced = offered - z.avail_out;
        if (produced > 0) {
            any = true;
            used(produced);
        }
        if (rc == Z_STREAM_END) {
            ended = true;
        } else if (rc == Z_BUF_ERROR) {
            // No progress possible: more input needed (read above) or more room (asked above).
            if (eof && z.avail_in == 0)
                continue;
        } else if (rc != Z_OK) {
            const int64_t at = readTotal - int64_t(z.avail_in);
            if (!any)
                *error = std::string("not readable gzip data: ") + (z.msg ? z.msg : "bad header");
            else
                stopped = std::string("corrupt gzip data at compressed byte ") +
                          std::to_string(at) + " (" + (z.msg ? z.msg : "inflate error") + ")";
            break;
        }
    }
    *consumed = readTotal - int64_t(z.avail_in);
    inflateEnd(&z);
    return stopped;
}

} // namespace

bool GzipInput::isGzip(const std::string &path)
{
    const std::string h = FileReader::head(path, 2);
    return h.size() == 2 && uint8_t(h[0]) == 0x1f && uint8_t(h[1]) == 0x8b;
}

std::string GzipInput::head(const std::string &path, size_t bytes)
{
    const int fd = FileReader::openRegular(path, nullptr);
    if (fd < 0)
        return {};
    std::string out(bytes, '\0');
    size_t length = 0;
    std::string error;
    int64_t consumed = 0;
    inflateFd(
        fd,
        [&](size_t *room) {
            *room = bytes - length;
            return reinterpret_cast<unsigned char *>(out.data() + length);
        },
        [&](size_t n) { length += n; }, nullptr, &consumed, &error);
    ::close(fd);
    out.resize(length);
    return out;
}

GzipInput::Result GzipInput::inflate(const std::string &path, BigBuffer &text,
                                     const std::atomic<bool> *cancel, size_t maxBytes)
{
    Result r;
    const int fd = FileReader::openRegular(path, &r.error);
    if (fd < 0)
        return r;
    struct stat st
    {
    };
    ::fstat(fd, &st);
    r.compressed = st.st_size;
    const size_t limit = maxBytes ? maxBytes : defaultLimit();
    // Sized from the trailer when that is plausible (ISIZE is mod 2^32: a stream over 4 GiB, or
    // concatenated members, only under-reports, and the buffer then grows in place).
    size_t capacity = std::max<size_t>(trailerSize(fd, st.st_size), size_t(st.st_size) * 2);
    capacity = std::min(std::max<size_t>(capacity, 4096), limit);
    if (!text.reserve(capacity)) {
        ::close(fd);
        r.error = "cannot hold the inflated stream: out of memory";
        return r;
    }
    size_t length = 0;
    bool overLimit = false;
    int64_t consumed = 0;
    std::string stopped = inflateFd(
        fd,
        [&](size_t *room) -> unsigned char * {
            if (length == text.capacity()) {
                if (length >= limit ||
                    !text.reserve(std::min(std::max(length * 2, length + kChunk), limit))) {
                    overLimit = true;
                    return nullptr;
                }
            }
            *room = std::min(text.capacity(), limit) - length;
            return reinterpret_cast<unsigned char *>(text.data() + length);
        },
        [&](size_t n) { length += n; }, cancel, &consumed, &r.error);
    ::close(fd);
    if (!r.error.empty())
        return r;
    if (overLimit || stopped == "limit")
        stopped = "inflated stream longer than " + std::to_string(limit >> 20) +
                  " MiB (half this machine's memory): cut at compressed byte " +
                  std::to_string(consumed);
    if (!stopped.empty())
        stopped += "; " + std::to_string(length) + " bytes inflated before it";
    std::memset(text.data() + length, 0, BigBuffer::kPadding); // simdjson reads past the end
    r.ok = true;
    r.stopped = std::move(stopped);
    r.length = length;
    return r;
}

} // namespace syncline::load
