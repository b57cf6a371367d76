#include "timeline/load/store/logextension.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/parse/problemlog.h"
#include "timeline/load/store/varint.h"

#include <algorithm>
#include <map>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace syncline::load {

namespace {

constexpr int64_t kTailBytes = 4096;

struct Fd
{
    int fd = -1;
    explicit Fd(const std::string &path)
    {
        std::string error;
        fd = FileReader::openRegular(path, &error);
    }
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    bool read(std::string &buf, int64_t offset, int64_t n) const
    {
        buf.resize(size_t(std::max<int64_t>(n, 0)));
        return fd >= 0 && (n <= 0 || varint::preadExact(fd, buf.data(), buf.size(), offset));
    }
};

// The events of track t that are still open, in index order (their stack order: they all end
// at the last local time, so the stable sort kept the order they were opened in).
std::vector<uint32_t> openEvents(const EventTrack &t)
{
    std::vector<uint32_t> out;
    for (size_t i = 0; i < t.count(); ++i)
        if (t.flags[i] & EventOpen)
            out.push_back(uint32_t(i));
    return out;
}

// Sets (or removes, with id < 0) event e's args ref in t.argRefs (sorted by event).
void setArgs(EventTrack &t, uint32_t e, int64_t id)
{
    auto it = std::lower_bound(
        t.argRefs.begin(), t.argRefs.end(), e,
        [](const std::pair<uint32_t, uint32_t> &r, uint32_t v) { return r.first < v; });
    const bool has = it != t.argRefs.end() && it->first == e;
    if (id < 0 && has)
        t.argRefs.erase(it);
    else if (id >= 0 && has)
        it->second = uint32_t(id);
    else if (id >= 0)
        t.argRefs.insert(it, {e, uint32_t(id)});
}

} // namespace

LogIndex::Continuation LogExtension::continuation(const std::string &path, const ParsedFile &f,
                                                  const LogIndex &x)
{
    LogIndex::Continuation c;
    if (!f.usable || x.headerEnd <= 0 || x.checkpoints.empty() || f.worker.tracks.empty())
        return c;
    // Recorder notes are kept and reported again (LogParser::restoreNotes); any other problem,
    // or more notes than a parse shows in full, would not carry over (the problem log's counts).
    std::vector<std::pair<int64_t, std::string>> notes;
    for (const LoadProblem &p : f.problems) {
        if (LogIndex::isOpenEventsNote(p))
            continue;
        if (p.kind != LoadProblem::Kind::RecorderNote || p.severity != LoadProblem::Severity::Info ||
            p.line <= 0 || notes.size() == size_t(ProblemLog::kShownPerKind))
            return c;
        notes.emplace_back(p.line, p.message);
    }
    bool anyTime = !f.worker.samples.empty();
    for (const EventTrack &t : f.worker.tracks)
        anyTime = anyTime || t.count() > 0;
    if (!anyTime)
        return c;
    // From the last checkpoint (a line start) to the end the stamp describes.
    const LogIndex::Checkpoint &cp = x.checkpoints.back();
    const Fd file(path);
    std::string block;
    if (!file.read(block, cp.offset, x.stamp.size - cp.offset))
        return c;
    const size_t nl = block.rfind('\n');
    const size_t end = nl == std::string::npos ? 0 : nl + 1;
    const std::string_view fragment = std::string_view(block).substr(end);
    if (fragment.find_first_not_of(" \t\r") != std::string_view::npos) {
        if (LogParser::recordTypeOf(fragment))
            return c; // a record without its '\n', read as the last line: it may still change
    }
    c.offset = cp.offset + int64_t(end);
    c.line = cp.line + int64_t(std::count(block.begin(), block.begin() + ptrdiff_t(end), '\n'));
    std::string tail;
    const int64_t tailFrom = std::max<int64_t>(0, c.offset - kTailBytes);
    if (!file.read(tail, tailFrom, c.offset - tailFrom))
        return c;
    c.tailHash = CacheFile::hash(tail);
    // The order check's last time per thread: B starts and the E ends it matched (X and I
    // records are not checked).
    for (const EventTrack &t : f.worker.tracks) {
        int64_t last = INT64_MIN;
        for (size_t i = 0; i < t.count(); ++i) {
            if (t.flags[i] & (EventInterval | EventInstant))
                continue;
            last = std::max(last, t.localStart[i]);
            if (!(t.flags[i] & EventOpen))
                last = std::max(last, t.localEnd[i]);
        }
        if (last != INT64_MIN)
            c.lastOrderTs.emplace_back(t.tid, last);
    }
    c.firstTid = x.resume.possible ? x.resume.firstTid : f.worker.tracks.front().tid;
    c.notes = std::move(notes);
    c.possible = true;
    return c;
}

std::optional<LogExtension> LogExtension::prepare(const std::string &path, std::string *why,
                                                  bool unchangedToo)
{
    auto fail = [why](const std::string &r) {
        if (why)
            *why = r;
        return std::nullopt;
    };
    std::string reason;
    std::optional<LogIndex> x = LogIndex::load(path, &reason, true);
    if (!x)
        return fail(reason);
    const std::optional<LogFileStamp> now = LogFileStamp::of(path);
    if (!now)
        return fail("no such log");
    const bool unchanged = *now == x->stamp;
    if (unchanged && !unchangedToo)
        return fail("not grown");
    if (!x->resume.possible)
        return fail("the parse cannot be continued at its end");
    if (now->inode != x->stamp.inode)
        return fail("replaced (another file)");
    if (now->size < x->stamp.size)
        return fail("truncated");
    if (now->size == x->stamp.size && !unchanged)
        return fail("rewritten (same size)");
    // The old bytes must still be there: the first 4 KiB as far as the old size reached, and
    // the 4 KiB before the continuation. An unchanged log is trusted on its stamp, as its index
    // and store are (a read near its end would cost a seek per log on a cold disk).
    if (!unchanged) {
        const uint64_t head = x->stamp.size >= kTailBytes
                                  ? now->headHash
                                  : CacheFile::hash(FileReader::head(path, size_t(x->stamp.size)));
        const Fd file(path);
        std::string tail;
        const int64_t tailFrom = std::max<int64_t>(0, x->resume.offset - kTailBytes);
        if (head != x->stamp.headHash || !file.read(tail, tailFrom, x->resume.offset - tailFrom) ||
            CacheFile::hash(tail) != x->resume.tailHash)
            return fail("rewritten (its old bytes changed)");
    }
    std::optional<EventStore> store = EventStore::open(path, &reason, true);
    if (!store)
        return fail(reason);
    if (!(store->stamp == x->stamp))
        return fail("the event store and the index describe different versions of the log");
    LogExtension e;
    e.m_path = path;
    e.m_index = std::move(*x);
    e.m_store = std::move(*store);
    e.m_now = *now;
    e.m_unchanged = unchanged;
    return e;
}

std::optional<ParsedFile> LogExtension::parse(const std::atomic<bool> *cancel, size_t interval)
{
    ParsedFile p;
    if (!m_store.readAll(p))
        return std::nullopt;
    p.path = m_path;
    const LogIndex &x = m_index;
    auto &tracks = p.worker.tracks;
    if (!m_unchanged)
        m_before = tracks; // what the store holds, to find where each track changed
    // What the old bytes' parse left in the parser's state.
    std::vector<std::vector<uint32_t>> opens(tracks.size());
    std::vector<size_t> restored(tracks.size(), 0); // per track: its restored open events
    std::map<int64_t, int64_t> orderTs(x.resume.lastOrderTs.begin(), x.resume.lastOrderTs.end());
    LogParser::Resume state;
    state.localRange = std::make_pair(x.firstLocalNs, x.lastLocalNs);
    state.refs = {x.refId};
    for (const sync::ClockSample &s : x.samples)
        state.samples.emplace_back(0, s);
    state.wallPairs = x.wallPairs;
    // The file's first thread first (a record without tid belongs to it); a thread is restored
    // when something of it is still open, its order check has a time, or it is the first.
    std::vector<size_t> order(tracks.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t i) { return tracks[i].tid == x.resume.firstTid; });
    for (size_t ti : order) {
        const EventTrack &t = tracks[ti];
        opens[ti] = openEvents(t);
        restored[ti] = opens[ti].size();
        LogParser::Resume::Thread th;
        th.tid = t.tid;
        for (uint32_t e : opens[ti]) {
            LogParser::Resume::Open o;
            o.localStart = t.localStart[e];
            o.name = std::string(p.names.name(t.nameId[e]));
            if (const int64_t a = t.argsId(e); a >= 0)
                o.args = std::string(p.args.text(uint32_t(a)));
            th.open.push_back(std::move(o));
        }
        if (const auto it = orderTs.find(t.tid); it != orderTs.end())
            th.lastOrderTs = it->second;
        if (!th.open.empty() || th.lastOrderTs || t.tid == x.resume.firstTid)
            state.threads.push_back(std::move(th));
    }
    state.lastHeartbeatLocalNs = x.lastHeartbeatLocalNs;
    state.droppedEvents = x.droppedEvents;
    state.closedCleanly = x.closedCleanly;
    state.line = x.resume.line;
    state.bytes = x.resume.offset;

    LogParser parser(m_path);
    const Fd file(m_path);
    std::string buf;
    if (!file.read(buf, 0, x.headerEnd) || parser.feed(buf) != buf.size() ||
        !parser.restore(state) || !parser.takeProblems().empty())
        return std::nullopt;
    parser.restoreNotes(x.resume.notes);
    LogIndex::Builder builder;
    builder.checkpoint(parser);
    // The new bytes, up to the size that was checked, in slices; a checkpoint about every
    // `interval` bytes, at line boundaries.
    interval = std::max<size_t>(interval, 1);
    std::string pending;
    int64_t lastCheckpoint = x.resume.offset;
    for (int64_t at = x.resume.offset; at < m_now.size;) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return std::nullopt;
        const int64_t n = std::min<int64_t>(int64_t(interval), m_now.size - at);
        if (!file.read(buf, at, n))
            return std::nullopt;
        at += n;
        pending += buf;
        pending.erase(0, parser.feed(pending));
        if (parser.partial().bytes - lastCheckpoint >= int64_t(interval)) {
            builder.checkpoint(parser);
            lastCheckpoint = parser.partial().bytes;
        }
    }
    ParsedFile t = parser.finish(pending);
    if (!t.worker.counters.empty() && !p.worker.counters.empty())
        return std::nullopt; // series of both parts would have to be merged: parsed whole

    // The new part merged into the decoded one.
    std::unordered_map<int64_t, uint32_t> trackOfTid;
    for (size_t i = 0; i < tracks.size(); ++i)
        trackOfTid.emplace(tracks[i].tid, uint32_t(i));
    auto argOf = [&](const EventTrack &from, uint32_t e) -> int64_t {
        const int64_t a = from.argsId(e);
        return a < 0 ? -1 : int64_t(p.args.intern(t.args.text(uint32_t(a))));
    };
    std::vector<uint32_t> trackMap(t.worker.tracks.size());
    for (size_t k = 0; k < t.worker.tracks.size(); ++k) {
        const EventTrack &from = t.worker.tracks[k];
        const auto it = trackOfTid.find(from.tid);
        const uint32_t ti = it != trackOfTid.end() ? it->second : uint32_t(tracks.size());
        if (ti == tracks.size()) {
            tracks.emplace_back();
            tracks.back().tid = from.tid;
            tracks.back().pid = from.pid;
            tracks.back().async = from.async;
            tracks.back().category = from.category;
            opens.emplace_back();
            restored.push_back(0);
        }
        trackMap[k] = ti;
        EventTrack &to = tracks[ti];
        if (!from.threadName.empty())
            to.threadName = from.threadName;
        if (from.count() < restored[ti])
            return std::nullopt;
        for (size_t j = 0; j < opens[ti].size(); ++j) {
            const uint32_t e = opens[ti][j];
            if (from.localStart[j] != to.localStart[e])
                return std::nullopt;
            to.localEnd[e] = from.localEnd[j];
            to.flags[e] = from.flags[j];
            setArgs(to, e, argOf(from, uint32_t(j)));
        }
        for (size_t j = restored[ti]; j < from.count(); ++j) {
            const uint32_t e =
                p.addEvent(to, from.localStart[j], from.localEnd[j],
                           p.names.intern(t.names.name(from.nameId[j])), from.flags[j]);
            if (const int64_t a = argOf(from, uint32_t(j)); a >= 0)
                to.argRefs.emplace_back(e, uint32_t(a));
        }
    }
    // As a parse gives them: not nested yet (prepareFile sorts and nests).
    for (EventTrack &tr : tracks) {
        tr.parent.clear();
        tr.depth.clear();
        tr.maxDepth = 0;
    }
    for (size_t i = 0; i < t.messages.size(); ++i)
        p.messages.add(t.messages[i].localNs, t.messages.send(i), 0, t.messages.id(i),
                       trackMap[t.messages.track(i)]);
    if (!t.worker.counters.empty())
        p.worker.counters = std::move(t.worker.counters);
    p.worker.info = t.worker.info;
    p.worker.samples = std::move(t.worker.samples);
    p.worker.wallPairs = std::move(t.worker.wallPairs);
    p.worker.refId = t.worker.refId;
    p.problems = std::move(t.problems);
    p.usable = t.usable;
    p.rankKnown = t.rankKnown;
    p.bytes = t.bytes;
    p.records = t.records;

    // The index: the spans that were open at the old end get the ends the new bytes gave them,
    // the new bytes' checkpoints follow the old ones.
    std::vector<std::vector<bool>> used(tracks.size());
    for (LogIndex::Span &s : m_index.spans) {
        if (!(s.flags & EventOpen))
            continue;
        const auto it = trackOfTid.find(s.tid);
        if (it == trackOfTid.end())
            continue;
        const uint32_t ti = it->second;
        const EventTrack &tr = tracks[ti];
        used[ti].resize(opens[ti].size());
        for (size_t j = 0; j < opens[ti].size(); ++j) {
            const uint32_t e = opens[ti][j];
            if (used[ti][j] || tr.localStart[e] != s.localStart ||
                p.names.name(tr.nameId[e]) != s.name)
                continue;
            used[ti][j] = true;
            s.localEnd = tr.localEnd[e];
            s.flags = tr.flags[e];
            const int64_t a = tr.argsId(e);
            s.args = a >= 0 ? std::string(p.args.text(uint32_t(a))) : std::string();
            break;
        }
    }
    m_more = builder.finish(t, m_now, x.headerEnd);
    m_index.append(m_more);
    m_index.setWholeFile(p);
    m_index.stamp = m_now;
    m_resume = continuation(m_path, p, m_index);
    m_parsed = true;
    return p;
}

void LogExtension::finish(const ParsedFile &file)
{
    if (!m_parsed || m_unchanged ||
        !(LogFileStamp::of(m_path) == std::optional<LogFileStamp>(m_now)))
        return; // nothing new, or changed again while it was read: the next load takes it up
    if (!m_store.extend(file, m_before, m_now))
        EventStore::write(m_path, file, m_now);
    m_index.resume = m_resume;
    m_index.store(m_path);
}

} // namespace syncline::load
