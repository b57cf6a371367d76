#include "timeline/load/jobloader.h"

#include "recorder/timerconfig.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/load/parse/chrome/chrometraceparser.h"
#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/build/ranksubset.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/store/linkstore.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/store/storedlog.h"
#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/store/windowreader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

// The correction options of a load: what ClockCorrector runs with and what keys its caches.
ClockCorrector::Options clockOptions(const LoadOptions &o)
{
    return {o.alignOn, o.correctClocks, o.alignCollectives,
            o.clock.value_or(ClockChoice::Corrected) == ClockChoice::Wall};
}

struct Task
{
    std::string path;
    bool chrome = false;
    int64_t bytes = 0;
};

// Hands the free pages of every malloc arena back to the system. The parser threads' arenas
// keep what their files' growing vectors left behind; without this, that garbage stays resident
// next to the timeline for as long as the process runs.
void releaseFreeMemory()
{
#ifdef __GLIBC__
    ::malloc_trim(0);
#endif
}

bool cancelled(const LoadOptions &o)
{
    return o.cancel && o.cancel->load(std::memory_order_relaxed);
}

// Runs `work` (which takes items until none is left) on the load's threads, this one among
// them: LoadOptions::threads, else one per core, never more than `items`.
void onThreads(const LoadOptions &o, size_t items, const std::function<void()> &work)
{
    int n = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    n = std::max(1, std::min<int>(n, int(items)));
    std::vector<std::thread> pool;
    for (int k = 1; k < n; ++k)
        pool.emplace_back(work);
    work();
    for (auto &th : pool)
        th.join();
}

// Runs item(i), turning an exception it throws into the file's load problem: the loader's
// threads never let one escape (it would end the process, std::terminate), and a file whose
// reading failed is not loaded rather than half-loaded.
template <class F>
void guardedItem(std::vector<ParsedFile> &files, size_t i, const std::string &path, F item)
{
    std::string why;
    try {
        item();
        return;
    } catch (const std::exception &e) {
        why = e.what();
    } catch (...) {
        why = "unknown exception";
    }
    ParsedFile failed;
    failed.path = path;
    LoadProblem p;
    p.kind = LoadProblem::Kind::LoadFailed;
    p.severity = LoadProblem::Severity::Error;
    p.file = path;
    p.message = "not loaded: reading it failed (" + why + ")";
    failed.problems.push_back(std::move(p));
    files[i] = std::move(failed);
}

// The stages' shares of the whole load, as measured on the realistic shape (docs/scale.md
// "Progress": 128 workers, 12.5 M events, both cores, wall time): parsing 77 %, merging 0.2 %,
// correcting clocks 17 % (pairing the messages about a third of it, the engine the rest),
// indexing 6 % (collectives, writing the correction cache and the link store); a window decoded
// from the event stores: reading the files 86 %, the clocks and arrows 10 %, the cut 4 %. The
// overall fraction is the stage's start plus its share times the progress within it, so one
// bar (and one ETA) covers every stage; a job without messages corrects faster, and the bar
// then jumps ahead rather than sitting at 100 %.
struct Stage
{
    const char *name;
    double begin, share;
};
constexpr Stage kParse{"parsing", 0.0, 0.76};
constexpr Stage kMerge{"merging", 0.76, 0.005};
constexpr Stage kCorrect{"correcting clocks", 0.765, 0.175};
constexpr double kPairingShare = 0.35; // of kCorrect
constexpr Stage kIndex{"indexing", 0.94, 0.06};
constexpr Stage kWindow{"reading the window", 0.0, 0.86}; // a windowed load: no parse/correct
constexpr Stage kArrows{"clocks and arrows", 0.86, 0.10};
constexpr Stage kCut{"cutting to the window", 0.96, 0.04};

std::string formatBytes(int64_t b)
{
    char buf[32];
    if (b >= (int64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GB", double(b) / double(int64_t(1) << 30));
    else
        std::snprintf(buf, sizeof buf, "%.0f MB", double(b) / double(1 << 20));
    return buf;
}

// Reports progress as "<stage>: <detail> · NN% · ETA Ns" (the ETA from the elapsed time and the
// overall fraction, once a stage has made some headway).
class Progress
{
public:
    explicit Progress(const LoadOptions &o) : m_o(o), m_t0(std::chrono::steady_clock::now()) {}
    void report(const Stage &s, double within, const std::string &detail = {})
    {
        if (!m_o.progress)
            return;
        const double f = std::clamp(s.begin + s.share * std::clamp(within, 0.0, 1.0), 0.0, 1.0);
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
        std::string what = s.name;
        if (!detail.empty())
            what += ": " + detail;
        char tail[64];
        if (f >= 0.02 && f < 1.0 && elapsed > 0.5)
            std::snprintf(tail, sizeof tail, " · %d%% · ETA %.0f s", int(f * 100),
                          elapsed * (1.0 - f) / f);
        else
            std::snprintf(tail, sizeof tail, " · %d%%", int(f * 100));
        m_o.progress(f, what + tail);
    }
    void done()
    {
        if (m_o.progress)
            m_o.progress(1.0, "done");
    }

private:
    const LoadOptions &m_o;
    std::chrono::steady_clock::time_point m_t0;
};

std::shared_ptr<const rec::TimerConfig> loadConfig(const std::string &path)
{
    if (path.empty())
        return nullptr;
    try {
        return std::make_shared<const rec::TimerConfig>(rec::TimerConfig::load(path));
    } catch (const std::exception &) {
        return nullptr; // JobInputs already reported why
    }
}

std::vector<ParsedFile> parseAll(const std::vector<Task> &tasks, const LoadOptions &o,
                                 const std::shared_ptr<const rec::TimerConfig> &config,
                                 Progress &progress, ArgStore &args, size_t &fromStores)
{
    std::vector<ParsedFile> files(tasks.size());
    int64_t total = 0;
    for (const Task &t : tasks)
        total += t.bytes;
    std::atomic<size_t> next{0};
    std::mutex progressMutex;
    int64_t done = 0;
    size_t filesDone = 0;
    progress.report(kParse, 0.0, "0 of " + std::to_string(tasks.size()) + " files");
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < tasks.size();) {
            if (cancelled(o))
                return;
            const Task &t = tasks[i];
            guardedItem(files, i, t.path, [&] {
                StoredLog stored(t.path);
                files[i] = t.chrome       ? ChromeTraceParser::parseFile(t.path, o.cancel)
                           : o.writeIndex ? stored.read(o.cancel, o.indexIntervalBytes)
                                          : LogParser::parseFile(t.path, o.cancel);
                // One lookup per file: its cache is keyed by the file's own name ids.
                EventKindLookup kinds(config);
                TimelineBuilder::prepareFile(files[i], kinds);
                // The prepared file, as a windowed open decodes it (args still the file's own).
                stored.finish(files[i]);
                const bool fromStore = stored.fromStore();
                if (o.clockOnly) // what the correction reads; the rest is freed right away
                    ClockCorrector::keepClockInputs(files[i], kinds, o.alignOn);
                {
                    // Each file's args texts join the one store as the file finishes: per file, the
                    // store would hold every step's text again (~8 B/event on the realistic shape).
                    std::lock_guard lock(progressMutex);
                    TimelineBuilder::moveArgsTo(files[i], args);
                }
                // 4 bytes an event instead of 8 a ref where most events have args.
                for (EventTrack &tr : files[i].worker.tracks)
                    tr.compactArgs();
                // The progress line's counts change under the lock they are read under.
                std::lock_guard lock(progressMutex);
                fromStores += fromStore ? 1 : 0;
                done += t.bytes;
                ++filesDone;
                if (o.progress)
                    progress.report(
                        kParse, total > 0 ? double(done) / double(total) : 1.0,
                        std::to_string(filesDone) + " of " + std::to_string(tasks.size()) +
                            " files, " + formatBytes(done) + " of " + formatBytes(total) +
                            (fromStores > 0
                                 ? ", " + std::to_string(fromStores) + " from their event stores"
                                 : std::string()));
            });
        }
    };
    onThreads(o, tasks.size(), work);
    return files;
}

// The window in global ns of its mode, from the whole job's range.
std::pair<int64_t, int64_t> globalWindow(const LoadWindow &w, const TimeRange &job)
{
    return {job.origin + w.beginNs, job.origin + w.endNs};
}

// Reads only the window (WindowReader) when every log has a valid index and the correction is
// cached; nullopt when that is not so (the caller loads the whole job).
// `logs`: in the full load's order (biggest first), so the merge sees the files as it would.
std::optional<LoadResult> loadWindowed(const std::vector<std::string> &logs,
                                       const JobInputs &inputs, const LoadOptions &o,
                                       const std::shared_ptr<const rec::TimerConfig> &config,
                                       Progress &progress)
{
    if (!inputs.chromeTraces.empty() || logs.empty())
        return std::nullopt;
    std::optional<CorrectionCache> cache = CorrectionCache::load(logs, clockOptions(o));
    if (!cache)
        return std::nullopt;
    // Each log's event store: its window is decoded from it (no JSON). A log without a valid
    // one (none yet, corrupt, stale, another version) is parsed whole instead, which writes it.
    // With a link store (the full load that wrote the correction wrote it too), the window's
    // message records are not needed at all.
    const bool pairWindowMessages = !LinkStore::exists(logs, clockOptions(o));
    std::map<std::string, const CorrectionCache::WorkerClock *> clockOf;
    for (const auto &wc : cache->workers)
        clockOf[wc.log] = &wc;
    const int m = o.window.mode == ClockMode::Raw ? 1 : 0;
    const auto [A, B] = globalWindow(o.window, cache->range[m]);
    std::vector<std::pair<int64_t, int64_t>> local(logs.size());
    std::vector<sync::ClockMap> maps(logs.size());
    for (size_t i = 0; i < logs.size(); ++i) {
        const auto it =
            clockOf.find(std::filesystem::absolute(logs[i]).lexically_normal().string());
        if (it == clockOf.end())
            return std::nullopt;
        const auto &segs = m == 1 ? it->second->raw : it->second->corrected;
        maps[i] = segs.empty() ? sync::ClockMap() : sync::ClockMap(segs);
        // toLocal is the inverse within 1 ns; a microsecond either side is plenty (held at
        // the int64 range: a cached map far from the window gives its ends there).
        const int64_t a = maps[i].toLocal(A), b = maps[i].toLocal(B);
        local[i] = {a < INT64_MIN + 1000 ? INT64_MIN : a - 1000,
                    b > INT64_MAX - 1000 ? INT64_MAX : b + 1000};
    }
    std::vector<ParsedFile> files(logs.size());
    std::atomic<size_t> next{0};
    std::atomic<int64_t> bytes{0};
    std::atomic<bool> fromStores{true};
    std::atomic<bool> noIndex{false}; // a log without a valid index: the whole job is loaded
    std::mutex mutex;
    size_t done = 0;
    ArgStore args;
    progress.report(kWindow, 0.0, "0 of " + std::to_string(files.size()) + " files");
    // Plain copies: a lambda may not capture structured bindings before C++20 compilers that
    // implement P1091 (clang 14, the fuzz build's compiler, does not).
    const int64_t windowA = A, windowB = B;
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < files.size();) {
            if (cancelled(o) || noIndex)
                return;
            guardedItem(files, i, logs[i], [&] {
                // Decoded from its store, else parsed (StoredLog::readWindow).
                EventKindLookup fileKinds(config);
                int64_t n = 0;
                const auto how = StoredLog(logs[i]).readWindow(
                    maps[i], windowA, windowB, local[i].first, local[i].second, fileKinds,
                    pairWindowMessages, o.writeIndex, o.cancel, {&args, &mutex}, files[i], &n);
                if (how == StoredLog::Window::NoIndex) {
                    noIndex = true;
                    return;
                }
                if (how != StoredLog::Window::Decoded)
                    fromStores = false;
                bytes += n;
                std::lock_guard lock(mutex);
                TimelineBuilder::moveArgsTo(files[i], args);
                for (EventTrack &tr : files[i].worker.tracks)
                    tr.compactArgs();
                ++done;
                progress.report(kWindow, double(done) / double(files.size()),
                                std::to_string(done) + " of " + std::to_string(files.size()) +
                                    " files");
            });
        }
    };
    onThreads(o, files.size(), work);
    LoadResult result;
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    if (noIndex)
        return std::nullopt;
    progress.report(kArrows, 0.0, std::to_string(files.size()) + " workers");
    BuiltTimeline built = TimelineBuilder::merge(std::move(files), std::move(args));
    Timeline &tl = *built.timeline;
    tl.problems.insert(tl.problems.begin(), inputs.problems.begin(), inputs.problems.end());
    if (!cache->applyTo(tl))
        return std::nullopt;
    progress.report(kArrows, 0.2, "the link store");
    const TimeRange jobRange[2] = {cache->range[0], cache->range[1]};
    cache.reset(); // its clocks are on the workers now
    // The window's arrows: the full load's with both ends in the window, from the link store;
    // without one, the window's message records paired by the one rule (cut below keeps those
    // inside the window).
    int64_t linkBytes = 0;
    if (!LinkStore::readWindow(tl, logs, clockOptions(o), o.window.mode, A, B,
                               &linkBytes)) {
        if (!pairWindowMessages)
            return std::nullopt; // a damaged link store: the full load rewrites it
        tl.links = ClockCorrector::links(tl, built.messages);
    }
    bytes += linkBytes;
    std::vector<MessageLog>().swap(built.messages);
    releaseFreeMemory();
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    EventKindLookup kinds(config);
    progress.report(kCut, 0.0, std::to_string(tl.eventCount()) + " events");
    kinds.describe(tl);
    tl.window.active = true;
    tl.window.mode = o.window.mode;
    tl.window.beginNs = A;
    tl.window.endNs = B;
    tl.window.job[0] = jobRange[0];
    tl.window.job[1] = jobRange[1];
    tl.window.readOnlyWindow = true;
    tl.window.bytesRead = bytes.load();
    tl.window.fromEventStore = fromStores.load();
    WindowReader::cut(tl, o.window.mode, A, B);
    tl.updateRange();
    progress.done();
    result.timeline = std::move(built.timeline);
    return result;
}

} // namespace

std::string JobLoader::clockPlan(const Timeline &tl)
{
    return CorrectionCache::of(tl).encode("clock plan");
}

IndexedSpan JobLoader::indexedSpan(const std::vector<std::string> &paths,
                                   const std::string &alignOn, bool correct,
                                   bool alignCollectives)
{
    IndexedSpan s;
    const JobInputs inputs = JobInputs::resolve(paths);
    if (!inputs.fatalError.empty()) {
        s.why = inputs.fatalError;
        return s;
    }
    if (!inputs.chromeTraces.empty()) {
        s.why = "the job has Chrome traces: a window is cut from a full load";
        return s;
    }
    const auto cache =
        CorrectionCache::load(inputs.logs, {alignOn, correct, alignCollectives}, &s.why);
    if (!cache)
        return s;
    for (const std::string &p : inputs.logs)
        if (!LogIndex::load(p, &s.why))
            return s;
    s.known = true;
    s.range[0] = cache->range[0];
    s.range[1] = cache->range[1];
    s.events = cache->events;
    return s;
}

LoadResult JobLoader::load(const LoadOptions &o)
{
    // The load's own threads turn their exceptions into problems (guardedItem); the engine's
    // (sync/parallel.h) pass theirs to the calling thread, here: the load fails with the reason
    // instead of ending the process.
    try {
        return loadJob(o);
    } catch (const std::exception &e) {
        LoadResult r;
        r.fatalError = std::string("the load failed: ") + e.what();
        return r;
    } catch (...) {
        LoadResult r;
        r.fatalError = "the load failed (unknown exception)";
        return r;
    }
}

LoadResult JobLoader::loadJob(const LoadOptions &given)
{
    LoadResult result;
    JobInputs inputs = JobInputs::resolve(given.paths);
    if (!inputs.fatalError.empty()) {
        result.fatalError = inputs.fatalError;
        return result;
    }
    const size_t droppedByName = inputs.selectRanks(given.ranks);
    if (inputs.logs.empty() && inputs.chromeTraces.empty() && !given.ranks.all()) {
        result.fatalError = "no log of ranks " + given.ranks.toString() + " among the inputs";
        return result;
    }
    std::vector<Task> tasks;
    std::error_code ec;
    for (const auto &p : inputs.logs)
        tasks.push_back({p, false, int64_t(std::filesystem::file_size(p, ec))});
    for (const auto &p : inputs.chromeTraces)
        tasks.push_back({p, true, int64_t(std::filesystem::file_size(p, ec))});
    // Biggest first keeps the pool busy to the end.
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const Task &a, const Task &b) { return a.bytes > b.bytes; });

    const auto config = loadConfig(inputs.configPath);
    // The clock: the caller's, else the config's view_clock, else corrected.
    LoadOptions o = given;
    if (!o.clock) {
        o.clock = config ? clockChoiceFromName(config->viewClock) : std::nullopt;
        if (o.clock == ClockChoice::Raw)
            o.window.mode = ClockMode::Raw;
    }
    if (!o.clock)
        o.clock = ClockChoice::Corrected;
    if (o.writeIndex)
        for (LoadProblem &p : CacheFile::refusedPlaces(inputs.logs))
            inputs.problems.push_back(std::move(p));
    Progress progress(o);
    if (o.window.use && !o.clockOnly && o.clockPlan.empty())
        if (std::optional<LoadResult> r = loadWindowed(
                [&] {
                    std::vector<std::string> logs;
                    for (const Task &t : tasks)
                        logs.push_back(t.path);
                    return logs;
                }(),
                inputs, o, config, progress)) {
            if (r->timeline)
                r->timeline->clockChoice = *o.clock;
            return std::move(*r);
        }
    ArgStore args;
    size_t fromStores = 0;
    std::vector<ParsedFile> files = parseAll(tasks, o, config, progress, args, fromStores);
    result.logsFromStores = fromStores;
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    RankSubset::dropOutside(files, o.ranks, inputs.problems);
    if (files.empty()) {
        result.fatalError = "no log of ranks " + o.ranks.toString() + " among the inputs";
        return result;
    }
    releaseFreeMemory();
    progress.report(kMerge, 0.0, std::to_string(files.size()) + " files");
    const bool anyUsable =
        std::any_of(files.begin(), files.end(), [](const ParsedFile &f) { return f.usable; });
    BuiltTimeline built = TimelineBuilder::merge(std::move(files), std::move(args));
    Timeline &tl = *built.timeline;
    tl.problems.insert(tl.problems.begin(), inputs.problems.begin(), inputs.problems.end());
    if (!anyUsable) {
        result.fatalError = "no usable log or trace among the inputs";
        for (const LoadProblem &p : tl.problems)
            if (p.severity == LoadProblem::Severity::Error) {
                result.fatalError += "; " + p.toString();
                break;
            }
        return result;
    }
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    EventKindLookup kinds(config);
    // The message records are only needed for their pairs: matched, then freed before the
    // engine runs (they are the biggest transient of a load).
    // The same matching gives the viewer's arrows (Timeline::links).
    if (!o.clockPlan.empty()) {
        // The whole job's clocks, from a plan (a split load): nothing to correct here.
        std::string why;
        const std::optional<CorrectionCache> plan =
            CorrectionCache::decode(o.clockPlan, "clock plan", &why);
        if (!plan || !plan->applyTo(tl)) {
            result.fatalError = "the clock plan " +
                                (plan ? std::string("names none of these logs") : "is unusable: " + why);
            return result;
        }
        tl.links = ClockCorrector::links(tl, built.messages);
        std::vector<MessageLog>().swap(built.messages);
        ClockCorrector::markCollectives(tl, kinds, o.alignOn);
        tl.updateRange();
        progress.done();
        result.timeline = std::move(built.timeline);
        return result;
    }
    std::vector<sync::MessagePair> pairs;
    size_t messageRecords = 0;
    for (const MessageLog &m : built.messages)
        messageRecords += m.size();
    progress.report(kCorrect, 0.0,
                    "pairing messages of " + std::to_string(tl.workers.size()) + " workers");
    if (o.correctClocks)
        pairs = ClockCorrector::pairMessages(tl, std::move(built.messages), &tl.links);
    else
        tl.links = ClockCorrector::links(tl, built.messages);
    std::vector<MessageLog>().swap(built.messages);
    releaseFreeMemory();
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    progress.report(kCorrect, kPairingShare,
                    std::to_string(tl.workers.size()) + " workers, " +
                        std::to_string(pairs.size()) + " message pairs");
    RankSubset::note(tl, o.ranks, droppedByName, messageRecords, pairs.size());
    ClockCorrector::apply(tl, std::move(pairs), kinds, clockOptions(o), std::nullopt, nullptr);
    releaseFreeMemory();
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    progress.report(kIndex, 0.0, "names and categories");
    // Categories, colours and collectives per name, for the viewer.
    ClockCorrector::markCollectives(tl, kinds, o.alignOn);
    if (o.writeIndex && !o.clockOnly && inputs.chromeTraces.empty() && !inputs.logs.empty()) {
        progress.report(kIndex, 0.3, "the correction cache");
        if (CorrectionCache::of(tl).store(inputs.logs, clockOptions(o))) {
            progress.report(kIndex, 0.5, "the link store");
            LinkStore::write(tl, inputs.logs, clockOptions(o));
        }
    }
    if (o.window.use) {
        const auto [A, B] = globalWindow(o.window, tl.range(o.window.mode));
        tl.window.active = true;
        tl.window.mode = o.window.mode;
        tl.window.beginNs = A;
        tl.window.endNs = B;
        tl.window.job[0] = tl.range(ClockMode::Corrected);
        tl.window.job[1] = tl.range(ClockMode::Raw);
        WindowReader::cut(tl, o.window.mode, A, B);
        tl.updateRange();
    }
    progress.done();
    tl.clockChoice = *o.clock;
    result.timeline = std::move(built.timeline);
    return result;
}

} // namespace syncline
