// LogParser's reading of a whole file: the file read in slices into one buffer and fed to the
// parser, with the index's checkpoints taken on line boundaries (logparser.h, parseFile). The
// parsing rules themselves are logparser.cpp's; this is the I/O around them.
#include "timeline/load/parse/log/logparser.h"

#include "timeline/load/parse/filereader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;

ParsedFile LogParser::parseFile(const std::string &path, const std::atomic<bool> *cancel)
{
    return parseFile(path, cancel, {}, 0);
}

ParsedFile LogParser::parseFile(const std::string &path, const std::atomic<bool> *cancel,
                                const std::function<void(const LogParser &)> &checkpoint,
                                size_t interval)
{
    LogParser parser(path);
    std::string error;
    const int fd = FileReader::openRegular(path, &error);
    if (fd < 0) {
        ParsedFile out;
        out.path = path;
        out.problems.push_back({Kind::ReadError, Severity::Error, path, 0, error});
        return out;
    }
    struct stat st
    {
    };
    ::fstat(fd, &st);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    // An event takes about 80-110 bytes of log (a B/E pair, or an X line with its overhead).
    // Reserving that for the first thread saves the copies of repeated growth.
    parser.m_reserveHint = size_t(std::max<off_t>(st.st_size, 0)) / 80 + 16;
    // Read in slices into one buffer (not a mapping of the whole file: its pages would count as
    // resident until the file is done), so a file costs a few MiB while it is parsed, and a cancel
    // request is seen within a few milliseconds. A line longer than the buffer grows it.
    // 1 MiB: a few hundred reads of a 24 MB log cost nothing, and each parser thread's buffer
    // counts in the load's peak (4 MiB slices were 1.3 B/event of the peak at 64 workers).
    constexpr size_t kSlice = 1 << 20;
    std::string buf(kSlice, '\0');
    size_t have = 0;
    int64_t nextCheckpoint = 0;
    if (checkpoint) {
        checkpoint(parser);
        nextCheckpoint = int64_t(interval);
    }
    while (!(cancel && cancel->load(std::memory_order_relaxed))) {
        if (have == buf.size())
            buf.resize(buf.size() * 2);
        const ssize_t n = ::read(fd, buf.data() + have, buf.size() - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            parser.m_problems.add(Kind::ReadError, parser.m_line,
                                  "read error: " + std::string(std::strerror(errno)) +
                                      "; the rest of the file is not loaded",
                                  Severity::Error);
            break;
        }
        if (n == 0)
            break;
        have += size_t(n);
        size_t used = 0;
        if (!checkpoint) {
            used = parser.feed(std::string_view(buf.data(), have));
        } else {
            // Fed up to each checkpoint's offset (then on to the line's end), so a checkpoint
            // falls on the first line boundary at or after every `interval` bytes.
            while (used < have) {
                const int64_t at = parser.m_out.bytes;
                const size_t want = size_t(std::max<int64_t>(nextCheckpoint - at, 1));
                const size_t piece = std::min(want, have - used);
                size_t got = parser.feed(std::string_view(buf.data() + used, piece));
                if (got == 0) {
                    const void *nl =
                        std::memchr(buf.data() + used + piece, '\n', have - used - piece);
                    if (!nl)
                        break; // the line continues in the next read
                    const size_t lineEnd = size_t(static_cast<const char *>(nl) - buf.data()) + 1;
                    got = parser.feed(std::string_view(buf.data() + used, lineEnd - used));
                }
                used += got;
                if (parser.m_out.bytes >= nextCheckpoint) {
                    checkpoint(parser);
                    nextCheckpoint = parser.m_out.bytes + int64_t(interval);
                }
            }
        }
        std::memmove(buf.data(), buf.data() + used, have - used);
        have -= used;
    }
    ::close(fd);
    return parser.finish(std::string_view(buf.data(), have));
}

} // namespace syncline::load
