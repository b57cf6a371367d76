// bench_view — frame cost of the timeline view: geometry (LOD) + paint into a 1920×1080 QImage,
// with 10 k events in the visible range (baseline, measured in the same run) versus 10 M.
// Goal: the 10 M frame ≤ 1.5× the 10 k frame and ≤ 16 ms.
// Links: the same 10 M job with 1 M messages (send → receive arrows between ranks:
// ring neighbours and across hosts, 2–30 µs latency, spread over the whole run) against the job
// without them, whole job and zoomed: goal ≤ 1.3× the frame without messages.
// Counters: the 10 k job with a 1 M-sample counter (a random walk, like a memory or
// loss curve, on worker 0 over the whole range) versus the same job without it: ≤ 1.3×.
//
// usage: bench_view [--frames N] [--png DIR]   (--png writes the last frame of each case)
//        bench_view --job DIR [--frames N]      a real job (make bench-scale): load time, first
//        frame (load + scene + one frame), and frame time of the whole job and of a zoomed view
#include "tests/ui/testjob.h"

#include "timeline/load/jobloader.h"
#include "ui/linkpainter.h"
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
#include <string>
#include <vector>

using namespace syncline;
using namespace syncline::ui;

namespace {

struct CaseResult
{
    std::string name;
    int64_t eventsInRange = 0;
    double medianMs = 0;
    double geometryMs = 0;
    size_t primitives = 0;
};

// The 10 M job with `count` messages: rank r sends to r + 1 and r + 4 (mod workers) in turn, at
// times spread evenly over the run, received 2–30 µs later (as the loader stores them: sorted
// by track pair, then send time).
std::shared_ptr<Timeline> withMessages(const Timeline &job, int64_t count)
{
    auto t = std::make_shared<Timeline>(job);
    const int64_t span = job.range(ClockMode::Corrected).duration();
    const auto workers = uint32_t(job.workers.size());
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    std::vector<MessageLink> links;
    links.reserve(size_t(count));
    for (int64_t i = 0; i < count; ++i) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        MessageLink l;
        l.fromWorker = uint32_t(i % workers);
        l.toWorker = (l.fromWorker + ((i / workers) % 2 ? 4 : 1)) % workers;
        l.fromLocal = job.range(ClockMode::Corrected).begin + span * i / count;
        l.toLocal = l.fromLocal + 2000 + int64_t(rng % 28000);
        links.push_back(l);
    }
    t->links = LinkTable(std::move(links)); // sorted and grouped, 16 bytes a link
    return t;
}

int64_t eventsInRange(const TimelineScene &scene, int64_t start, int64_t end)
{
    int64_t n = 0;
    for (const TrackModel &m : scene.models()) {
        for (int d = 0; d < m.depthCount(); ++d) {
            const size_t lo = m.rowLowerBound(d, m.map(ClockMode::Corrected).toLocal(start));
            const size_t hi = m.rowUpperBound(d, m.map(ClockMode::Corrected).toLocal(end));
            n += int64_t(hi > lo ? hi - lo : 0);
        }
    }
    return n;
}

struct FrameTimes
{
    double totalMs = 0, geometryMs = 0, linksPaintMs = 0;
    size_t primitives = 0;
};

FrameRects benchRects()
{
    FrameRects rects;
    rects.ruler = QRectF(220, 0, 1700, 26);
    rects.gutter = QRectF(0, 26, 220, 1054);
    rects.events = QRectF(220, 26, 1700, 1054);
    return rects;
}

// One uncached frame (the worst case): geometry, then the whole paint into `image`.
FrameTimes oneFrame(const TimelineScene &scene, int64_t start, int64_t end, QImage &image)
{
    const ViewStyle style = ViewStyle::light();
    const FrameRects rects = benchRects();
    GeometryRequest req;
    req.rangeStart = start;
    req.rangeEnd = end;
    req.width = rects.events.width();
    req.height = rects.events.height();
    const auto t0 = std::chrono::steady_clock::now();
    const TimelineGeometry g = computeGeometry(scene, req);
    const auto t1 = std::chrono::steady_clock::now();
    QPainter p(&image);
    p.fillRect(image.rect(), style.background);
    TimelinePainter::paintFrame(p, rects, scene, g, style, FrameOptions{});
    const auto t2 = std::chrono::steady_clock::now();
    p.setClipRect(rects.events);
    p.translate(rects.events.topLeft());
    LinkPainter::paint(p, g.links, style); // again, alone: what the arrows cost to paint
    p.end();
    const auto t3 = std::chrono::steady_clock::now();
    using ms = std::chrono::duration<double, std::milli>;
    return {ms(t2 - t0).count(), ms(t1 - t0).count(), ms(t3 - t2).count(), g.primitiveCount()};
}

// One uncached frame as the view draws it with pinned workers: the pinned band (content
// [0, P), P at most 60 % of the height) fixed at the top, the other rows scrolled under it —
// two geometries, two paints (TimelineView::paintEvent).
FrameTimes onePinnedFrame(const TimelineScene &scene, int64_t start, int64_t end, QImage &image)
{
    const ViewStyle style = ViewStyle::light();
    FrameRects rects = benchRects();
    const QRectF area = rects.events;
    const double pinned =
        std::min(scene.layout().pinnedHeight(), std::floor(area.height() * 0.6));
    GeometryRequest scroll{start, end, area.width(), pinned, area.height() - pinned};
    GeometryRequest band{start, end, area.width(), 0, std::max(1.0, pinned)};
    const auto t0 = std::chrono::steady_clock::now();
    const TimelineGeometry gs = computeGeometry(scene, scroll);
    const TimelineGeometry gp = computeGeometry(scene, band);
    const auto t1 = std::chrono::steady_clock::now();
    QPainter p(&image);
    p.fillRect(image.rect(), style.background);
    rects.events = area.adjusted(0, pinned, 0, 0);
    rects.gutter = QRectF(0, area.top() + pinned, area.left(), area.height() - pinned);
    TimelinePainter::paintFrame(p, rects, scene, gs, style, FrameOptions{});
    rects.events = QRectF(area.left(), area.top(), area.width(), pinned);
    rects.gutter = QRectF(0, area.top(), area.left(), pinned);
    TimelinePainter::paintFrame(p, rects, scene, gp, style, FrameOptions{});
    p.end();
    const auto t2 = std::chrono::steady_clock::now();
    using ms = std::chrono::duration<double, std::milli>;
    return {ms(t2 - t0).count(), ms(t1 - t0).count(), 0.0,
            gs.primitiveCount() + gp.primitiveCount()};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

CaseResult runCase(const std::string &name, const TimelineScene &scene, int64_t start, int64_t end,
                   int frames, const char *pngDir)
{
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    std::vector<double> total, geo;
    size_t primitives = 0;
    for (int f = 0; f < frames; ++f) {
        const FrameTimes t = oneFrame(scene, start, end, image);
        total.push_back(t.totalMs);
        geo.push_back(t.geometryMs);
        primitives = t.primitives;
    }
    if (pngDir)
        image.save(QString::fromUtf8(pngDir) +
                   QStringLiteral("/bench_view_%1.png").arg(QString::fromStdString(name)));
    return {name, eventsInRange(scene, start, end), median(total), median(geo), primitives};
}

// The same range of the job without and with messages, frames alternating (the machine's load
// changes alike for both): median frame of each, their ratio, and the arrows' own paint time.
struct PairResult
{
    double baseMs = 0, msgMs = 0, linksPaintMs = 0;
    size_t arrows = 0;
};

PairResult runPair(const TimelineScene &base, const TimelineScene &msg, int64_t start, int64_t end,
                   int frames)
{
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    std::vector<double> b, m, lp;
    PairResult r;
    for (int f = 0; f < frames; ++f) {
        b.push_back(oneFrame(base, start, end, image).totalMs);
        const FrameTimes t = oneFrame(msg, start, end, image);
        m.push_back(t.totalMs);
        lp.push_back(t.linksPaintMs);
    }
    r.baseMs = median(b);
    r.msgMs = median(m);
    r.linksPaintMs = median(lp);
    GeometryRequest req{start, end, benchRects().events.width(), 0, benchRects().events.height()};
    r.arrows = computeGeometry(msg, req).links.arrows.size();
    return r;
}

// A real job directory: load it, then time the first frame and steady frames of the whole job
// and of a view zoomed to 1/1000 of it (at least 10 ms) in its middle.
int runJob(const char *dir, int frames)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    LoadOptions o;
    o.paths = {dir};
    LoadResult r = JobLoader::load(o);
    if (!r.timeline) {
        std::fprintf(stderr, "bench_view: %s\n", r.fatalError.c_str());
        return 1;
    }
    const double loadS = std::chrono::duration<double>(Clock::now() - t0).count();
    TimelineScene scene(r.timeline);
    const CaseResult first = runCase("first", scene, scene.beginNs(), scene.endNs(), 1, nullptr);
    const double firstS = std::chrono::duration<double>(Clock::now() - t0).count();
    const CaseResult whole =
        runCase("whole", scene, scene.beginNs(), scene.endNs(), frames, nullptr);
    const int64_t span = std::max<int64_t>((scene.endNs() - scene.beginNs()) / 1000, 10'000'000);
    const int64_t mid = (scene.beginNs() + scene.endNs()) / 2;
    const CaseResult zoomed = runCase("zoomed", scene, mid, mid + span, frames, nullptr);
    std::printf("job %s: %zu events, load %.2f s, first frame at %.2f s (scene + frame %.0f ms)\n",
                dir, r.timeline->eventCount(), loadS, firstS, (firstS - loadS) * 1000.0);
    std::printf("frame whole job: %.2f ms (geometry %.2f ms, %zu primitives, %lld events in "
                "range)\n",
                whole.medianMs, whole.geometryMs, whole.primitives, (long long)whole.eventsInRange);
    std::printf("frame zoomed (%.1f ms of %.1f s): %.2f ms (geometry %.2f ms, %lld events in "
                "range)\n",
                double(span) / 1e6, double(scene.endNs() - scene.beginNs()) / 1e9, zoomed.medianMs,
                zoomed.geometryMs, (long long)zoomed.eventsInRange);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    int frames = 15;
    const char *pngDir = nullptr;
    const char *jobDir = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--png") && i + 1 < argc)
            pngDir = argv[++i];
        else if (!std::strcmp(argv[i], "--job") && i + 1 < argc)
            jobDir = argv[++i];
    }
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (jobDir)
        return runJob(jobDir, frames);
    const int workers = 12; // 12 groups × 3 depth rows fill 1080 px with the default metrics
    std::printf("building jobs (12 workers × 3 depths, 1 µs roots)...\n");
    auto small = testjob::makeDenseJob(workers, 10002 / workers / 3 * 3 + 3, 1000);
    auto big = testjob::makeDenseJob(workers, 10000002 / workers / 3 * 3 + 3, 1000);
    TimelineScene smallScene(small);
    TimelineScene bigScene(big);
    std::vector<CaseResult> results;
    results.push_back(
        runCase("10k", smallScene, smallScene.beginNs(), smallScene.endNs(), frames, pngDir));
    results.push_back(
        runCase("10M", bigScene, bigScene.beginNs(), bigScene.endNs(), frames, pngDir));
    // The same 10 M job zoomed so that ~10 k events are in range (pure zoom: same data).
    const int64_t mid = (bigScene.beginNs() + bigScene.endNs()) / 2;
    const int64_t span = int64_t(10000 / (3.0 * workers)) * 1000;
    results.push_back(runCase("10M-zoomed", bigScene, mid, mid + span, frames, pngDir));
    std::printf("\n%-12s %12s %12s %12s %12s\n", "case", "events", "frame ms", "geometry ms",
                "primitives");
    for (const CaseResult &r : results)
        std::printf("%-12s %12lld %12.2f %12.2f %12zu\n", r.name.c_str(),
                    (long long)r.eventsInRange, r.medianMs, r.geometryMs, r.primitives);
    const double ratio = results[1].medianMs / results[0].medianMs;
    std::printf("\nratio 10M/10k frame: %.2f  (goal <= 1.5)   10M frame %.2f ms (goal <= 16 ms)\n",
                ratio, results[1].medianMs);
    // Pinned tracks: a 10 M job of 64 workers, without pins, with 50 pinned workers and with 50
    // threads pinned on their own (the band takes 60 % of the height, the rest scrolls), frames
    // alternating so the machine's load is shared.
    {
        std::printf("\nbuilding the 10M job of 64 workers...\n");
        auto wide = testjob::makeDenseJob(64, 10000002 / 64 / 3 * 3 + 3, 1000);
        TimelineScene plain(wide);
        TimelineScene pinnedScene(wide);
        TimelineScene threadScene(wide);
        for (int w = 0; w < 50; ++w) {
            pinnedScene.setPinned(w, true);
            threadScene.setTrackPinned(threadScene.modelsOf(w).first, true);
        }
        QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
        std::vector<double> a, b, c;
        for (int f = 0; f < frames; ++f) {
            a.push_back(oneFrame(plain, plain.beginNs(), plain.endNs(), image).totalMs);
            c.push_back(
                onePinnedFrame(threadScene, threadScene.beginNs(), threadScene.endNs(), image)
                    .totalMs);
            b.push_back(
                onePinnedFrame(pinnedScene, pinnedScene.beginNs(), pinnedScene.endNs(), image)
                    .totalMs);
        }
        if (pngDir)
            image.save(QString::fromUtf8(pngDir) + QStringLiteral("/bench_view_10M-50pinned.png"));
        std::printf("10M, 64 workers: frame %.2f ms; 50 pinned: %.2f ms (%.2fx; goal <= 16 ms)\n",
                    median(a), median(b), median(b) / median(a));
        std::printf("10M, 64 workers: 50 threads pinned on their own: %.2f ms (%.2fx)\n",
                    median(c), median(c) / median(a));
    }
    // Links: the same job with 1 M messages, against itself without them, whole and zoomed.
    std::printf("\nbuilding the 10M job with 1M messages...\n");
    auto msgJob = withMessages(*big, 1'000'000);
    TimelineScene msgScene(msgJob);
    const int64_t narrow = 200'000; // each pair's messages a few px apart: thinned less
    struct View
    {
        const char *name;
        int64_t start, end;
    } views[] = {{"whole job", msgScene.beginNs(), msgScene.endNs()},
                 {"zoomed", mid, mid + span},
                 {"narrow (200 us)", mid, mid + narrow}};
    std::printf("\n%-18s %14s %14s %8s %16s %8s\n", "view", "no msgs ms", "1M msgs ms", "arrows",
                "arrows paint ms", "ratio");
    bool linksMet = true;
    for (const View &v : views) {
        const PairResult r = runPair(bigScene, msgScene, v.start, v.end, frames);
        const double ratio = r.msgMs / r.baseMs;
        std::printf("%-18s %14.2f %14.2f %8zu %16.2f %8.2f\n", v.name, r.baseMs, r.msgMs, r.arrows,
                    r.linksPaintMs, ratio);
        linksMet = linksMet && ratio <= 1.3;
    }
    const TimelineGeometry gw =
        computeGeometry(msgScene, {msgScene.beginNs(), msgScene.endNs(), 1700, 0, 1054});
    std::printf("whole job: %zu arrows stand for %lld of %zu messages\n", gw.links.arrows.size(),
                (long long)gw.links.linksShown, msgJob->links.size());
    // Counters: the same 10 k-event job (100 µs roots: a 28 ms range) without and with a
    // 1 M-sample counter on worker 0, measured alternately in this run.
    auto plain = testjob::makeDenseJob(workers, 10002 / workers / 3 * 3 + 3, 100'000);
    auto counted = testjob::makeDenseJob(workers, 10002 / workers / 3 * 3 + 3, 100'000);
    {
        CounterTrack c;
        c.name = "memory";
        const int64_t b = counted->range(ClockMode::Corrected).begin;
        const int64_t len = counted->range(ClockMode::Corrected).duration();
        constexpr int64_t kSamples = 1'000'000;
        double v = 1e9;
        uint64_t x = 88172645463325252ull;
        for (int64_t i = 0; i < kSamples; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = std::max(0.0, v + double(int64_t(x % 2000001) - 1000000));
            c.add(b + len * i / kSamples, v);
        }
        c.finish();
        counted->workers[0].info.lastLocalNs = b + len;
        counted->workers[0].counters.push_back(std::move(c));
    }
    TimelineScene plainScene(plain), countedScene(counted);
    // Frames alternating, as for the links (the machine's load changes alike for both).
    const PairResult cr = runPair(plainScene, countedScene, plainScene.beginNs(),
                                  plainScene.endNs(), 3 * frames);
    if (pngDir) {
        runCase("no-counter", plainScene, plainScene.beginNs(), plainScene.endNs(), 1, pngDir);
        runCase("1M-counter", countedScene, countedScene.beginNs(), countedScene.endNs(), 1,
                pngDir);
    }
    const double counterRatio = cr.msgMs / cr.baseMs;
    std::printf("counter: frame without %.2f ms, with a 1M-sample counter %.2f ms: ratio %.2f "
                "(goal <= 1.3)\n",
                cr.baseMs, cr.msgMs, counterRatio);
    std::printf("goals: %s; links: %s; counter: %s\n",
                ratio <= 1.5 && results[1].medianMs <= 16.0 ? "MET" : "NOT MET",
                linksMet ? "MET" : "NOT MET", counterRatio <= 1.3 ? "MET" : "NOT MET");
    return 0;
}
