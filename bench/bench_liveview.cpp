// bench_liveview — the viewer's GUI-thread cost of one live refresh ("merged into the
// models without rebuilding everything"), for a job of 1 M and of 10 M events receiving 1 k
// new events per refresh. The Timeline grows in place exactly as LiveJob::commit leaves it
// (events appended per track, LiveUpdate::changedTracks); measured per refresh:
//   apply   TimelineScene::applyLive (re-index only the new events, bounds, layout when needed)
//   frame   geometry + paint of the follow-mode view (1920×1080 QImage; bounded by the pixels)
// and, as the baseline in the same run, what the viewer did before (docs/live.md history): copy
// the Timeline (snapshot) and build a new TimelineScene on it.
// Goal: the refresh cost is flat in the job size (10 M / 1 M ≈ 1).
//
// usage: bench_liveview [--rounds N]
#include "tests/ui/testjob.h"

#include "ui/timelinegeometry.h"
#include "ui/timelinepainter.h"
#include "ui/viewstyle.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace syncline;
using namespace syncline::ui;

namespace {

using Ms = std::chrono::duration<double, std::milli>;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Appends `triples` × (step, forward, backward) after the last event of every worker's track,
// round robin, as LiveFile::merge would; returns the update LiveJob::commit would report.
LiveUpdate appendEvents(Timeline &t, int triples, int64_t rootNs)
{
    LiveUpdate u;
    std::vector<uint32_t> from(t.workers.size());
    for (size_t w = 0; w < t.workers.size(); ++w)
        from[w] = uint32_t(t.workers[w].tracks[0].count());
    for (int i = 0; i < triples; ++i) {
        Worker &wk = t.workers[size_t(i) % t.workers.size()];
        EventTrack &tr = wk.tracks[0];
        const int64_t t0 = tr.localStart.back() + rootNs; // the last event is a backward child
        const int root = int(tr.count());
        testjob::addEvent(t, tr, "step", t0, t0 + rootNs - 2, -1);
        testjob::addEvent(t, tr, "forward", t0, t0 + rootNs / 2 - 2, root);
        testjob::addEvent(t, tr, "backward", t0 + rootNs / 2, t0 + rootNs - 4, root);
        u.newEvents += 3;
    }
    for (size_t w = 0; w < t.workers.size(); ++w)
        if (t.workers[w].tracks[0].count() > from[w])
            u.changedTracks.push_back({uint32_t(w), 0, from[w]});
    int64_t end = t.range(ClockMode::Corrected).end;
    for (size_t w = 0; w < t.workers.size(); ++w)
        end = std::max(end, t.toGlobal(w, t.workers[w].tracks[0].localEnd.back(),
                                       ClockMode::Corrected));
    t.setLiveRange(ClockMode::Corrected, end);
    return u;
}

struct Result
{
    size_t events = 0;
    double applyMs = 0, frameMs = 0, rebuildMs = 0;
    uint64_t indexedPerRefresh = 0;
};

Result runCase(int workers, int64_t perWorker, int rounds)
{
    const int64_t rootNs = 1000;
    std::shared_ptr<Timeline> t = testjob::makeDenseJob(workers, perWorker, rootNs);
    TimelineScene scene(t);
    const ViewStyle style = ViewStyle::light();
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    FrameRects rects;
    rects.ruler = QRectF(220, 0, 1700, 26);
    rects.gutter = QRectF(0, 26, 220, 1054);
    rects.events = QRectF(220, 26, 1700, 1054);
    std::vector<double> apply, frame;
    const uint64_t indexed0 = scene.indexedEvents();
    for (int r = 0; r < rounds; ++r) {
        const LiveUpdate u = appendEvents(*t, 333, rootNs); // 999 new events
        const auto t0 = std::chrono::steady_clock::now();
        scene.applyLive(u);
        const auto t1 = std::chrono::steady_clock::now();
        GeometryRequest req; // follow mode: the last 200 µs
        req.rangeEnd = scene.endNs();
        req.rangeStart = req.rangeEnd - 200'000;
        req.width = rects.events.width();
        req.height = rects.events.height();
        const TimelineGeometry g = computeGeometry(scene, req);
        QPainter p(&image);
        p.fillRect(image.rect(), style.background);
        TimelinePainter::paintFrame(p, rects, scene, g, style, FrameOptions{});
        p.end();
        const auto t2 = std::chrono::steady_clock::now();
        apply.push_back(Ms(t1 - t0).count());
        frame.push_back(Ms(t2 - t1).count());
    }
    Result res;
    res.events = t->eventCount();
    res.applyMs = median(apply);
    res.frameMs = median(frame);
    res.indexedPerRefresh = (scene.indexedEvents() - indexed0) / uint64_t(rounds);
    std::vector<double> rebuild; // the old path: snapshot copy + a new scene
    for (int r = 0; r < 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        auto snapshot = std::make_shared<Timeline>(*t);
        TimelineScene fresh(snapshot);
        rebuild.push_back(Ms(std::chrono::steady_clock::now() - t0).count());
    }
    res.rebuildMs = median(rebuild);
    return res;
}

} // namespace

int main(int argc, char **argv)
{
    int rounds = 30;
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    const int workers = 12;
    std::printf("live refresh on the GUI thread: 1k new events per refresh, %d refreshes, "
                "12 workers\n",
                rounds);
    const Result a = runCase(workers, 1'000'002 / workers / 3 * 3 + 3, rounds);
    const Result b = runCase(workers, 10'000'002 / workers / 3 * 3 + 3, rounds);
    std::printf("\n%-10s %10s %12s %12s %14s %16s\n", "job", "indexed", "apply ms", "frame ms",
                "refresh ms", "old rebuild ms");
    for (const Result *r : {&a, &b})
        std::printf("%-10zu %10llu %12.3f %12.3f %14.3f %16.1f\n", r->events,
                    (unsigned long long)r->indexedPerRefresh, r->applyMs, r->frameMs,
                    r->applyMs + r->frameMs, r->rebuildMs);
    const double ratio = (b.applyMs + b.frameMs) / (a.applyMs + a.frameMs);
    std::printf("\nratio 10M/1M refresh: %.2f (goal ~1: flat)   apply only: %.2f\n", ratio,
                b.applyMs / a.applyMs);
    std::printf("old rebuild / refresh at 10M: %.0fx\n", b.rebuildMs / (b.applyMs + b.frameMs));
    return 0;
}
