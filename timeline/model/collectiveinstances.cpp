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

// --- a top-level scan of one JSON object (groupAndSequence) ---

struct Scan
{
    std::string_view s;
    size_t i = 0;
    void space()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            ++i;
    }
    // A string at i: its raw text between the quotes (escapes kept); false when unterminated.
    bool string(std::string_view &out)
    {
        if (i >= s.size() || s[i] != '"')
            return false;
        const size_t from = ++i;
        while (i < s.size() && s[i] != '"')
            i += s[i] == '\\' ? 2 : 1;
        if (i >= s.size())
            return false;
        out = s.substr(from, i - from);
        ++i;
        return true;
    }
    // Any value at i, skipped (nested objects and arrays by depth, strings whole); its raw text
    // in *raw. False on malformed text.
    bool value(std::string_view &raw)
    {
        const size_t from = i;
        if (i >= s.size())
            return false;
        if (s[i] == '"') {
            std::string_view str;
            if (!string(str))
                return false;
            raw = str;
            return true;
        }
        if (s[i] == '{' || s[i] == '[') {
            int depth = 0;
            while (i < s.size()) {
                const char c = s[i];
                if (c == '"') {
                    std::string_view str;
                    if (!string(str))
                        return false;
                    continue;
                }
                ++i;
                if (c == '{' || c == '[')
                    ++depth;
                else if ((c == '}' || c == ']') && --depth == 0)
                    break;
            }
            if (depth != 0)
                return false;
            raw = s.substr(from, i - from);
            return true;
        }
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ' ' && s[i] != '\n' &&
               s[i] != '\r' && s[i] != '\t')
            ++i;
        raw = s.substr(from, i - from);
        return !raw.empty();
    }
};

// A non-negative integer below 2^40 written as JSON digits ("7", not "7.0", "-1" or "\"7\"").
bool sequenceNumber(std::string_view t, int64_t &out)
{
    if (t.empty() || t.size() > 13)
        return false;
    int64_t v = 0;
    for (const char c : t) {
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    if (v > CollectiveInstances::kIndexMask)
        return false;
    out = v;
    return true;
}

uint32_t groupKey(std::string_view group)
{
    uint32_t h = 2166136261u; // FNV-1a
    for (const char c : group)
        h = (h ^ uint8_t(c)) * 16777619u;
    return kCollectiveGroupKey | (h & ~kCollectiveGroupKey);
}

template <class IsCollective>
std::vector<CollectiveEvent> collect(const Timeline &tl, size_t w, int64_t generation,
                                     const IsCollective &isCollective)
{
    std::vector<CollectiveEvent> mine;
    const Worker &worker = tl.workers[w];
    for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
        const EventTrack &t = worker.tracks[ti];
        for (size_t i = 0; i < t.count(); ++i)
            if (isCollective(t.nameId[i]) && !(t.flags[i] & (EventOpen | EventInstant))) {
                CollectiveEvent c;
                c.track = uint32_t(ti);
                c.index = uint32_t(i);
                c.nameId = t.nameId[i];
                c.localBegin = t.localStart[i];
                c.localEnd = t.localEnd[i];
                c.key = c.nameId;
                c.sequence = -1; // numbered below
                std::string group;
                int64_t seq = 0;
                const int64_t args = (t.flags[i] & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
                if (args >= 0 && size_t(args) < tl.args.size() &&
                    CollectiveInstances::groupAndSequence(tl.args.text(uint32_t(args)), group,
                                                          seq)) {
                    c.key = groupKey(group);
                    c.sequence = (generation << CollectiveInstances::kGenerationShift) | seq;
                }
                c.failed = args >= 0 && size_t(args) < tl.args.size() &&
                           argsSayFailed(tl.args.text(uint32_t(args)));
                mine.push_back(c);
            }
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CollectiveEvent &a, const CollectiveEvent &b) {
                         return a.localBegin < b.localBegin;
                     });
    // k per name for the events without a group key: a job has a handful of collective names,
    // so a flat list beats a map.
    std::vector<std::pair<uint32_t, int64_t>> next;
    bool grouped = false;
    for (CollectiveEvent &c : mine) {
        if (c.byGroup()) {
            grouped = true;
            continue;
        }
        auto it = std::find_if(next.begin(), next.end(),
                               [&](const auto &n) { return n.first == c.nameId; });
        if (it == next.end())
            it = next.insert(next.end(), {c.nameId, 0});
        c.sequence = (generation << CollectiveInstances::kGenerationShift) | it->second++;
    }
    if (!grouped)
        return mine;
    // One event per group key: the first in begin order stands for the instance.
    std::vector<size_t> order(mine.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::pair(mine[a].key, mine[a].sequence) < std::pair(mine[b].key, mine[b].sequence);
    });
    std::vector<uint8_t> drop(mine.size(), 0);
    for (size_t j = 1; j < order.size(); ++j) {
        const CollectiveEvent &a = mine[order[j - 1]], &b = mine[order[j]];
        drop[order[j]] = b.byGroup() && a.key == b.key && a.sequence == b.sequence;
    }
    size_t out = 0;
    for (size_t i = 0; i < mine.size(); ++i)
        if (!drop[i])
            mine[out++] = mine[i];
    mine.resize(out);
    return mine;
}

} // namespace

bool CollectiveInstances::groupAndSequence(std::string_view args, std::string &group,
                                           int64_t &sequence)
{
    Scan p{args};
    p.space();
    if (p.i >= args.size() || args[p.i] != '{')
        return false;
    ++p.i;
    // Priority within each: the profiler's names first, then syncline.torch's.
    std::string_view groups[2], seqs[3];
    bool haveGroup[2] = {false, false}, haveSeq[3] = {false, false, false};
    for (;;) {
        p.space();
        if (p.i < args.size() && args[p.i] == '}')
            break;
        std::string_view key, raw;
        if (!p.string(key))
            return false;
        p.space();
        if (p.i >= args.size() || args[p.i] != ':')
            return false;
        ++p.i;
        p.space();
        const bool quoted = p.i < args.size() && args[p.i] == '"';
        if (!p.value(raw))
            return false;
        if (key == "Process Group Name") {
            groups[0] = raw;
            haveGroup[0] = true;
        } else if (key == "group") {
            groups[1] = raw;
            haveGroup[1] = true;
        } else if (key == "peer") {
            return false; // syncline.torch's point-to-point: its seq counts per pair of ranks
        } else if (!quoted && (key == "seq_num" || key == "Seq" || key == "seq")) {
            const int slot = key == "seq_num" ? 0 : key == "Seq" ? 1 : 2;
            seqs[slot] = raw;
            haveSeq[slot] = true;
        }
        p.space();
        if (p.i < args.size() && args[p.i] == ',') {
            ++p.i;
            continue;
        }
        if (p.i < args.size() && args[p.i] == '}')
            break;
        return false;
    }
    const int g = haveGroup[0] ? 0 : haveGroup[1] ? 1 : -1;
    const int q = haveSeq[0] ? 0 : haveSeq[1] ? 1 : haveSeq[2] ? 2 : -1;
    if (g < 0 || q < 0 || groups[g].empty() || !sequenceNumber(seqs[q], sequence))
        return false;
    group.assign(groups[g]);
    return true;
}

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
