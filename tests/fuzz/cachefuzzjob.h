// cachefuzzjob — what fuzz_cachefiles loads and how it judges a load: the small job (three
// syncline logs whose every kind of record reaches a cache), a load's result as one comparable
// value (Summary), and the invariants every load must meet (checkInvariants). A failed check
// aborts with the reason on stderr (libFuzzer keeps the input).
#pragma once

#include "timeline/load/jobloader.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cachefuzz {

using namespace syncline;

constexpr int kWorkers = 3;
constexpr int64_t kMs = 1'000'000;

[[noreturn]] inline void finding(const std::string &what)
{
    std::fprintf(stderr, "fuzz_cachefiles: %s\n", what.c_str());
    std::abort();
}

inline std::string num(int64_t v)
{
    return std::to_string(v);
}

// Worker w's log: its clock runs w seconds + 3w ms ahead and 20w ppm fast of true time.
inline std::string jobLog(int w)
{
    auto L = [w](int64_t t) { return t + w * 1'003'000'000LL + t * 20 * w / 1'000'000; };
    const int64_t t0 = 1'000'000'000;
    std::multimap<int64_t, std::string> out; // true time → line
    out.emplace(
        INT64_MIN,
        "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"minor\":1,\"rank\":" + num(w) +
            ",\"local_rank\":0,\"world_size\":3,\"group_rank\":0,\"role\":"
            "\"trainer\",\"restart\":0,\"run_id\":\"job\",\"host\":\"host-" +
            num(w) + "\",\"boot_id\":\"boot-" + num(w) + "\",\"pid\":" + num(100 + w) +
            ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":" + num(L(t0)) +
            ",\"wall_ns\":1700000000000000000,\"spread_ns\":40},\"config\":null,"
            "\"start_ns\":" +
            num(L(t0)) + "}\n");
    out.emplace(INT64_MIN + 1, "{\"t\":\"thread\",\"tid\":1,\"name\":\"main\"}\n");
    out.emplace(t0, "{\"t\":\"B\",\"ts\":" + num(L(t0)) +
                        ",\"tid\":1,\"name\":\"epoch\",\"args\":{\"epoch\":0}}\n");
    for (int64_t t = t0; t < t0 + 240 * kMs; t += 20 * kMs) {
        const int64_t t2 = t + 20'000;
        out.emplace(t + 50'000, "{\"t\":\"sync\",\"burst\":" + num(t / (20 * kMs)) +
                                    ",\"seq\":0,\"ref\":\"ts:1\",\"t1\":" + num(L(t)) +
                                    ",\"t2\":" + num(t2) + ",\"t3\":" + num(t2 + 5'000) +
                                    ",\"t4\":" + num(L(t + 50'000)) + "}\n");
        out.emplace(t + 1, "{\"t\":\"C\",\"ts\":" + num(L(t + 1)) +
                               ",\"tid\":1,\"name\":\"mem\",\"value\":" + num(t / kMs % 7) + "}\n");
    }
    for (int s = 0; s < 40; ++s) {
        const int64_t a = t0 + kMs + s * 5 * kMs;
        out.emplace(a, "{\"t\":\"B\",\"ts\":" + num(L(a)) +
                           ",\"tid\":1,\"name\":\"step\","
                           "\"args\":{\"step\":" +
                           num(s) + "}}\n");
        out.emplace(a + 10,
                    "{\"t\":\"B\",\"ts\":" + num(L(a + 10)) + ",\"tid\":1,\"name\":\"forward\"}\n");
        out.emplace(a + 2 * kMs, "{\"t\":\"E\",\"ts\":" + num(L(a + 2 * kMs)) +
                                     ",\"tid\":1,\"name\":\"forward\"}\n");
        out.emplace(a + 3 * kMs, "{\"t\":\"X\",\"ts\":" + num(L(a + 2 * kMs + 100)) + ",\"dur\":" +
                                     num(kMs / 2) + ",\"tid\":1,\"name\":\"kernel\"}\n");
        const std::string id = "m" + num(w) + "-" + num(s);
        const int peer = (w + 1) % kWorkers;
        out.emplace(a + 3 * kMs + 1, "{\"t\":\"msg\",\"ts\":" + num(L(a + 3 * kMs + 1)) +
                                         ",\"tid\":1,\"dir\":\"send\",\"peer\":" + num(peer) +
                                         ",\"id\":\"" + id + "\"}\n");
        out.emplace(a + 4 * kMs, "{\"t\":\"E\",\"ts\":" + num(L(a + 4 * kMs)) +
                                     ",\"tid\":1,\"name\":\"step\"}\n");
        const int from = (w + kWorkers - 1) % kWorkers;
        auto Lp = [w](int64_t t) { return t + w * 1'003'000'000LL + t * 20 * w / 1'000'000; };
        out.emplace(a + 3 * kMs + 60'000, "{\"t\":\"msg\",\"ts\":" + num(Lp(a + 3 * kMs + 60'000)) +
                                              ",\"tid\":1,\"dir\":\"recv\",\"peer\":" + num(from) +
                                              ",\"id\":\"m" + num(from) + "-" + num(s) + "\"}\n");
        if (s % 10 == 0)
            out.emplace(a + 2,
                        "{\"t\":\"I\",\"ts\":" + num(L(a + 2)) + ",\"tid\":2,\"name\":\"tick\"}\n");
    }
    if (w == 1)
        out.emplace(t0 + 150 * kMs, "{\"t\":\"B\",\"ts\":" + num(L(t0 + 150 * kMs)) +
                                        ",\"tid\":3,\"name\":\"hang\"}\n");
    out.emplace(t0 + 239 * kMs, "{\"t\":\"E\",\"ts\":" + num(L(t0 + 239 * kMs)) +
                                    ",\"tid\":1,\"name\":\"epoch\"}\n");
    std::string text;
    for (const auto &[t, line] : out)
        text += line;
    return text;
}

// What a load gives a user, in a form that compares whole.
using EventKey = std::tuple<int, int64_t, std::string, int, int32_t, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int64_t, int, std::string>;
struct Summary
{
    std::vector<EventKey> events;
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int64_t, int64_t>> links;
    std::vector<std::tuple<int, std::string, int64_t, double>> counters;
    std::vector<std::string> problems;
    bool operator==(const Summary &) const = default;
};

inline Summary summarise(const Timeline &tl)
{
    Summary s;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const auto &c = tl.map(w, ClockMode::Corrected);
        const auto &r = tl.map(w, ClockMode::Raw);
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t a = t.argsId(uint32_t(i));
                s.events.emplace_back(
                    tl.workers[w].info.rank, t.tid, std::string(tl.names.name(t.nameId[i])),
                    t.depth[i], t.parent[i], t.localStart[i], t.localEnd[i],
                    c.toGlobal(t.localStart[i]), c.toGlobal(t.localEnd[i]),
                    r.toGlobal(t.localStart[i]), r.toGlobal(t.localEnd[i]), t.flags[i],
                    a >= 0 ? std::string(tl.args.text(uint32_t(a))) : "");
            }
        for (const CounterTrack &ct : tl.workers[w].counters)
            for (size_t i = 0; i < ct.localTs.size(); ++i)
                s.counters.emplace_back(int(w), ct.name + "/" + ct.series, ct.localTs[i],
                                        ct.value[i]);
    }
    for (const MessageLink &l : tl.links)
        s.links.emplace_back(l.fromWorker, l.fromTrack, l.toWorker, uint32_t(l.toTrack),
                             l.fromLocal, l.toLocal);
    for (const LoadProblem &p : tl.problems)
        s.problems.push_back(p.toString());
    std::sort(s.events.begin(), s.events.end());
    std::sort(s.problems.begin(), s.problems.end());
    return s;
}

inline std::string firstDifference(const Summary &a, const Summary &b)
{
    if (a.events != b.events)
        return "events differ (" + std::to_string(a.events.size()) + " vs " +
               std::to_string(b.events.size()) + ")";
    if (a.links != b.links)
        return "links differ";
    if (a.counters != b.counters)
        return "counters differ";
    for (size_t i = 0; i < std::max(a.problems.size(), b.problems.size()); ++i) {
        const std::string x = i < a.problems.size() ? a.problems[i] : "(none)";
        const std::string y = i < b.problems.size() ? b.problems[i] : "(none)";
        if (x != y)
            return "problems differ: \"" + x + "\" vs \"" + y + "\"";
    }
    return {};
}

// EventTrack's and the timeline's invariants (eventtrack.h, timeline.h): what the views, the
// reports and the exports index by without checking.
inline void checkInvariants(const Timeline &tl, const char *load)
{
    constexpr int64_t kRange = int64_t(1) << 62;
    auto fail = [&](const std::string &what) { finding(std::string(load) + ": " + what); };
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        for (const EventTrack &t : tl.workers[w].tracks) {
            const size_t n = t.count();
            if (t.localEnd.size() != n || t.nameId.size() != n || t.parent.size() != n ||
                t.depth.size() != n || t.flags.size() != n)
                fail("a track's columns differ in length");
            for (size_t i = 0; i < n; ++i) {
                const std::string at = "worker " + std::to_string(w) + " tid " +
                                       std::to_string(t.tid) + " event " + std::to_string(i);
                if (t.localStart[i] < -kRange || t.localStart[i] > kRange ||
                    t.localEnd[i] < -kRange || t.localEnd[i] > kRange)
                    fail(at + ": time outside ±2^62");
                if (t.localEnd[i] < t.localStart[i])
                    fail(at + ": ends before it starts");
                if (i > 0 && t.localStart[i] < t.localStart[i - 1])
                    fail(at + ": not sorted by start");
                if (t.nameId[i] >= tl.names.size())
                    fail(at + ": name id past the name table");
                const int32_t p = t.parent[i];
                if (p < -1 || p >= int32_t(i))
                    fail(at + ": parent not before it");
                if (p < 0 ? t.depth[i] != 0 : t.depth[i] != t.depth[size_t(p)] + 1)
                    fail(at + ": depth is not its parent's + 1");
                if (p >= 0 && (t.localStart[i] < t.localStart[size_t(p)] ||
                               t.localEnd[i] > t.localEnd[size_t(p)]))
                    fail(at + ": not inside its parent");
                const int64_t a = t.argsId(uint32_t(i));
                if (a >= 0 && uint64_t(a) >= tl.args.size())
                    fail(at + ": args id past the args table");
            }
        }
        for (const CounterTrack &c : tl.workers[w].counters)
            if (c.value.size() != c.localTs.size())
                fail("a counter track is inconsistent");
    }
    for (const MessageLink &l : tl.links)
        if (l.fromWorker >= tl.workers.size() || l.toWorker >= tl.workers.size() ||
            l.fromTrack >= tl.workers[l.fromWorker].tracks.size() ||
            l.toTrack >= tl.workers[l.toWorker].tracks.size())
            fail("a link names a worker or track that does not exist");
}

} // namespace cachefuzz
