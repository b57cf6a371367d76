// testjob.h — small in-memory Timelines for the ui tests (no files: the view is tested on
// Timelines built directly, as the loader would build them).
//
// Workers are finished (closedCleanly), as logs that end with a close record load.
// makeSmallJob(): two workers.
//   worker 0 "rank 0 · host-a · restart 0", corrected = raw = identity
//     track 0 tid 100 "main":
//       0 step     [ 1000,  9000] d0
//       1 forward  [ 1000,  4000] d1 parent 0
//       2 matmul   [ 1500,  2500] d2 parent 1
//       3 backward [ 5000,  8000] d1 parent 0
//       4 step     [10000, 20000] d0
//       5 forward  [10000, 12000] d1 parent 4
//     track 1 tid 101 "loader":
//       0 load     [  500,  3000] d0
//   worker 1 "rank 1 · host-b · restart 0", corrected = local - 500, raw = identity
//     track 0 tid 200 "main":
//       0 step      [ 1500,  9500] d0              (global 1000..9000)
//       1 allreduce [ 9600, 20500] d0 open         (global 9100..20000)
#pragma once

#include "timeline/model/timeline.h"

#include <memory>
#include <string>

namespace testjob {

inline void addEvent(syncline::Timeline &t, syncline::EventTrack &track, const char *name,
                     int64_t start, int64_t end, int parent, uint16_t flags = 0)
{
    track.localStart.push_back(start);
    track.localEnd.push_back(end);
    track.nameId.push_back(t.names.intern(name));
    track.parent.push_back(parent);
    const uint16_t depth = parent < 0 ? 0 : uint16_t(track.depth[size_t(parent)] + 1);
    track.depth.push_back(depth);
    track.flags.push_back(flags);
    track.maxDepth = std::max<int>(track.maxDepth, depth);
}

inline syncline::Worker makeWorker(int rank, const std::string &host)
{
    syncline::Worker w;
    w.info.rank = rank;
    w.info.host = host;
    w.info.worldSize = 2;
    w.info.closedCleanly = true; // a finished run: its logs end with a close record
    return w;
}

inline std::shared_ptr<syncline::Timeline> makeSmallJob()
{
    auto t = std::make_shared<syncline::Timeline>();
    syncline::Worker w0 = makeWorker(0, "host-a");
    syncline::EventTrack main0;
    main0.tid = 100;
    main0.threadName = "main";
    addEvent(*t, main0, "step", 1000, 9000, -1);
    addEvent(*t, main0, "forward", 1000, 4000, 0);
    addEvent(*t, main0, "matmul", 1500, 2500, 1);
    addEvent(*t, main0, "backward", 5000, 8000, 0);
    addEvent(*t, main0, "step", 10000, 20000, -1);
    addEvent(*t, main0, "forward", 10000, 12000, 4);
    syncline::EventTrack loader;
    loader.tid = 101;
    loader.threadName = "loader";
    addEvent(*t, loader, "load", 500, 3000, -1);
    w0.tracks.push_back(std::move(main0));
    w0.tracks.push_back(std::move(loader));

    syncline::Worker w1 = makeWorker(1, "host-b");
    w1.corrected = syncline::sync::ClockMap::offset(-500);
    syncline::EventTrack main1;
    main1.tid = 200;
    main1.threadName = "main";
    addEvent(*t, main1, "step", 1500, 9500, -1);
    addEvent(*t, main1, "allreduce", 9600, 20500, -1, syncline::EventOpen);
    w1.tracks.push_back(std::move(main1));

    t->workers.push_back(std::move(w0));
    t->workers.push_back(std::move(w1));
    t->updateRange();
    return t;
}

// `workers` workers × one thread, each a repeating pattern of `perWorker` events:
// roots of `rootNs` containing two children (first and second half minus a gap).
inline std::shared_ptr<syncline::Timeline> makeDenseJob(int workers, int64_t perWorker,
                                                        int64_t rootNs)
{
    auto t = std::make_shared<syncline::Timeline>();
    const char *kids[] = {"forward", "backward"};
    for (int w = 0; w < workers; ++w) {
        syncline::Worker wk = makeWorker(w, "host-" + std::to_string(w / 8));
        syncline::EventTrack tr;
        tr.tid = 1000 + w;
        tr.threadName = "main";
        tr.reserve(size_t(perWorker));
        int64_t t0 = 1000 + w * 37;
        for (int64_t i = 0; i + 3 <= perWorker; i += 3) {
            const int root = int(tr.count());
            addEvent(*t, tr, "step", t0, t0 + rootNs - 2, -1);
            addEvent(*t, tr, kids[0], t0, t0 + rootNs / 2 - 2, root);
            addEvent(*t, tr, kids[1], t0 + rootNs / 2, t0 + rootNs - 4, root);
            t0 += rootNs;
        }
        wk.tracks.push_back(std::move(tr));
        t->workers.push_back(std::move(wk));
    }
    t->updateRange();
    return t;
}

} // namespace testjob
