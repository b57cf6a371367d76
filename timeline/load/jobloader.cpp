#include "timeline/load/jobloader.h"

#include "timeline/load/loadsteps.h"

#include "recorder/logstorewriter.h"
#include "recorder/timerconfig.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/store/linkstore.h"
#include "timeline/load/store/logindex.h"
#include "timeline/load/store/storedlog.h"
#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/store/windowreader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

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

std::vector<ParsedFile> parseAll(const std::vector<FileTask> &tasks, const LoadOptions &o,
                                 const std::shared_ptr<const rec::TimerConfig> &config,
                                 Progress &progress, ArgStore &args, size_t &fromStores)
{
    std::vector<ParsedFile> files(tasks.size());
    int64_t total = 0;
    for (const FileTask &t : tasks)
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
            const FileTask &t = tasks[i];
            guardedItem(files, i, t.path, [&] {
                // One lookup per file: its cache is keyed by the file's own name ids.
                EventKindLookup kinds(config);
                bool fromStore = false;
                files[i] = readPrepared(t, o, kinds, fromStore);
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

bool LoadWindow::parseDuration(const std::string &s, int64_t &ns)
{
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str())
        return false;
    const std::string unit(end);
    const double scale = unit.empty() || unit == "ns" ? 1
                         : unit == "us"               ? 1e3
                         : unit == "ms"               ? 1e6
                         : unit == "s"                ? 1e9
                                                      : -1;
    if (scale < 0)
        return false;
    ns = int64_t(v * scale);
    return true;
}

bool LoadWindow::parse(const std::string &text, LoadWindow &w)
{
    const size_t colon = text.find(':');
    int64_t a = 0, b = 0;
    if (colon == std::string::npos || !parseDuration(text.substr(0, colon), a) ||
        !parseDuration(text.substr(colon + 1), b) || b < a)
        return false;
    w.use = true;
    w.beginNs = a;
    w.endNs = b;
    return true;
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
    std::vector<FileTask> tasks;
    std::error_code ec;
    for (const auto &p : inputs.logs)
        tasks.push_back({p, false, int64_t(std::filesystem::file_size(p, ec))});
    for (const auto &p : inputs.chromeTraces)
        tasks.push_back({p, true, int64_t(std::filesystem::file_size(p, ec))});
    // Biggest first keeps the pool busy to the end.
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const FileTask &a, const FileTask &b) { return a.bytes > b.bytes; });

    const auto config = given.splitConfig
                            ? configOf(given.splitConfig->first, given.splitConfig->second)
                            : loadConfig(inputs.configPath);
    const LoadOptions o = withClock(given, config);
    if (o.writeIndex)
        for (LoadProblem &p : CacheFile::refusedPlaces(inputs.logs))
            inputs.problems.push_back(std::move(p));
    Progress progress(o);
    if (o.window.use && o.clockPlan.empty())
        if (std::optional<LoadResult> r = loadWindowed(
                [&] {
                    std::vector<std::string> logs;
                    for (const FileTask &t : tasks)
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
    correctFiles(std::move(files), std::move(args), std::move(inputs), o, config, progress,
                 droppedByName, result);
    return result;
}

void JobLoader::installLogStoreWriter()
{
    rec::setLogStoreWriter(&JobLoader::writeLogStore);
}

bool JobLoader::writeLogStore(const std::string &log, const rec::TimerConfig &config,
                              std::string *error)
try {
    std::vector<ParsedFile> one(1);
    std::error_code ec;
    const FileTask t{log, false, int64_t(std::filesystem::file_size(log, ec))};
    if (ec) {
        *error = ec.message();
        return false;
    }
    // As a full load reads it; a failure (an exception) becomes the file's load problem.
    guardedItem(one, 0, log, [&] {
        EventKindLookup kinds(std::make_shared<const rec::TimerConfig>(config));
        bool fromStore = false;
        one[0] = readPrepared(t, LoadOptions(), kinds, fromStore);
    });
    if (!one[0].usable) {
        *error = one[0].problems.empty() ? std::string("the log is not usable")
                                         : one[0].problems.front().toString();
        return false;
    }
    if (!LogIndex::load(log) || !EventStore::open(log)) {
        *error = "no index and event store could be written beside the log or in the cache "
                 "directory";
        return false;
    }
    return true;
} catch (const std::exception &e) {
    // Called from FileTimerClient::close(), often in a destructor: nothing escapes.
    *error = e.what();
    return false;
}

} // namespace syncline
