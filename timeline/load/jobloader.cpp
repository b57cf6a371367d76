#include "timeline/load/jobloader.h"

#include "timeline/load/chrome/chrometraceparser.h"
#include "timeline/load/clockcorrector.h"
#include "timeline/load/eventkindlookup.h"
#include "timeline/load/jobinputs.h"
#include "timeline/load/log/logparser.h"
#include "recorder/timerconfig.h"
#include "timeline/load/timelinebuilder.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <thread>

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

struct Task
{
    std::string path;
    bool chrome = false;
    int64_t bytes = 0;
};

bool cancelled(const LoadOptions &o)
{
    return o.cancel && o.cancel->load(std::memory_order_relaxed);
}

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

constexpr double kParsedShare = 0.8;

std::vector<ParsedFile> parseAll(const std::vector<Task> &tasks, const LoadOptions &o,
                                 const std::shared_ptr<const rec::TimerConfig> &config)
{
    std::vector<ParsedFile> files(tasks.size());
    int64_t total = 0;
    for (const Task &t : tasks)
        total += t.bytes;
    std::atomic<size_t> next{0};
    std::mutex progressMutex;
    int64_t done = 0;
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < tasks.size();) {
            if (cancelled(o))
                return;
            const Task &t = tasks[i];
            files[i] = t.chrome ? ChromeTraceParser::parseFile(t.path, o.cancel)
                                : LogParser::parseFile(t.path, o.cancel);
            // One lookup per file: its cache is keyed by the file's own name ids.
            EventKindLookup kinds(config);
            TimelineBuilder::prepareFile(files[i], kinds);
            if (o.progress) {
                std::lock_guard lock(progressMutex);
                done += t.bytes;
                // Parsing is the first kParsedShare of the load; merging and the clock
                // correction report their own stages after it (so 100 % means done).
                o.progress(kParsedShare * (total > 0 ? double(done) / double(total) : 1.0),
                           "parsed " + t.path);
            }
        }
    };
    int n = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    n = std::max(1, std::min<int>(n, int(tasks.size())));
    std::vector<std::thread> pool;
    for (int k = 1; k < n; ++k)
        pool.emplace_back(work);
    work();
    for (auto &th : pool)
        th.join();
    return files;
}

} // namespace

LoadResult JobLoader::load(const LoadOptions &o)
{
    LoadResult result;
    JobInputs inputs = JobInputs::resolve(o.paths);
    if (!inputs.fatalError.empty()) {
        result.fatalError = inputs.fatalError;
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
    std::vector<ParsedFile> files = parseAll(tasks, o, config);
    if (cancelled(o)) {
        result.cancelled = true;
        return result;
    }
    const bool anyUsable =
        std::any_of(files.begin(), files.end(), [](const ParsedFile &f) { return f.usable; });
    if (o.progress)
        o.progress(kParsedShare, "merging");
    BuiltTimeline built = TimelineBuilder::merge(std::move(files));
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
    EventKindLookup kinds(config);
    if (o.progress)
        o.progress(kParsedShare + 0.05, "correcting clocks");
    ClockCorrector::apply(tl, built.messages, kinds, {o.alignOn, o.correctClocks});
    kinds.describe(tl); // categories and colours per name, for the viewer
    if (o.progress)
        o.progress(1.0, "done");
    result.timeline = std::move(built.timeline);
    return result;
}

} // namespace syncline
