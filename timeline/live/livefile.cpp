#include "timeline/live/livefile.h"

#include "timeline/load/eventkindlookup.h"
#include "timeline/load/filereader.h"
#include "timeline/load/log/linescanner.h"
#include "timeline/load/timelinebuilder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <numeric>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

// Track order: by start, the enclosing (longer) event first for equal starts.
bool before(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    return s1 < s2 || (s1 == s2 && e1 > e2);
}

template <typename T>
void permuteSuffix(std::vector<T> &v, size_t k, const std::vector<uint32_t> &order)
{
    std::vector<T> tmp(order.size());
    for (size_t i = 0; i < order.size(); ++i)
        tmp[i] = v[order[i]];
    std::copy(tmp.begin(), tmp.end(), v.begin() + ptrdiff_t(k));
}

// First existing event that sorts after (start, end) (an upper bound); count() when none,
// which is the common case of events arriving in order.
size_t insertionPoint(const EventTrack &t, int64_t start, int64_t end)
{
    const size_t n = t.count();
    if (n == 0 || !before(start, end, t.localStart[n - 1], t.localEnd[n - 1]))
        return n;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (before(start, end, t.localStart[mid], t.localEnd[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void markOverdue(EventTrack &t, uint32_t i, EventKindLookup &kinds, const Timeline &tl)
{
    const int64_t max = kinds.expectedMaxNs(tl.names, t.nameId[i]);
    if (max >= 0 && t.localEnd[i] - t.localStart[i] > max)
        t.flags[i] |= EventOverdue;
}

} // namespace

namespace {

constexpr size_t kKeep = 4096;            // bytes of head and tail compared
constexpr size_t kMaxFirstLine = 1 << 16; // a header line longer than this is not waited for

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
    : m_path(std::move(path)), m_lastGrowth(Clock::now()), m_parser(m_path)
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
        const size_t carry = m_carry.size();
        if (scratch.size() < carry + chunkBytes)
            scratch.resize(carry + chunkBytes); // zero-filled only when it grows
        std::memcpy(scratch.data(), m_carry.data(), carry);
        const ssize_t n = ::pread(m_fd, scratch.data() + carry, chunkBytes, m_offset);
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
        keepHeadAndTail(std::string_view(scratch.data() + carry, size_t(n)));
        const std::string_view text(scratch.data(), carry + size_t(n));
        const size_t used = m_parser.feed(text);
        m_carry.assign(text.substr(used));
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
    m_notes.push_back({severity, m_path, 0, std::move(message)});
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
bool LiveFile::resolveChange(bool replaced, bool shrank)
{
    int fd = m_fd;
    if (replaced) {
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
        ::close(m_fd);
        m_fd = -1;
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
    size_t n = 0;
    for (const TrackState &t : m_tracks)
        n += t.open.size();
    return n;
}

void LiveFile::syncNames(Timeline &tl)
{
    const StringTable &names = m_parser.partial().names;
    for (size_t i = m_nameMap.size(); i < names.size(); ++i)
        m_nameMap.push_back(tl.names.intern(names.name(uint32_t(i))));
}

void LiveFile::syncTracks(Worker &w, LiveMergeStats &stats)
{
    const auto &srcTracks = m_parser.partial().worker.tracks;
    for (size_t p = m_trackMap.size(); p < srcTracks.size(); ++p) {
        EventTrack t;
        t.tid = srcTracks[p].tid;
        t.pid = srcTracks[p].pid;
        const auto pos = std::lower_bound(
            w.tracks.begin(), w.tracks.end(), t, [](const EventTrack &a, const EventTrack &b) {
                return std::pair(a.pid, a.tid) < std::pair(b.pid, b.tid);
            });
        const auto at = uint32_t(pos - w.tracks.begin());
        w.tracks.insert(pos, std::move(t));
        for (uint32_t &m : m_trackMap)
            if (m >= at)
                ++m;
        m_trackMap.push_back(at);
        m_tracks.emplace_back();
        stats.newTracks = true;
    }
}

// `srcRef` is a position in the parser's argRefs of the track: the parser re-points a ref when
// an E merges more args in (texts are interned, never edited), so the position, not the id, is
// what stays valid while the event is open.
uint32_t LiveFile::copyArgs(Timeline &tl, size_t p, int64_t srcRef)
{
    const ParsedFile &pf = m_parser.partial();
    return tl.args.intern(pf.args.text(pf.worker.tracks[p].argRefs[size_t(srcRef)].second));
}

// Args that arrived with the `E` of an event merged while it was open (it had none at `B`).
void LiveFile::noteLateArgs(size_t p)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    TrackState &st = m_tracks[p];
    for (size_t r = st.argRefsSeen; r < src.argRefs.size(); ++r) {
        const uint32_t event = src.argRefs[r].first;
        if (event >= st.committed)
            continue; // a new event: appendNew() copies it
        for (OpenEvent &o : st.open)
            if (o.src == event)
                o.srcArgs = int64_t(r);
    }
}

void LiveFile::closeOrGrow(size_t p, EventTrack &dst, Timeline &tl, EventKindLookup &kinds,
                           int64_t openEndLocal, LiveMergeStats &stats)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    auto &open = m_tracks[p].open;
    size_t kept = 0;
    for (OpenEvent &o : open) {
        const bool closed = !(src.flags[o.src] & EventOpen);
        dst.flags[o.dst] &= uint16_t(~EventOverdue);
        if (closed) {
            dst.localEnd[o.dst] = src.localEnd[o.src];
            dst.flags[o.dst] &= uint16_t(~EventOpen);
            ++stats.closedEvents;
        } else {
            dst.localEnd[o.dst] = std::max(dst.localStart[o.dst], openEndLocal);
        }
        markOverdue(dst, o.dst, kinds, tl);
        if (o.srcArgs >= 0 && o.dstArgs < 0) {
            o.dstArgs = copyArgs(tl, p, o.srcArgs);
            const std::pair<uint32_t, uint32_t> ref(o.dst, uint32_t(o.dstArgs));
            dst.argRefs.insert(std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(), ref), ref);
            dst.flags[o.dst] |= EventHasArgs;
        } else if (closed && o.dstArgs >= 0) {
            // E's args merged in: point the event's ref at the merged text.
            o.dstArgs = copyArgs(tl, p, o.srcArgs);
            auto it = std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(),
                                       std::pair<uint32_t, uint32_t>(o.dst, 0));
            if (it != dst.argRefs.end() && it->first == o.dst)
                it->second = uint32_t(o.dstArgs);
        }
        if (!closed)
            open[kept++] = o;
    }
    open.resize(kept);
}

size_t LiveFile::appendNew(size_t p, EventTrack &dst, Timeline &tl, EventKindLookup &kinds,
                           int64_t openEndLocal, LiveMergeStats &stats)
{
    const EventTrack &src = m_parser.partial().worker.tracks[p];
    TrackState &st = m_tracks[p];
    const size_t n = src.count(), c = st.committed;
    if (n == c)
        return dst.count();
    std::vector<int64_t> argsOf(n - c, -1);
    for (size_t r = st.argRefsSeen; r < src.argRefs.size(); ++r)
        if (src.argRefs[r].first >= c)
            argsOf[src.argRefs[r].first - c] = int64_t(r); // a position in src.argRefs
    std::vector<NewEvent> batch;
    batch.reserve(n - c);
    for (size_t i = c; i < n; ++i) {
        const int64_t s = src.localStart[i];
        const bool open = src.flags[i] & EventOpen;
        batch.push_back({s, open ? std::max(s, openEndLocal) : src.localEnd[i], uint32_t(i)});
    }
    const auto cmp = [](const NewEvent &a, const NewEvent &b) {
        return before(a.start, a.end, b.start, b.end);
    };
    if (!std::is_sorted(batch.begin(), batch.end(), cmp))
        std::stable_sort(batch.begin(), batch.end(), cmp);

    const size_t old = dst.count();
    const size_t k = insertionPoint(dst, batch[0].start, batch[0].end);
    dst.reserve(old + batch.size());
    for (const NewEvent &e : batch) {
        const auto at = uint32_t(dst.count());
        dst.localStart.push_back(e.start);
        dst.localEnd.push_back(e.end);
        dst.nameId.push_back(m_nameMap[src.nameId[e.src]]);
        dst.flags.push_back(uint16_t(src.flags[e.src] & ~(EventOverdue | EventHasArgs)));
        markOverdue(dst, at, kinds, tl);
        int64_t dstArgs = -1;
        const int64_t srcArgs = argsOf[e.src - c];
        if (srcArgs >= 0) {
            dstArgs = copyArgs(tl, p, srcArgs);
            dst.argRefs.emplace_back(at, uint32_t(dstArgs));
            dst.flags[at] |= EventHasArgs;
        }
        if (dst.flags[at] & EventOpen)
            st.open.push_back({e.src, at, srcArgs, dstArgs});
    }
    if (k < old)
        mergeSuffix(dst, st, k, old);
    TimelineBuilder::nestFrom(dst, k);
    st.committed = uint32_t(n);
    stats.newEvents += n - c;
    return k;
}

// [k, old) and [old, count()) are each sorted: merge them (stable: existing events first on
// ties) and remap what refers to their indices (argRefs, the open list).
void LiveFile::mergeSuffix(EventTrack &dst, TrackState &st, size_t k, size_t old)
{
    const size_t n = dst.count();
    std::vector<uint32_t> order(n - k);
    std::iota(order.begin(), order.end(), uint32_t(k));
    std::inplace_merge(order.begin(), order.begin() + ptrdiff_t(old - k), order.end(),
                       [&dst](uint32_t a, uint32_t b) {
                           return before(dst.localStart[a], dst.localEnd[a], dst.localStart[b],
                                         dst.localEnd[b]);
                       });
    permuteSuffix(dst.localStart, k, order);
    permuteSuffix(dst.localEnd, k, order);
    permuteSuffix(dst.nameId, k, order);
    permuteSuffix(dst.flags, k, order);
    std::vector<uint32_t> where(n - k);
    for (size_t i = 0; i < order.size(); ++i)
        where[order[i] - k] = uint32_t(k + i);
    const auto firstMoved = std::lower_bound(dst.argRefs.begin(), dst.argRefs.end(),
                                             std::pair<uint32_t, uint32_t>(uint32_t(k), 0));
    for (auto it = firstMoved; it != dst.argRefs.end(); ++it)
        it->first = where[it->first - k];
    std::sort(firstMoved, dst.argRefs.end());
    for (OpenEvent &o : st.open)
        if (o.dst >= k)
            o.dst = where[o.dst - k];
}

LiveMergeStats LiveFile::merge(Worker &w, Timeline &tl, EventKindLookup &kinds,
                               int64_t openEndLocal)
{
    LiveMergeStats stats;
    const ParsedFile &pf = m_parser.partial();
    syncNames(tl);
    syncTracks(w, stats);
    const int rank = w.info.rank;
    w.info = pf.worker.info;
    if (!pf.rankKnown)
        w.info.rank = rank; // assigned by LiveJob
    for (size_t p = 0; p < m_trackMap.size(); ++p) {
        EventTrack &dst = w.tracks[m_trackMap[p]];
        const EventTrack &src = pf.worker.tracks[p];
        if (dst.threadName != src.threadName)
            dst.threadName = src.threadName;
        noteLateArgs(p);
        closeOrGrow(p, dst, tl, kinds, openEndLocal, stats);
        const size_t from = appendNew(p, dst, tl, kinds, openEndLocal, stats);
        if (from < dst.count())
            stats.changedTracks.emplace_back(m_trackMap[p], uint32_t(from));
        m_tracks[p].argRefsSeen = src.argRefs.size();
    }
    mergeCounters(w, stats);
    return stats;
}

void LiveFile::mergeCounters(Worker &w, LiveMergeStats &stats)
{
    const auto &src = m_parser.partial().worker.counters;
    auto find = [&w](const CounterTrack &c) {
        for (CounterTrack &d : w.counters)
            if (d.pid == c.pid && d.name == c.name && d.series == c.series)
                return &d;
        return static_cast<CounterTrack *>(nullptr);
    };
    for (size_t k = m_counterSeen.size(); k < src.size(); ++k) {
        CounterTrack c;
        c.pid = src[k].pid;
        c.name = src[k].name;
        c.series = src[k].series;
        c.category = src[k].category;
        w.counters.push_back(std::move(c));
        m_counterSeen.push_back(0);
        stats.newCounters = true;
    }
    if (stats.newCounters)
        CounterTrack::sortByKey(w.counters);
    for (size_t k = 0; k < src.size(); ++k) {
        const CounterTrack &from = src[k];
        if (m_counterSeen[k] == from.count())
            continue;
        CounterTrack *to = find(from);
        const bool first = to->count() == 0;
        bool sorted = true;
        for (size_t i = m_counterSeen[k]; i < from.count(); ++i) {
            sorted = sorted && (to->count() == 0 || to->localTs.back() <= from.localTs[i]);
            to->add(from.localTs[i], from.value[i]);
            to->minValue = first && i == m_counterSeen[k] ? from.value[i]
                                                          : std::min(to->minValue, from.value[i]);
            to->maxValue = first && i == m_counterSeen[k] ? from.value[i]
                                                          : std::max(to->maxValue, from.value[i]);
        }
        if (!sorted)
            to->finish();
        stats.newCounterSamples += from.count() - m_counterSeen[k];
        m_counterSeen[k] = from.count();
    }
}

void LiveFile::growOpenEvents(Worker &w, Timeline &tl, EventKindLookup &kinds, int64_t openEndLocal)
{
    for (size_t p = 0; p < m_trackMap.size(); ++p) {
        EventTrack &dst = w.tracks[m_trackMap[p]];
        for (const OpenEvent &o : m_tracks[p].open) {
            dst.localEnd[o.dst] = std::max(dst.localStart[o.dst], openEndLocal);
            markOverdue(dst, o.dst, kinds, tl);
        }
    }
}

load::MessageLog LiveFile::messages() const
{
    load::MessageLog out = m_parser.partial().messages;
    std::vector<uint32_t> where(m_parser.partial().worker.tracks.size(), UINT32_MAX);
    std::copy(m_trackMap.begin(), m_trackMap.end(), where.begin());
    out.remapTracks(where);
    return out;
}

} // namespace syncline
