#include "collectivespread.h"

#include "timeline/model/collectiveinstances.h"
#include "timeline/model/generation.h"

#include <algorithm>
#include <string_view>

namespace syncline::ui {

namespace {

bool hasSeqArg(const TimelineScene &scene, const EventRef &ref)
{
    const TrackModel &m = scene.model(ref.model);
    if (!(m.flags(ref.index) & EventHasArgs))
        return false;
    const int64_t id = m.track().argsId(uint32_t(ref.index));
    if (id < 0 || size_t(id) >= scene.timeline().args.size())
        return false;
    return scene.timeline().args.text(uint32_t(id)).find("\"seq\":") != std::string_view::npos;
}

} // namespace

std::vector<EventRef> CollectiveSpread::refs() const
{
    std::vector<EventRef> out;
    for (const Member &m : members)
        out.push_back(m.ref);
    return out;
}

bool CollectiveSpread::isInstance(const TimelineScene &scene, const EventRef &ref)
{
    if (!ref.valid())
        return false;
    const TrackModel &m = scene.model(ref.model);
    if (m.flags(ref.index) & (EventOpen | EventInstant))
        return false;
    const NameKind *k = scene.timeline().kindOf(m.nameId(ref.index));
    return (k && k->collective) || hasSeqArg(scene, ref);
}

std::optional<CollectiveSpread> CollectiveSpread::of(const TimelineScene &scene,
                                                     const EventRef &ref)
{
    if (!isInstance(scene, ref))
        return std::nullopt;
    const Timeline &tl = scene.timeline();
    const TrackModel &sel = scene.model(ref.model);
    const uint32_t name = sel.nameId(ref.index);
    const std::vector<int64_t> generation = Generation::number(tl);
    const auto thisName = [name](uint32_t id) { return id == name; };
    const size_t w0 = sel.worker();
    int64_t sequence = -1;
    uint32_t key = 0;
    for (const CollectiveEvent &c : CollectiveInstances::of(tl, w0, generation[w0], thisName))
        if (c.track == sel.trackIndex() && c.index == uint32_t(ref.index)) {
            sequence = c.sequence;
            key = c.key;
        }
    if (sequence < 0)
        return std::nullopt;
    CollectiveSpread out;
    out.nameId = name;
    out.instance = sequence & CollectiveInstances::kIndexMask;
    const ClockMode mode = scene.clockMode();
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        if (generation[w] != generation[w0])
            continue;
        const std::vector<CollectiveEvent> mine =
            CollectiveInstances::of(tl, w, generation[w], thisName);
        const auto it = std::find_if(mine.begin(), mine.end(), [&](const CollectiveEvent &c) {
            return c.key == key && c.sequence == sequence;
        });
        if (it == mine.end())
            continue; // this rank has no such instance (fewer recorded)
        const CollectiveEvent &c = *it;
        Member m;
        m.worker = int(w);
        m.rank = tl.workers[w].info.rank;
        m.ref = {scene.modelsOf(int(w)).first + int(c.track), int(c.index)};
        m.beginNs = tl.toGlobal(w, c.localBegin, mode);
        m.endNs = tl.toGlobal(w, c.localEnd, mode);
        out.members.push_back(m);
    }
    for (int i = 0; i < int(out.members.size()); ++i) {
        const Member &m = out.members[size_t(i)];
        if (out.firstBegin < 0 || m.beginNs < out.members[size_t(out.firstBegin)].beginNs)
            out.firstBegin = i;
        if (out.lastBegin < 0 || m.beginNs > out.members[size_t(out.lastBegin)].beginNs)
            out.lastBegin = i;
        if (out.firstEnd < 0 || m.endNs < out.members[size_t(out.firstEnd)].endNs)
            out.firstEnd = i;
        if (out.lastEnd < 0 || m.endNs > out.members[size_t(out.lastEnd)].endNs)
            out.lastEnd = i;
    }
    return out;
}

} // namespace syncline::ui
