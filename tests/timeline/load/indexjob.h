// The job tst_logindex and tst_logextension load (docs/scale.md "Windowed opening"): three
// workers with sync samples, messages between neighbours and nesting at every scale, written as
// real log files; what a user sees of its events (EventKey), and the loads the tests make.
#pragma once

#include "timeline/load/jobloader.h"

#include "../testlogs.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <vector>

namespace indexjob {

using namespace syncline;
namespace fs = std::filesystem;

constexpr int kWorkers = 3;
constexpr int64_t kT0 = 1'000'000'000;       // true time of the job's start
constexpr int64_t kDuration = 3'000'000'000; // 3 s

// Local clock of worker w at true time t: hosts seconds apart, drifting by 20 ppm per worker.
inline int64_t localOf(int w, int64_t t)
{
    return t + int64_t(w) * 5'000'000'000LL + 3'000'000 * w + (t - kT0) * 20 * w / 1'000'000;
}

struct Line
{
    int64_t at; // true time the recorder wrote it
    std::string text;
};

// A job with sync samples, messages between neighbours, and nesting at every scale: an epoch
// span over the whole run, 400 ms phases, 2 ms steps of forward/backward with an X kernel, a
// 700 ms X checkpoint on a second thread written when it ends, instants, and (worker 1) a span
// that never ends.
inline std::vector<std::string> jobTexts(int64_t duration = kDuration)
{
    std::vector<std::vector<Line>> lines(kWorkers);
    for (int w = 0; w < kWorkers; ++w) {
        auto L = [w](int64_t t) { return localOf(w, t); };
        auto &out = lines[size_t(w)];
        out.push_back({INT64_MIN, testlogs::header(w, 0, "host-" + std::to_string(w), L(kT0),
                                                   1700000000000000000LL + w * 1000,
                                                   "boot-" + std::to_string(w))});
        out.push_back({INT64_MIN + 1, "{\"t\":\"thread\",\"tid\":1,\"name\":\"main\"}\n"});
        out.push_back({kT0, testlogs::begin(L(kT0), 1, "epoch", "{\"epoch\":0}")});
        for (int64_t t = kT0; t < kT0 + duration; t += 50'000'000) { // sync every 50 ms
            const int64_t t2 = t + 20'000, t3 = t2 + 5'000;
            out.push_back(
                {t + 50'000, "{\"t\":\"sync\",\"burst\":" + std::to_string(t / 50'000'000) +
                                 ",\"seq\":0,\"ref\":\"ts:1\",\"t1\":" + std::to_string(L(t)) +
                                 ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
                                 ",\"t4\":" + std::to_string(L(t + 50'000)) + "}\n"});
        }
        int step = 0;
        for (int64_t p = kT0 + 1'000'000; p + 400'000'000 <= kT0 + duration; p += 400'000'000) {
            out.push_back({p, testlogs::begin(L(p), 1, "phase")});
            for (int64_t s = p + 100'000; s + 2'000'000 < p + 400'000'000; s += 2'000'000, ++step) {
                const std::string args = "{\"step\":" + std::to_string(step) + "}";
                out.push_back({s, testlogs::begin(L(s), 1, "step", args)});
                out.push_back({s + 10, testlogs::begin(L(s + 10), 1, "forward")});
                out.push_back({s + 700'000, testlogs::end(L(s + 700'000), 1, "forward")});
                out.push_back({s + 710'000, testlogs::begin(L(s + 710'000), 1, "backward")});
                out.push_back(
                    {s + 1'500'000, testlogs::complete(L(s + 800'000), 600'000, 1, "kernel")});
                out.push_back({s + 1'600'000, testlogs::end(L(s + 1'600'000), 1, "backward")});
                // A message to the next worker, received 60 µs after it was sent.
                const std::string id = "m" + std::to_string(w) + "-" + std::to_string(step);
                out.push_back(
                    {s + 1'650'000, "{\"t\":\"msg\",\"ts\":" + std::to_string(L(s + 1'650'000)) +
                                        ",\"tid\":1,\"dir\":\"send\",\"peer\":" +
                                        std::to_string((w + 1) % kWorkers) + ",\"id\":\"" + id +
                                        "\"}\n"});
                const int peer = (w + 1) % kWorkers;
                lines[size_t(peer)].push_back(
                    {s + 1'710'000,
                     "{\"t\":\"msg\",\"ts\":" + std::to_string(localOf(peer, s + 1'710'000)) +
                         ",\"tid\":1,\"dir\":\"recv\",\"peer\":" + std::to_string(w) +
                         ",\"id\":\"" + id + "\"}\n"});
                out.push_back({s + 1'800'000, testlogs::end(L(s + 1'800'000), 1, "step")});
            }
            out.push_back({p + 399'000'000, testlogs::end(L(p + 399'000'000), 1, "phase")});
        }
        for (int64_t c = kT0 + 200'000'000; c + 700'000'000 < kT0 + duration; c += 1'000'000'000)
            out.push_back(
                {c + 700'000'000, testlogs::complete(L(c), 700'000'000, 2, "checkpoint")});
        for (int64_t i = kT0; i < kT0 + duration; i += 100'000'000)
            out.push_back({i, "{\"t\":\"I\",\"ts\":" + std::to_string(L(i)) +
                                  ",\"tid\":2,\"name\":\"tick\"}\n"});
        if (w == 1)
            out.push_back(
                {kT0 + 1'500'000'000, testlogs::begin(L(kT0 + 1'500'000'000), 3, "hang")});
        out.push_back({kT0 + duration - 1, testlogs::end(L(kT0 + duration - 1), 1, "epoch")});
    }
    std::vector<std::string> texts;
    for (int w = 0; w < kWorkers; ++w) {
        auto &out = lines[size_t(w)];
        std::stable_sort(out.begin(), out.end(),
                         [](const Line &a, const Line &b) { return a.at < b.at; });
        std::string text;
        for (const Line &l : out)
            text += l.text;
        texts.push_back(std::move(text));
    }
    return texts;
}

inline std::string logOf(const std::string &dir, int w)
{
    return dir + "/timer_events." + std::to_string(w) + ".log";
}

inline void writeJob(const std::string &dir, int64_t duration = kDuration)
{
    const std::vector<std::string> texts = jobTexts(duration);
    for (int w = 0; w < kWorkers; ++w)
        testlogs::write(logOf(dir, w), texts[size_t(w)]);
}

// One event as the user sees it: worker, thread, name, depth, its parent's name and start, global
// and local times, flags and args.
using EventKey = std::tuple<int, int64_t, std::string, int, std::string, int64_t, int64_t, int64_t,
                            int64_t, int64_t, int, std::string>;

inline std::multiset<EventKey> events(const Timeline &tl, ClockMode mode, bool cut, int64_t a,
                                      int64_t b)
{
    std::multiset<EventKey> out;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const auto &m = tl.map(w, mode);
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t gs = m.toGlobal(t.localStart[i]), ge = m.toGlobal(t.localEnd[i]);
                if (cut && !(gs <= b && ge >= a))
                    continue;
                const int32_t p = t.parent[i];
                const int64_t args = t.argsId(uint32_t(i));
                out.insert(
                    {tl.workers[w].info.rank, t.tid, std::string(tl.names.name(t.nameId[i])),
                     t.depth[i], p >= 0 ? std::string(tl.names.name(t.nameId[size_t(p)])) : "",
                     p >= 0 ? t.localStart[size_t(p)] : -1, gs, ge, t.localStart[i], t.localEnd[i],
                     t.flags[i], args >= 0 ? std::string(tl.args.text(uint32_t(args))) : ""});
            }
    }
    return out;
}

inline LoadResult loadJob(const std::string &dir, LoadWindow window = {}, bool writeIndex = true)
{
    LoadOptions o;
    o.paths = {dir};
    o.window = window;
    o.writeIndex = writeIndex;
    o.indexIntervalBytes = 16 << 10; // many checkpoints in a small job
    return JobLoader::load(o);
}

inline LoadWindow window(double a, double b, ClockMode mode = ClockMode::Corrected)
{
    LoadWindow w;
    w.use = true;
    w.mode = mode;
    w.beginNs = int64_t(a * 1e9);
    w.endNs = int64_t(b * 1e9);
    return w;
}

inline int64_t mtimeNs(const std::string &p)
{
    struct stat st
    {
    };
    ::stat(p.c_str(), &st);
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

inline int64_t jobBytes(const std::string &dir)
{
    int64_t n = 0;
    for (int w = 0; w < kWorkers; ++w)
        n += int64_t(fs::file_size(dir + "/timer_events." + std::to_string(w) + ".log"));
    return n;
}

} // namespace indexjob
