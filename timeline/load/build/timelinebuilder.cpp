#include "timeline/load/build/timelinebuilder.h"

#include "timeline/load/build/traceattachment.h"
#include "timeline/load/build/workeradmission.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace syncline::load {

using Severity = LoadProblem::Severity;

namespace {

// v'[i] = v[order[i]] (event arrays: one sequential pass into a copy).
template <typename T> void permute(std::vector<T> &v, const std::vector<uint32_t> &order)
{
    std::vector<T> out(v.size());
    for (size_t i = 0; i < order.size(); ++i)
        out[i] = v[order[i]];
    v.swap(out);
}

// The same, in place by following the permutation's cycles (one element moved at a time): for
// tracks, so that 1M tracks of 224 bytes are not held twice at the peak.
template <typename T> void permuteInPlace(std::vector<T> &v, const std::vector<uint32_t> &order)
{
    std::vector<bool> done(order.size(), false);
    for (size_t start = 0; start < order.size(); ++start) {
        if (done[start])
            continue;
        T first = std::move(v[start]);
        size_t i = start;
        for (;;) {
            done[i] = true;
            const size_t from = order[i];
            if (from == start) {
                v[i] = std::move(first);
                break;
            }
            v[i] = std::move(v[from]);
            i = from;
        }
    }
}

template <typename T> void shrink(std::vector<T> &v)
{
    v.shrink_to_fit();
}

// Moves one usable file's worker, args and flows into tl (WorkerAdmission: rank, order,
// duplicates, raw clock), its name ids remapped to tl.names. Returns the worker's index.
size_t addWorker(Timeline &tl, ParsedFile &f)
{
    const std::vector<uint32_t> remap = tl.names.merge(f.names);
    if (!f.argsInTimelineStore)
        TimelineBuilder::moveArgsTo(f, tl.args);
    for (EventTrack &t : f.worker.tracks)
        for (uint32_t &id : t.nameId)
            id = remap[id];
    const auto w =
        uint32_t(WorkerAdmission::admit(tl, std::move(f.worker), f.rankKnown, tl.problems));
    for (FlowPoint &fp : tl.flows)
        if (fp.worker >= w)
            ++fp.worker; // workers after the new one moved up
    for (FlowPoint &fp : f.flows) {
        fp.worker = w;
        fp.nameId = remap[fp.nameId];
        fp.categoryId = remap[fp.categoryId];
    }
    if (tl.flows.empty()) {
        tl.flows = std::move(f.flows); // the usual case: one file has flow points
    } else {
        const size_t need = tl.flows.size() + f.flows.size();
        if (need > tl.flows.capacity())
            tl.flows.reserve(std::max(need, tl.flows.capacity() * 2));
        tl.flows.insert(tl.flows.end(), f.flows.begin(), f.flows.end());
    }
    f.flows = {};
    return w;
}

} // namespace

void TimelineBuilder::sortTrack(EventTrack &t)
{
    const size_t n = t.count();
    auto before = [&t](size_t a, size_t b) {
        return t.localStart[a] < t.localStart[b] ||
               (t.localStart[a] == t.localStart[b] && t.localEnd[a] > t.localEnd[b]);
    };
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i)
        sorted = !before(i, i - 1);
    if (sorted)
        return;
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), before);
    permute(t.localStart, order);
    permute(t.localEnd, order);
    permute(t.nameId, order);
    permute(t.flags, order);
    if (!t.argRefs.empty()) {
        std::vector<uint32_t> where(n);
        for (uint32_t i = 0; i < n; ++i)
            where[order[i]] = i;
        for (auto &r : t.argRefs)
            r.first = where[r.first];
    }
}

int64_t TimelineBuilder::nest(EventTrack &t)
{
    return nestFrom(t, 0);
}

int64_t TimelineBuilder::nestFrom(EventTrack &t, size_t from)
{
    const size_t n = t.count();
    from = std::min(from, std::min(t.parent.size(), t.depth.size()));
    t.parent.resize(n, -1);
    t.depth.resize(n, 0);
    std::vector<int32_t> stack;
    for (int32_t a = from > 0 ? int32_t(from - 1) : -1; a >= 0; a = t.parent[size_t(a)])
        stack.push_back(a);
    std::reverse(stack.begin(), stack.end());
    int64_t partial = 0;
    int maxDepth = from > 0 ? t.maxDepth : 0;
    for (size_t i = from; i < n; ++i) {
        const int64_t s = t.localStart[i], e = t.localEnd[i];
        while (!stack.empty()) {
            const int32_t top = stack.back();
            if (s < t.localEnd[top] && e <= t.localEnd[top])
                break;
            if (s < t.localEnd[top])
                ++partial; // starts inside the top but ends after it
            stack.pop_back();
        }
        t.parent[i] = stack.empty() ? -1 : stack.back();
        const int d = std::min<int>(int(stack.size()), 0xFFFF);
        t.depth[i] = uint16_t(d);
        maxDepth = std::max(maxDepth, d);
        stack.push_back(int32_t(i));
    }
    t.maxDepth = maxDepth;
    return partial;
}

int64_t TimelineBuilder::sortAndNest(EventTrack &t)
{
    sortTrack(t);
    if (!std::is_sorted(t.argRefs.begin(), t.argRefs.end())) // mostly in order already
        std::sort(t.argRefs.begin(), t.argRefs.end());
    return nest(t);
}

void TimelineBuilder::prepareFile(ParsedFile &file, EventKindLookup &kinds)
{
    auto &tracks = file.worker.tracks;
    // Tracks in display order (EventTrack::displayBefore); flows refer to tracks by index, so
    // remap them.
    std::vector<uint32_t> order(tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return EventTrack::displayBefore(tracks[a], tracks[b]);
    });
    std::vector<uint32_t> where(tracks.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        where[order[i]] = i;
    permuteInPlace(tracks, order);
    for (FlowPoint &f : file.flows)
        f.track = where[f.track];
    file.messages.remapTracks(where);

    for (EventTrack &t : tracks) {
        const int64_t partial = sortAndNest(t);
        if (partial > 0)
            file.problems.push_back({LoadProblem::Kind::PartialOverlap, Severity::Warning, file.path, 0,
                                     "misnesting: " + std::to_string(partial) +
                                         " event(s) on tid " + std::to_string(t.tid) +
                                         " overlap an enclosing event partially; shown beside it"});
        for (size_t i = 0; i < t.count(); ++i) {
            const int64_t max = kinds.expectedMaxNs(file.names, t.nameId[i]);
            if (max >= 0 && t.localEnd[i] - t.localStart[i] > max)
                t.flags[i] |= EventOverdue;
        }
        shrink(t.localStart);
        shrink(t.localEnd);
        shrink(t.nameId);
        shrink(t.flags);
        shrink(t.parent);
        shrink(t.depth);
        shrink(t.argRefs);
    }
    file.messages.shrink();
}

void TimelineBuilder::moveArgsTo(ParsedFile &f, ArgStore &store)
{
    if (f.argsInTimelineStore)
        return;
    if (store.empty()) {
        // The first file's store becomes the timeline's as it is: the same ids (dense, in
        // first-seen order), no text interned a second time.
        store = std::move(f.args);
        f.args = ArgStore();
        f.argsInTimelineStore = true;
        return;
    }
    const std::vector<uint32_t> argRemap = store.merge(f.args);
    for (EventTrack &t : f.worker.tracks)
        t.remapArgIds(argRemap);
    f.args = ArgStore(); // the file's own copy is no longer needed
    f.argsInTimelineStore = true;
}

BuiltTimeline TimelineBuilder::merge(std::vector<ParsedFile> files, ArgStore args)
{
    BuiltTimeline out;
    out.timeline = std::make_shared<Timeline>();
    Timeline &tl = *out.timeline;
    tl.args = std::move(args);
    // Profiler traces join the syncline worker of their rank (not a second worker of it).
    TraceAttachment::attachAll(files, tl.args);
    // Files with a rank first, in (rank, restart, file) order (each then joins at the end);
    // those without one after them, in input order, so they get the ranks left free.
    std::stable_sort(files.begin(), files.end(), [](const ParsedFile &a, const ParsedFile &b) {
        if (a.rankKnown != b.rankKnown)
            return a.rankKnown;
        if (!a.rankKnown)
            return false;
        const auto &x = a.worker.info, &y = b.worker.info;
        return std::tie(x.rank, x.restart, a.path) < std::tie(y.rank, y.restart, b.path);
    });
    for (ParsedFile &f : files) {
        for (LoadProblem &p : f.problems)
            tl.problems.push_back(std::move(p));
        if (!f.usable)
            continue;
        const size_t w = addWorker(tl, f);
        out.messages.insert(out.messages.begin() + ptrdiff_t(w), std::move(f.messages));
    }
    std::sort(tl.flows.begin(), tl.flows.end(), [](const FlowPoint &a, const FlowPoint &b) {
        return std::tie(a.id, a.localNs) < std::tie(b.id, b.localNs);
    });
    return out;
}

} // namespace syncline::load
