#include "timeline/load/loadsteps.h"

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/build/ranksubset.h"
#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/store/linkstore.h"
#include "timeline/load/store/windowreader.h"
#include "timeline/load/store/storedlog.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/parse/chrome/chrometraceparser.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace syncline::load {

// The correction options of a load: what ClockCorrector runs with and what keys its caches.
ClockCorrector::Options clockOptions(const LoadOptions &o)
{
    return {o.alignOn, o.correctClocks, o.alignCollectives,
            o.clock.value_or(ClockChoice::Corrected) == ClockChoice::Wall};
}

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

std::string formatBytes(int64_t b)
{
    char buf[32];
    if (b >= (int64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GB", double(b) / double(int64_t(1) << 30));
    else
        std::snprintf(buf, sizeof buf, "%.0f MB", double(b) / double(1 << 20));
    return buf;
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

// The window in global ns of its mode, from the whole job's range.
std::pair<int64_t, int64_t> globalWindow(const LoadWindow &w, const TimeRange &job)
{
    return {job.origin + w.beginNs, job.origin + w.endNs};
}

// The options with the clock chosen: the caller's, else the config's view_clock, else
// corrected (a config's raw also sets the window's mode to raw).
LoadOptions withClock(const LoadOptions &given,
                      const std::shared_ptr<const rec::TimerConfig> &config)
{
    LoadOptions o = given;
    if (!o.clock) {
        o.clock = config ? clockChoiceFromName(config->viewClock) : std::nullopt;
        if (o.clock == ClockChoice::Raw)
            o.window.mode = ClockMode::Raw;
    }
    if (!o.clock)
        o.clock = ClockChoice::Corrected;
    return o;
}

// A split load's config, from the bytes its first step read (what loadConfig gives).
std::shared_ptr<const rec::TimerConfig> configOf(const std::string &path, const std::string &text)
{
    if (path.empty())
        return nullptr;
    try {
        rec::TimerConfig c = rec::TimerConfig::parse(text, path);
        c.sourcePath = path;
        return std::make_shared<const rec::TimerConfig>(std::move(c));
    } catch (const std::exception &) {
        return nullptr; // as loadConfig: the resolve reported why
    }
}

void correctFiles(std::vector<ParsedFile> files, ArgStore args, JobInputs inputs,
                  const LoadOptions &o, const std::shared_ptr<const rec::TimerConfig> &config,
                  Progress &progress, size_t droppedByName, LoadResult &result)
{
    RankSubset::dropOutside(files, o.ranks, inputs.problems);
    if (files.empty()) {
        result.fatalError = "no log of ranks " + o.ranks.toString() + " among the inputs";
        return;
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
        return;
    }
    if (cancelled(o)) {
        result.cancelled = true;
        return;
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
            result.fatalError = "the clock plan " + (plan ? std::string("names none of these logs")
                                                          : "is unusable: " + why);
            return;
        }
        tl.links = ClockCorrector::links(tl, built.messages);
        std::vector<MessageLog>().swap(built.messages);
        ClockCorrector::markCollectives(tl, kinds, o.alignOn);
        tl.updateRange();
        progress.done();
        result.timeline = std::move(built.timeline);
        return;
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
        return;
    }
    progress.report(kCorrect, kPairingShare,
                    std::to_string(tl.workers.size()) + " workers, " +
                        std::to_string(pairs.size()) + " message pairs");
    RankSubset::note(tl, o.ranks, droppedByName, messageRecords, pairs.size());
    ClockCorrector::apply(tl, std::move(pairs), kinds, clockOptions(o), std::nullopt, nullptr);
    releaseFreeMemory();
    if (cancelled(o)) {
        result.cancelled = true;
        return;
    }
    progress.report(kIndex, 0.0, "names and categories");
    // Categories, colours and collectives per name, for the viewer.
    ClockCorrector::markCollectives(tl, kinds, o.alignOn);
    if (o.writeIndex && inputs.chromeTraces.empty() && !inputs.logs.empty()) {
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
}

ParsedFile readPrepared(const FileTask &t, const LoadOptions &o, EventKindLookup &kinds,
                        bool &fromStore)
{
    StoredLog stored(t.path);
    ParsedFile f = t.chrome       ? ChromeTraceParser::parseFile(t.path, o.cancel)
                   : o.writeIndex ? stored.read(o.cancel, o.indexIntervalBytes)
                                  : LogParser::parseFile(t.path, o.cancel);
    TimelineBuilder::prepareFile(f, kinds);
    // The prepared file, as a windowed open decodes it (args still the file's own).
    stored.finish(f);
    fromStore = stored.fromStore();
    return f;
}

} // namespace syncline::load
