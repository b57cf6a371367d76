#include "timeline/report/compareanchor.h"

#include <algorithm>
#include <limits>
#include <map>

namespace syncline {

namespace {

std::string ordinal(int k)
{
    const int tens = k % 100, ones = k % 10;
    const char *suffix = (tens >= 11 && tens <= 13) ? "th"
                         : ones == 1                ? "st"
                         : ones == 2                ? "nd"
                         : ones == 3                ? "rd"
                                                    : "th";
    return std::to_string(k) + suffix;
}

} // namespace

bool CompareAnchor::parse(const std::string &text, CompareAnchor *anchor, std::string *error)
{
    CompareAnchor a;
    if (text == "start") {
        *anchor = a;
        return true;
    }
    a.name = text;
    const size_t colon = text.rfind(':');
    if (colon != std::string::npos && colon + 1 < text.size() &&
        std::all_of(text.begin() + ptrdiff_t(colon) + 1, text.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
        const std::string digits = text.substr(colon + 1);
        const long long k = digits.size() > 9 ? -1 : std::stoll(digits);
        a.name = text.substr(0, colon);
        if (k < 1) {
            if (error)
                *error = "expected start, NAME or NAME:K with K >= 1, got '" + text + "'";
            return false;
        }
        a.k = int(k);
    }
    if (a.name.empty()) {
        if (error)
            *error = "expected start, NAME or NAME:K with K >= 1, got '" + text + "'";
        return false;
    }
    *anchor = a;
    return true;
}

std::string CompareAnchor::text() const
{
    return byStart() ? std::string("start") : name + ":" + std::to_string(k);
}

std::optional<int64_t> CompareAnchor::find(const Timeline &run, ClockMode mode,
                                           std::string *why) const
{
    return pick(starts(run, mode), why);
}

CompareAnchor::Starts CompareAnchor::starts(const Timeline &run, ClockMode mode) const
{
    Starts s;
    if (byStart()) {
        s.earliest = run.earliestStart(mode);
        return s;
    }
    const uint32_t id = run.names.find(name);
    s.named = id != UINT32_MAX;
    // Per rank, the K smallest local starts of `id` over its workers' tracks, mapped to global
    // (the map is monotone per worker; a rank's incarnations are merged by global time).
    for (const Worker &w : run.workers) {
        const sync::ClockMap &map = w.map(mode);
        auto &starts = s.perRank[w.info.rank];
        if (!s.named)
            continue;
        for (const EventTrack &t : w.tracks) {
            int found = 0;
            for (size_t i = 0; i < t.count() && found < k; ++i)
                if (t.nameId[i] == id) {
                    starts.push_back(map.toGlobal(t.localStart[i]));
                    ++found;
                }
        }
    }
    for (auto &[rank, starts] : s.perRank) { // the K smallest are all pick() reads
        std::sort(starts.begin(), starts.end());
        if (starts.size() > size_t(k))
            starts.resize(size_t(k));
    }
    return s;
}

void CompareAnchor::Starts::merge(const Starts &other, int k)
{
    earliest = std::min(earliest, other.earliest);
    named = named || other.named;
    for (const auto &[rank, theirs] : other.perRank) {
        std::vector<int64_t> &mine = perRank[rank];
        const size_t mid = mine.size();
        mine.insert(mine.end(), theirs.begin(), theirs.end());
        std::inplace_merge(mine.begin(), mine.begin() + ptrdiff_t(mid), mine.end());
        if (mine.size() > size_t(k))
            mine.resize(size_t(k));
    }
}

std::optional<int64_t> CompareAnchor::pick(const Starts &s, std::string *why) const
{
    if (byStart()) {
        if (s.earliest == std::numeric_limits<int64_t>::max()) {
            if (why)
                *why = "no events";
            return std::nullopt;
        }
        return s.earliest;
    }
    if (!s.named) {
        if (why)
            *why = "no event named '" + name + "'";
        return std::nullopt;
    }
    std::optional<int64_t> best;
    size_t most = 0;
    for (const auto &[rank, starts] : s.perRank) {
        most = std::max(most, starts.size());
        if (starts.size() < size_t(k))
            continue;
        const int64_t t = starts[size_t(k - 1)];
        if (!best || t < *best)
            best = t;
    }
    if (!best && why)
        *why = "no rank has a " + ordinal(k) + " '" + name + "' (at most " + std::to_string(most) +
               " per rank)";
    return best;
}

} // namespace syncline
