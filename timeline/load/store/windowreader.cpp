#include "timeline/load/store/windowreader.h"

#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/log/logparser.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <unistd.h>

namespace syncline::load {

namespace {

bool preadAll(int fd, std::string &buf, int64_t offset, size_t n, std::string *error)
{
    buf.resize(n);
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, buf.data() + got, n - got, off_t(offset + int64_t(got)));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *error = "read error: " + std::string(std::strerror(errno));
            return false;
        }
        if (r == 0)
            break; // shorter than indexed: the caller saw the stamp, so only a race
        got += size_t(r);
    }
    buf.resize(got);
    return true;
}

} // namespace

namespace {

// The largest local L with map.toGlobal(L) <= v (bisection over a bracket around toLocal(v)).
int64_t lastAtOrBelow(const sync::ClockMap &m, int64_t v)
{
    constexpr int64_t kLimit = int64_t(1) << 62;
    const int64_t guess =
        std::clamp<int64_t>(m.toLocal(std::clamp(v, -kLimit, kLimit)), -kLimit, kLimit);
    int64_t lo = guess, hi = guess;
    // Steps double up to 2^62 (a map from a forged cache may put v anywhere in the range).
    for (int64_t step = 1 << 20; m.toGlobal(lo) > v && lo > -kLimit;
         step = step < kLimit ? step * 2 : kLimit)
        lo = std::max(-kLimit, lo - step);
    for (int64_t step = 1 << 20; m.toGlobal(hi) <= v && hi < kLimit;
         step = step < kLimit ? step * 2 : kLimit)
        hi = std::min(kLimit, hi + step);
    if (m.toGlobal(lo) > v)
        return lo - 1; // below every representable local
    if (m.toGlobal(hi) <= v)
        return hi;
    // hi − lo may be 2^63 (lo = −2^62, hi = 2^62): the width is taken unsigned.
    while (uint64_t(hi) - uint64_t(lo) > 1) { // toGlobal(lo) <= v < toGlobal(hi)
        const int64_t mid = lo + int64_t((uint64_t(hi) - uint64_t(lo)) / 2);
        (m.toGlobal(mid) <= v ? lo : hi) = mid;
    }
    return lo;
}

} // namespace

WindowTest::WindowTest(const sync::ClockMap &map, int64_t begin, int64_t end)
    : m_map(&map), m_begin(begin), m_end(end)
{
    // A guard of 4 ns either side of each edge: the map may step back by at most 1 ns at a
    // segment seam, so beyond the guard the threshold decides what the direct test would.
    constexpr int64_t kGuard = 4, kLimit = int64_t(1) << 61;
    begin = std::clamp(begin, -kLimit, kLimit);
    end = std::clamp(end, -kLimit, kLimit);
    m_sureStart = lastAtOrBelow(map, end - kGuard);
    m_noStart = lastAtOrBelow(map, end + kGuard) + 1;
    m_noEnd = lastAtOrBelow(map, begin - kGuard - 1);
    m_sureEnd = lastAtOrBelow(map, begin + kGuard) + 1;
}

ParsedFile WindowReader::read(const std::string &path, const LogIndex &x, int64_t a, int64_t b,
                              int64_t *bytesRead)
{
    LogParser parser(path);
    std::string error;
    const int fd = FileReader::openRegular(path, &error);
    if (fd < 0) {
        ParsedFile out;
        out.path = path;
        out.problems.push_back({LoadProblem::Kind::ReadError, LoadProblem::Severity::Error, path, 0, error});
        return out;
    }
    const auto [lo, hi] = x.blocksFor(a, b);
    const LogIndex::Checkpoint &from = x.checkpoints[lo];
    const int64_t to = hi < x.checkpoints.size() ? x.checkpoints[hi].offset : x.stamp.size;
    std::string buf;
    int64_t read = 0;
    // As parseFile does: ~80 bytes of log or more per event, so growth never copies.
    parser.reserveEvents(size_t(std::max<int64_t>(to - from.offset, 0)) / 80 + 16);
    if (lo > 0 && x.headerEnd > 0) {
        if (preadAll(fd, buf, 0, size_t(x.headerEnd), &error))
            parser.feed(buf);
        read += int64_t(buf.size());
    }
    if (lo > 0) {
        // The events open at the checkpoint, restored as the parse there had them.
        LogParser::Resume state;
        for (uint32_t k = 0; k < from.openCount; ++k) {
            const LogIndex::Span &s = x.spans[x.openSpans[from.openBegin + k]];
            if (state.threads.empty() || state.threads.back().tid != s.tid) {
                state.threads.emplace_back();
                state.threads.back().tid = s.tid;
            }
            state.threads.back().open.push_back({s.localStart, s.name, s.args});
        }
        state.line = from.line;
        state.bytes = from.offset;
        parser.restore(state);
    }
    // The blocks in 4 MiB slices (a file's window costs a few MiB while it is parsed, however
    // wide the window); a line longer than a slice grows it.
    std::string tail;
    constexpr size_t kSlice = 4 << 20;
    std::string pending;
    for (int64_t at = from.offset; at < to;) {
        const size_t want = size_t(std::min<int64_t>(int64_t(kSlice), to - at));
        if (!preadAll(fd, buf, at, want, &error) || buf.empty())
            break;
        at += int64_t(buf.size());
        read += int64_t(buf.size());
        pending += buf;
        const size_t used = parser.feed(pending);
        pending.erase(0, used);
    }
    if (hi == x.checkpoints.size())
        tail = std::move(pending); // the file's last line, as the full parse saw it
    ::close(fd);
    std::string().swap(buf);
    // The events still open at checkpoint hi, per tid bottom to top, and the parser's stacks
    // (the same events, opened in the same order): each gets the end the full parse found.
    std::map<int64_t, std::vector<const LogIndex::Span *>> stillOpen;
    if (hi < x.checkpoints.size()) {
        const LogIndex::Checkpoint &end = x.checkpoints[hi];
        for (uint32_t k = 0; k < end.openCount; ++k) {
            const LogIndex::Span &s = x.spans[x.openSpans[end.openBegin + k]];
            stillOpen[s.tid].push_back(&s);
        }
    }
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, const LogIndex::Span *>> patches;
    const auto &stacks = parser.openStacks();
    for (size_t t = 0; t < stacks.size(); ++t) {
        const EventTrack &tr = parser.partial().worker.tracks[t];
        const auto it = stillOpen.find(tr.tid);
        if (it == stillOpen.end())
            continue;
        for (size_t k = 0; k < stacks[t].size() && k < it->second.size(); ++k) {
            const uint32_t e = stacks[t][k];
            if (tr.localStart[e] == it->second[k]->localStart)
                patches.push_back({{uint32_t(t), e}, it->second[k]});
        }
    }
    ParsedFile f = parser.finish(tail);
    if (!error.empty())
        f.problems.push_back({LoadProblem::Kind::ReadError, LoadProblem::Severity::Error, path, 0,
                              error + "; the rest of the window is not loaded"});
    for (const auto &[at, s] : patches) {
        EventTrack &tr = f.worker.tracks[at.first];
        tr.localEnd[at.second] = s->localEnd;
        tr.flags[at.second] = uint16_t((tr.flags[at.second] & ~EventOpen) | (s->flags & EventOpen));
    }
    applyIndex(f, x);
    // The window's own "open events" note would count the events cut off at its end.
    std::erase_if(f.problems, LogIndex::isOpenEventsNote);
    if (bytesRead)
        *bytesRead = read;
    return f;
}

MessageLog WindowReader::messagesIn(const MessageLog &log, const sync::ClockMap &map, int64_t begin,
                                    int64_t end)
{
    MessageLog out;
    const WindowTest in(map, begin, end);
    for (size_t i = 0; i < log.size(); ++i)
        if (in.keep(log[i].localNs, log[i].localNs))
            out.add(log[i].localNs, log.send(i), 0, log.id(i), log.track(i));
    out.shrink();
    return out;
}

void WindowReader::applyIndex(ParsedFile &f, const LogIndex &x)
{
    // What the whole file says about the worker, not the window.
    WorkerInfo &info = f.worker.info;
    info.firstLocalNs = x.firstLocalNs;
    info.lastLocalNs = x.lastLocalNs;
    info.lastHeartbeatLocalNs = x.lastHeartbeatLocalNs;
    info.droppedEvents = x.droppedEvents;
    info.closedCleanly = x.closedCleanly;
    for (EventTrack &tr : f.worker.tracks)
        for (size_t i = 0; i < tr.count(); ++i)
            if (tr.flags[i] & EventOpen)
                tr.localEnd[i] = std::max(tr.localStart[i], x.lastLocalNs); // open at EOF
    for (const auto &[tid, name] : x.threadNames)
        for (EventTrack &tr : f.worker.tracks)
            if (tr.tid == tid)
                tr.threadName = name;
    f.worker.refId = x.refId;
    f.worker.samples = x.samples;
    f.worker.wallPairs = x.wallPairs;
}

ParsedFile WindowReader::header(const std::string &path, const LogIndex &x)
{
    LogParser parser(path);
    std::string error, buf;
    const int fd = FileReader::openRegular(path, &error);
    if (fd >= 0) {
        if (x.headerEnd > 0 && preadAll(fd, buf, 0, size_t(x.headerEnd), &error))
            parser.feed(buf);
        ::close(fd);
    }
    ParsedFile f = parser.finish();
    applyIndex(f, x);
    return f;
}

void WindowReader::cut(Timeline &tl, ClockMode mode, int64_t begin, int64_t end)
{
    std::vector<WindowTest> in;
    in.reserve(tl.workers.size());
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        in.emplace_back(tl.map(w, mode), begin, end);
        for (EventTrack &t : tl.workers[w].tracks)
            cutTrack(t, in.back());
    }
    // A link is inside when both its ends are (an instant's rule: keep(t, t)).
    if (tl.links.eraseIf([&](const MessageLink &l) {
            return !in[l.fromWorker].keep(l.fromLocal, l.fromLocal) ||
                   !in[l.toWorker].keep(l.toLocal, l.toLocal);
        }) > 0)
        tl.links.shrink_to_fit();
}

void WindowReader::cutTrack(EventTrack &t, const sync::ClockMap &m, int64_t begin, int64_t end)
{
    cutTrack(t, WindowTest(m, begin, end));
}

void WindowReader::cutTrack(EventTrack &t, const WindowTest &in)
{
    const size_t n = t.count();
    size_t k = 0;
    while (k < n && in.keep(t.localStart[k], t.localEnd[k]))
        ++k; // a track read for the window keeps everything: nothing to allocate
    if (k == n)
        return;
    std::vector<int32_t> newIndex(n, -1);
    for (size_t i = 0; i < k; ++i)
        newIndex[i] = int32_t(i);
    for (size_t i = k; i < n; ++i)
        if (in.keep(t.localStart[i], t.localEnd[i]))
            newIndex[i] = int32_t(k++);
    int maxDepth = 0;
    for (size_t i = 0; i < n; ++i) {
        const int32_t j = newIndex[i];
        if (j < 0)
            continue;
        t.localStart[size_t(j)] = t.localStart[i];
        t.localEnd[size_t(j)] = t.localEnd[i];
        t.nameId[size_t(j)] = t.nameId[i];
        t.flags[size_t(j)] = t.flags[i];
        t.depth[size_t(j)] = t.depth[i];
        const int32_t p = t.parent[i];
        // An ancestor encloses its descendants, so a kept event's parent is kept too.
        t.parent[size_t(j)] = p >= 0 ? newIndex[size_t(p)] : -1;
        maxDepth = std::max<int>(maxDepth, t.depth[i]);
    }
    auto shrink = [k](auto &v) {
        v.resize(k);
        v.shrink_to_fit();
    };
    shrink(t.localStart);
    shrink(t.localEnd);
    shrink(t.nameId);
    shrink(t.flags);
    shrink(t.depth);
    shrink(t.parent);
    t.maxDepth = k > 0 ? maxDepth : 0;
    std::vector<std::pair<uint32_t, uint32_t>> refs;
    for (const auto &[e, id] : t.argRefs)
        if (newIndex[e] >= 0)
            refs.emplace_back(uint32_t(newIndex[e]), id);
    t.argRefs = std::move(refs);
    if (!t.argDense.empty()) {
        for (size_t i = 0; i < n; ++i)
            if (newIndex[i] >= 0)
                t.argDense[size_t(newIndex[i])] = t.argDense[i];
        shrink(t.argDense);
    }
}

} // namespace syncline::load
