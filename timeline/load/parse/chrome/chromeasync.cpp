// ChromeTraceState's async events (ph b/e/n): collected per (pid, cat, id, scope), matched in
// time order, and laid out in lanes (AsyncLanes) as async tracks of their own — the part of a
// Chrome trace that is not on a thread's track. See chrometracestate.h.
#include "timeline/load/parse/chrome/chrometracestate.h"

#include "timeline/load/parse/chrome/asynclanes.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;

// b/e/n: kept per (pid, cat, id, scope) and matched in time order by finishAsync().
void ChromeTraceState::addAsync(int64_t ts, const Event &ev)
{
    if (ev.idTok.empty()) {
        problems.add(Kind::AsyncWithoutId, 0,
                     "async event \"" + std::string(ev.name) + "\" (ph " + std::string(ev.ph) +
                         ") has no id (async events are matched by cat + id); skipped");
        return;
    }
    std::string key;
    key.append(ev.pidTok).append(1, '\x1f').append(ev.cat).append(1, '\x1f');
    key.append(ev.idTok).append(1, '\x1f').append(ev.scope);
    auto [pos, inserted] = m_asyncIndex.emplace(std::move(key), uint32_t(m_async.size()));
    if (inserted)
        m_async.push_back({std::string(ev.pidTok), std::string(ev.cat), {}});
    m_async[pos->second].points.push_back(
        {ts, m_seq++, ev.ph[0], m_out.names.intern(ev.name), std::string(ev.argsRaw)});
}

// Per key, in time order: `b` opens, `e` closes the innermost open span of its name (the
// innermost one when it has no name), `n` is an instant; what starts while a span of its key is
// open belongs to that span's tree. Then per (pid, cat) the trees' roots are laid out in lanes
// (AsyncLanes), each tree in its root's lane, and each lane becomes an async EventTrack (the
// builder nests it: a tree's spans nest by time, and trees of one lane are disjoint).
void ChromeTraceState::finishAsync()
{
    struct Span
    {
        int64_t start, end;
        uint32_t nameId;
        uint16_t flags;
        const std::string *args;
        size_t root; // the outermost span of its tree (its own index for a root)
    };
    std::map<std::pair<std::string, std::string>, std::vector<Span>> groups; // (pid, cat)
    int64_t unmatched = 0, open = 0;
    for (AsyncKey &k : m_async) {
        std::stable_sort(k.points.begin(), k.points.end(),
                         [](const AsyncPoint &a, const AsyncPoint &b) { return a.ts < b.ts; });
        std::vector<Span> &spans = groups[{k.pidToken, k.cat}];
        // The open spans (indices into spans), innermost last, and per name its open ones: an
        // `e` finds the innermost open span of its name at the top of that name's stack, not by
        // a scan of every open span. A span closed out of order stays in both stacks until it
        // reaches the top (EventOpen cleared: skipped there), so each `b` and `e` costs O(1)
        // amortised, whatever the order of the ends.
        std::vector<size_t> stack;
        std::unordered_map<uint32_t, std::vector<size_t>> openByName;
        auto dropClosed = [&spans](std::vector<size_t> &s) {
            while (!s.empty() && !(spans[s.back()].flags & EventOpen))
                s.pop_back();
        };
        for (const AsyncPoint &pt : k.points) {
            dropClosed(stack);
            const size_t root = stack.empty() ? spans.size() : spans[stack.back()].root;
            if (pt.ph == 'n') {
                spans.push_back({pt.ts, pt.ts, pt.nameId, EventInstant, &pt.args, root});
            } else if (pt.ph == 'b') {
                stack.push_back(spans.size());
                openByName[pt.nameId].push_back(spans.size());
                spans.push_back(
                    {pt.ts, m_out.worker.info.lastLocalNs, pt.nameId, EventOpen, &pt.args, root});
            } else {
                // The innermost open span of its name; with no name, or none of that name open,
                // the innermost open span.
                size_t closes = SIZE_MAX;
                if (pt.nameId != 0)
                    if (const auto it = openByName.find(pt.nameId); it != openByName.end()) {
                        dropClosed(it->second);
                        if (!it->second.empty())
                            closes = it->second.back();
                    }
                if (closes == SIZE_MAX && !stack.empty())
                    closes = stack.back();
                if (closes == SIZE_MAX) {
                    ++unmatched;
                    continue;
                }
                Span &sp = spans[closes];
                sp.end = std::max(pt.ts, sp.start);
                sp.flags = 0;
            }
        }
        for (const size_t i : stack)
            open += spans[i].flags & EventOpen ? 1 : 0;
    }
    if (unmatched > 0)
        problems.add(Kind::AsyncEndWithoutBegin, 0,
                     std::to_string(unmatched) +
                         " async end(s) (ph e) with no open begin of the same cat and id; dropped");
    if (open > 0)
        problems.add(Kind::OpenEvents, 0,
                     std::to_string(open) + " async begin(s) (ph b) without an end kept as open",
                     Severity::Info);
    int64_t noLane = 0; // spans of trees that found no lane under the track cap
    for (auto &[key, spans] : groups) {
        // Lanes for the trees' roots; a span's descendants (same cat + id) follow it.
        std::vector<AsyncSpan> roots;
        std::vector<uint32_t> laneOf(spans.size(), 0);
        for (size_t i = 0; i < spans.size(); ++i)
            if (spans[i].root == i)
                roots.push_back({spans[i].start, spans[i].end, uint32_t(i)});
        // Lanes are tracks: they get what the file's track cap leaves (ParsedFile::kMaxTracks).
        uint32_t lanes = 0;
        const auto room = uint32_t(ParsedFile::kMaxTracks -
                                   std::min(m_out.worker.tracks.size(), ParsedFile::kMaxTracks));
        const std::vector<uint32_t> lane = AsyncLanes::assign(roots, &lanes, room);
        for (size_t r = 0; r < roots.size(); ++r)
            laneOf[roots[r].point] = lane[r];
        const auto first = uint32_t(m_out.worker.tracks.size());
        const std::string process = processLabel(key.first);
        for (uint32_t l = 0; l < lanes; ++l) {
            EventTrack t;
            t.pid = pidOf(key.first);
            t.async = true;
            t.order = processOrder(key.first);
            t.category = key.second;
            t.threadName = process + " / async" + (key.second.empty() ? "" : " " + key.second) +
                           (lanes > 1 ? " #" + std::to_string(l + 1) : "");
            m_out.worker.tracks.push_back(std::move(t));
        }
        for (const Span &sp : spans) {
            if (laneOf[sp.root] == AsyncLanes::kNoLane) {
                ++noLane;
                continue;
            }
            EventTrack &t = m_out.worker.tracks[first + laneOf[sp.root]];
            const uint32_t e = m_out.addEvent(t, sp.start, sp.end, sp.nameId, sp.flags);
            m_out.addArgs(t, e, *sp.args);
        }
    }
    if (noLane > 0)
        problems.add(Kind::TooManyThreads, 0,
                     std::to_string(noLane) +
                         " async span(s) (ph b/n) dropped: the trace has " +
                         std::to_string(ParsedFile::kMaxTracks) +
                         " tracks (threads and async lanes) already, the most one file may have; "
                         "they overlap spans of every lane");
    // Synthetic tids in creation order (tracks sort by tid: lane 1 before lane 2).
    const auto firstAsync = uint32_t(m_tracks.size());
    const auto n = int64_t(m_out.worker.tracks.size() - firstAsync);
    for (int64_t k = 0; k < n; ++k)
        m_out.worker.tracks[size_t(firstAsync + k)].tid = m_synthetic - n + k;
    m_synthetic -= n;
    m_async.clear();
}

} // namespace syncline::load
