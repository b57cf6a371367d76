#include "timeline/live/livefile.h"

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/log/linescanner.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

constexpr size_t kKeep = 4096;            // bytes of head and tail compared
constexpr size_t kMaxFirstLine = 1 << 16; // a header line longer than this is not waited for
constexpr size_t kKeepCarry = 1 << 20;    // a carry buffer grown past this is freed after use

// Up to `n` bytes of fd at `offset` (fewer at the end of the file).
std::string readAt(int fd, int64_t offset, size_t n)
{
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out.data() + got, n - got, offset + int64_t(got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += size_t(r);
    }
    out.resize(got);
    return out;
}

// Closes the fd of a replacing file unless it was adopted (release()); never the followed one.
class FdGuard
{
public:
    FdGuard(int fd, int followed) : m_fd(fd == followed ? -1 : fd) {}
    ~FdGuard()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FdGuard(const FdGuard &) = delete;
    FdGuard &operator=(const FdGuard &) = delete;
    void release() { m_fd = -1; }

private:
    int m_fd;
};

} // namespace

LiveFile::LiveFile(std::string path)
    : m_path(std::move(path)), m_lastGrowth(Clock::now()), m_parser(m_path), m_merge(m_parser)
{
}

LiveFile::~LiveFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

int64_t LiveFile::ingest(std::vector<char> &scratch, size_t chunkBytes)
{
    if (m_stopped)
        return 0;
    if (m_fd < 0 && m_parked) {
        int64_t result = 0;
        if (!reopen(scratch, chunkBytes, result))
            return result;
    }
    if (m_fd < 0) {
        std::string why;
        const int fd = FileReader::openRegular(m_path, &why);
        if (fd < 0) {
            struct stat st
            {
            };
            if (::stat(m_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
                m_error = why; // "not a regular file (FIFO); skipped"
                m_skipped = m_stopped = true;
            } else {
                m_error = m_path + ": " + why;
            }
            return -1;
        }
        adopt(fd);
    }
    int64_t total = 0;
    bool headChecked = false;
    for (;;) {
        if (scratch.size() < chunkBytes)
            scratch.resize(chunkBytes); // zero-filled only when it grows
        const ssize_t n = ::pread(m_fd, scratch.data(), chunkBytes, m_offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            m_error = m_path + ": read failed: " + std::strerror(errno);
            return -1;
        }
        if (n == 0)
            break;
        // New bytes: before they are parsed, the file must still begin as it did (one read of
        // at most 4 KiB, in the page cache) — else it was truncated and rewritten past the old
        // size, and these bytes are the middle of another stream.
        if (!headChecked && m_headDone) {
            headChecked = true;
            if (readAt(m_fd, 0, m_head.size()) != m_head) {
                if (!resolveChange(false, false))
                    return total;
                continue; // read the stream now followed from its new offset
            }
        }
        m_offset += n;
        total += n;
        const std::string_view fresh(scratch.data(), size_t(n));
        keepHeadAndTail(fresh);
        feed(fresh);
        if (size_t(n) < chunkBytes)
            break;
    }
    if (total > 0) {
        m_lastGrowth = Clock::now();
        return total;
    }
    // Nothing new: shrunk (one fstat, as before), or replaced by rename() (one stat of the path,
    // at most once a second: a replacement of a quiet file is seen within a second).
    struct stat st
    {
    };
    if (::fstat(m_fd, &st) == 0 && st.st_size < m_offset)
        return resolveChange(false, true) ? ingest(scratch, chunkBytes) : 0;
    const auto now = Clock::now();
    if (now - m_lastPathCheck < std::chrono::seconds(1))
        return 0;
    m_lastPathCheck = now;
    struct stat at
    {
    };
    // A path that is gone (deleted, or between the two halves of a rotation) is not a
    // replacement: the open file is read on.
    if (::stat(m_path.c_str(), &at) == 0 && S_ISREG(at.st_mode) &&
        (uint64_t(at.st_dev) != m_dev || uint64_t(at.st_ino) != m_ino))
        return resolveChange(true, false) ? ingest(scratch, chunkBytes) : 0;
    return 0;
}

void LiveFile::feed(std::string_view fresh)
{
    std::string_view rest = fresh;
    if (!m_carry.empty()) {
        // The line begun in an earlier read grows in place until its '\n' comes (only the new
        // bytes are searched), then is parsed alone: each byte is copied once, however long the
        // line and however many reads it spans.
        const size_t nl = fresh.find('\n');
        if (nl == std::string_view::npos) {
            m_carry.append(fresh);
            return;
        }
        m_carry.append(fresh.substr(0, nl + 1));
        m_parser.feed(m_carry); // one whole line: all of it is consumed
        if (m_carry.capacity() > kKeepCarry)
            std::string().swap(m_carry); // a huge line's buffer is not kept for the next
        else
            m_carry.clear();
        rest = fresh.substr(nl + 1);
    }
    m_carry.assign(rest.substr(m_parser.feed(rest)));
}

void LiveFile::closeDescriptor()
{
    if (m_fd < 0)
        return;
    ::close(m_fd);
    m_fd = -1;
    m_parked = true;
}

bool LiveFile::reopen(std::vector<char> &scratch, size_t chunkBytes, int64_t &result)
{
    result = 0;
    std::string why;
    const int fd = FileReader::openRegular(m_path, &why);
    if (fd < 0)
        return false; // gone (deleted, or between the halves of a rotation): nothing to read now
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        return false;
    }
    if (uint64_t(st.st_dev) == m_dev && uint64_t(st.st_ino) == m_ino) {
        m_fd = fd;
        m_parked = false;
        return true;
    }
    // Another file took the path while it was closed: the same decision as a rename seen by the
    // periodic path check (resolveChange closes or adopts fd).
    if (resolveChange(true, false, fd)) {
        m_parked = m_fd < 0;
        result = m_fd >= 0 ? ingest(scratch, chunkBytes) : 0;
    }
    return false;
}

void LiveFile::adopt(int fd)
{
    if (m_fd >= 0 && m_fd != fd)
        ::close(m_fd);
    m_fd = fd;
    struct stat st
    {
    };
    if (::fstat(fd, &st) == 0) {
        m_dev = uint64_t(st.st_dev);
        m_ino = uint64_t(st.st_ino);
    }
}

void LiveFile::keepHeadAndTail(std::string_view bytes)
{
    if (!m_headDone) {
        const size_t nl = bytes.find('\n');
        const size_t take =
            std::min(nl == std::string_view::npos ? bytes.size() : nl + 1, kKeep - m_head.size());
        m_head.append(bytes.substr(0, take));
        m_headDone = nl != std::string_view::npos || m_head.size() == kKeep;
    }
    if (bytes.size() >= kKeep) {
        m_tail.assign(bytes.substr(bytes.size() - kKeep));
    } else {
        m_tail.append(bytes);
        if (m_tail.size() > kKeep)
            m_tail.erase(0, m_tail.size() - kKeep);
    }
}

void LiveFile::note(LoadProblem::Severity severity, std::string message)
{
    m_notes.push_back({LoadProblem::Kind::FileReplaced, severity, m_path, 0, std::move(message)});
}

std::vector<LoadProblem> LiveFile::takeProblems()
{
    std::vector<LoadProblem> out = m_parser.takeProblems();
    for (LoadProblem &p : m_notes)
        out.push_back(std::move(p));
    m_notes.clear();
    return out;
}

// The file at the path is no longer the stream read so far: `replaced` (the path holds another
// file), `shrank` (the open file is shorter than what was read), or neither (its first line
// changed). Decides what to follow (see ingest() in the header); false when nothing is to be
// read now.
bool LiveFile::resolveChange(bool replaced, bool shrank, int openedAgain)
{
    int fd = m_fd;
    if (openedAgain >= 0) {
        fd = openedAgain;
    } else if (replaced) {
        std::string why;
        fd = FileReader::openRegular(m_path, &why);
        if (fd < 0)
            return true; // not readable (yet): the old file is read on
    }
    FdGuard closeNew(fd, m_fd);
    struct stat ns
    {
    };
    const int64_t size = ::fstat(fd, &ns) == 0 ? int64_t(ns.st_size) : 0;
    const std::string before = std::to_string(m_offset) + " bytes read";
    if (replaced && m_headDone && size >= m_offset && readAt(fd, 0, m_head.size()) == m_head &&
        readAt(fd, m_offset - int64_t(m_tail.size()), m_tail.size()) == m_tail) {
        note(LoadProblem::Severity::Info,
             "replaced by another file (rename) that begins with the " + before +
                 "; following the new file from there");
        closeNew.release();
        adopt(fd);
        return true;
    }
    const std::string first = readAt(fd, 0, kMaxFirstLine);
    const size_t nl = first.find('\n');
    if (nl == std::string::npos && first.size() < kMaxFirstLine)
        return false; // its first line is not complete yet: decide when it is
    LineScanner scanner;
    LogRecord record;
    const bool header = nl != std::string::npos &&
                        scanner.scan(std::string_view(first).substr(0, nl), record) &&
                        record.type == RecordType::Header;
    const std::string what = replaced ? "was replaced by another file (rename)"
                             : shrank ? "shrank from " + std::to_string(m_offset) + " to " +
                                            std::to_string(size) + " bytes (truncated)"
                                      : "was truncated and rewritten (its first line changed)";
    if (header) {
        note(LoadProblem::Severity::Warning,
             "file " + what + "; the events of the " + before +
                 " stay; the new file begins with a header and is followed from its start as "
                 "another worker incarnation");
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
        m_parked = false;
        m_replaced = m_stopped = true;
        return false;
    }
    note(LoadProblem::Severity::Warning,
         "file " + what + "; the events of the " + before +
             " stay; the new content has no header and is read from its start as more of this "
             "worker's log (e.g. copytruncate)");
    closeNew.release();
    adopt(fd);
    m_offset = 0;
    m_carry.clear();
    m_head.clear();
    m_headDone = false;
    m_tail.clear();
    m_parser.restartLineNumbers();
    return true;
}

std::vector<sync::ClockSample> LiveFile::currentSamples(std::string *refId) const
{
    const auto &all = m_parser.partialSamples();
    const auto &refs = m_parser.syncRefs();
    std::vector<sync::ClockSample> out;
    if (all.empty() || refs.empty())
        return out;
    std::vector<size_t> perRef(refs.size(), 0);
    for (const auto &s : all)
        ++perRef[s.first];
    const auto best = uint32_t(std::max_element(perRef.begin(), perRef.end()) - perRef.begin());
    out.reserve(perRef[best]);
    for (const auto &s : all)
        if (s.first == best)
            out.push_back(s.second);
    if (refId)
        *refId = refs[best];
    return out;
}

size_t LiveFile::openEvents() const
{
    return m_merge.openEvents();
}

LiveMergeStats LiveFile::merge(Worker &worker, Timeline &timeline, EventKindLookup &kinds,
                               int64_t openEndLocal)
{
    return m_merge.merge(worker, timeline, kinds, openEndLocal);
}

void LiveFile::growOpenEvents(Worker &worker, Timeline &timeline, EventKindLookup &kinds,
                              int64_t openEndLocal)
{
    m_merge.growOpenEvents(worker, timeline, kinds, openEndLocal);
}

load::MessageLog LiveFile::messages() const
{
    return m_merge.messages();
}

} // namespace syncline
