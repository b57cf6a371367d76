#include "timeline/model/collectiveinstances.h"

#include <algorithm>
#include <utility>

namespace syncline {

namespace {

// The end of the JSON string starting at json[i] == '"' (the index past its closing quote).
size_t skipString(std::string_view json, size_t i)
{
    for (++i; i < json.size(); ++i) {
        if (json[i] == '\\')
            ++i;
        else if (json[i] == '"')
            return i + 1;
    }
    return json.size();
}

size_t skipSpace(std::string_view json, size_t i)
{
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' ||
                               json[i] == '\r'))
        ++i;
    return i;
}

} // namespace

bool argsSayFailed(std::string_view json)
{
    constexpr std::string_view kKey = "\"failed\"", kTrue = "true";
    int depth = 0;
    bool expectKey = false; // at depth 1, the next string is a key
    for (size_t i = 0; i < json.size();) {
        const char ch = json[i];
        if (ch == '"') {
            const size_t end = skipString(json, i);
            if (depth == 1 && expectKey && json.substr(i, end - i) == kKey) {
                size_t j = skipSpace(json, end);
                if (j < json.size() && json[j] == ':') {
                    j = skipSpace(json, j + 1);
                    if (json.substr(j, kTrue.size()) == kTrue)
                        return true;
                }
            }
            expectKey = false;
            i = end;
            continue;
        }
        if (ch == '{' || ch == '[')
            ++depth;
        else if (ch == '}' || ch == ']')
            --depth;
        if ((ch == '{' && depth == 1) || (ch == ',' && depth == 1))
            expectKey = true;
        ++i;
    }
    return false;
}

namespace {

template <class IsCollective>
std::vector<CollectiveEvent> collect(const Timeline &tl, size_t w, int64_t generation,
                                     const IsCollective &isCollective)
{
    std::vector<CollectiveEvent> mine;
    const Worker &worker = tl.workers[w];
    for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
        const EventTrack &t = worker.tracks[ti];
        for (size_t i = 0; i < t.count(); ++i) {
            if (!isCollective(t.nameId[i]) || (t.flags[i] & (EventOpen | EventInstant)))
                continue;
            const int64_t args = t.argsId(uint32_t(i));
            const bool failed = args >= 0 && argsSayFailed(tl.args.text(uint32_t(args)));
            mine.push_back({uint32_t(ti), uint32_t(i), t.nameId[i], t.localStart[i],
                            t.localEnd[i], 0, failed});
        }
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CollectiveEvent &a, const CollectiveEvent &b) {
                         return a.localBegin < b.localBegin;
                     });
    // k per name: a job has a handful of collective names, so a flat list beats a map.
    std::vector<std::pair<uint32_t, int64_t>> next;
    for (CollectiveEvent &c : mine) {
        auto it = std::find_if(next.begin(), next.end(),
                               [&](const auto &n) { return n.first == c.nameId; });
        if (it == next.end())
            it = next.insert(next.end(), {c.nameId, 0});
        c.sequence = (generation << CollectiveInstances::kGenerationShift) | it->second++;
    }
    return mine;
}

} // namespace

std::vector<CollectiveEvent>
CollectiveInstances::of(const Timeline &tl, size_t w, int64_t generation,
                        const std::function<bool(uint32_t)> &isCollective)
{
    return collect(tl, w, generation, isCollective);
}

std::vector<CollectiveEvent> CollectiveInstances::of(const Timeline &tl, size_t w,
                                                     int64_t generation,
                                                     const std::vector<uint8_t> &isCollective)
{
    return collect(tl, w, generation,
                   [&](uint32_t id) { return id < isCollective.size() && isCollective[id]; });
}

} // namespace syncline
