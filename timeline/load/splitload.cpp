// JobLoader's split load (syncline.dask; docs/scale.md "Beyond one machine"): the inputs
// resolved where they lie, one log's clock inputs, the correction once over every log's inputs
// (fed one log at a time), and the job's kinds on a timeline put together from parts. The rules
// are the full load's (load/loadsteps.h): only the way the files arrive differs.
#include "timeline/load/jobloader.h"

#include "timeline/load/loadsteps.h"

#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/store/clockinputs.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/store/logindex.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace syncline {

using namespace load; // the loading stage's internals

void JobLoader::splitKinds(Timeline &tl, const std::string &configPath,
                           const std::string &configText, const std::string &alignOn)
{
    EventKindLookup kinds(configOf(configPath, configText));
    tl.kinds.clear();
    ClockCorrector::markCollectives(tl, kinds, alignOn);
}

SplitInputs JobLoader::splitInputs(const std::vector<std::string> &paths, const RankSet &ranks)
{
    SplitInputs out;
    JobInputs inputs = JobInputs::resolve(paths);
    if (!inputs.fatalError.empty()) {
        out.fatalError = inputs.fatalError;
        return out;
    }
    if (!inputs.chromeTraces.empty()) {
        out.fatalError = inputs.chromeTraces.front() +
                         ": a Chrome trace; a split load reads syncline logs only";
        return out;
    }
    inputs.selectRanks(ranks);
    if (inputs.logs.empty())
        out.noLogs = "no log of ranks " + ranks.toString() + " among the inputs";
    for (const std::string &p : inputs.logs)
        out.logs.push_back(std::filesystem::absolute(p).lexically_normal().string());
    if (!inputs.configPath.empty()) {
        out.configPath = inputs.configPath;
        out.configText = FileReader::head(inputs.configPath, size_t(1) << 26);
    }
    return out;
}

std::string JobLoader::clockInputs(const std::string &log, const std::string &configPath,
                                   const std::string &configText, const std::string &alignOn,
                                   std::string *error)
{
    std::error_code ec;
    const FileTask t{log, false, int64_t(std::filesystem::file_size(log, ec))};
    if (ec) {
        *error = log + ": " + ec.message();
        return {};
    }
    std::vector<ParsedFile> one(1);
    std::string header;
    guardedItem(one, 0, log, [&] {
        EventKindLookup kinds(configOf(configPath, configText));
        bool fromStore = false;
        one[0] = readPrepared(t, LoadOptions(), kinds, fromStore);
        // What the correction reads; the rest is freed right away.
        ClockCorrector::keepClockInputs(one[0], kinds, alignOn);
        header = FileReader::head(log, size_t(LogIndex::headerLengthOf(log)));
    });
    // A log whose reading failed is not usable: the correction leaves it out, as a load does.
    return ClockInputs::encode(one[0], one[0].usable ? header : std::string(), t.bytes);
}

bool JobLoader::clockInputsSynced(std::string_view inputs)
{
    return ClockInputs::synced(inputs);
}

SplitClocks JobLoader::splitClocks(const LoadOptions &given, const std::string &configPath,
                                   const std::string &configText,
                                   const std::vector<std::string> &inputs)
{
    size_t next = 0;
    return splitClocks(given, configPath, configText, [&]() -> std::optional<std::string_view> {
        if (next == inputs.size())
            return std::nullopt;
        return std::string_view(inputs[next++]);
    });
}

SplitClocks JobLoader::splitClocks(const LoadOptions &given, const std::string &configPath,
                                   const std::string &configText, const NextClockInputs &next,
                                   bool everyLogSynced)
{
    SplitClocks out;
    const auto config = configOf(configPath, configText);
    const LoadOptions o = withClock(given, config);
    std::vector<std::pair<int64_t, ParsedFile>> files; // (the log's size, its inputs)
    // One log's bytes at a time: each is decoded (and, when every log is synced, cut to what the
    // correction aligns on) before the next is asked for, so the caller can let go of it.
    ChunkCodec::TrackScratch scratch; // one for every log: its arrays are reused
    for (size_t i = 0;; ++i) {
        const std::optional<std::string_view> bytes = next();
        if (!bytes)
            break;
        std::string why;
        int64_t size = 0;
        std::optional<ParsedFile> f = ClockInputs::decode(*bytes, &size, &why, &scratch);
        if (!f) {
            out.fatalError = "input " + std::to_string(i) + ": " + why;
            return out;
        }
        if (everyLogSynced) {
            if (!ClockInputs::synced(*f)) {
                out.fatalError = "input " + std::to_string(i) +
                                 ": a log without sync samples, though every log was said to "
                                 "have them";
                return out;
            }
            EventKindLookup kinds(config); // per file: a lookup serves one name table
            ClockCorrector::keepAlignedEvents(*f, kinds, clockOptions(o));
        }
        files.emplace_back(size, std::move(*f));
    }
    // The full load's order (biggest first): logs without a rank take the free ones in it.
    std::stable_sort(files.begin(), files.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<ParsedFile> sorted;
    sorted.reserve(files.size());
    for (auto &f : files)
        sorted.push_back(std::move(f.second));
    std::vector<std::pair<int64_t, ParsedFile>>().swap(files);
    LoadResult r;
    try {
        Progress progress(o);
        correctFiles(std::move(sorted), ArgStore(), JobInputs(), o, config, progress, 0, r);
    } catch (const std::exception &e) {
        r.fatalError = std::string("the correction failed: ") + e.what();
    }
    if (!r.timeline) {
        out.fatalError = r.fatalError;
        return out;
    }
    const Timeline &tl = *r.timeline;
    // Each worker's clocks with the job's notes and causality: a slice per log.
    CorrectionCache all = CorrectionCache::of(tl);
    // The clock inputs' extent and count are not the job's (only some events reach the
    // correction, and which depends on the job): a plan carries neither.
    all.range[0] = all.range[1] = TimeRange();
    all.events = 0;
    std::vector<CorrectionCache::WorkerClock> clocks = std::move(all.workers);
    if (clocks.size() != tl.workers.size()) {
        out.fatalError = "the correction lost a worker";
        return out;
    }
    for (size_t w = 0; w < clocks.size(); ++w) {
        all.workers = {std::move(clocks[w])};
        out.workers.push_back(
            {all.workers[0].log, tl.workers[w].info.rank, all.encode("clock plan")});
    }
    return out;
}

} // namespace syncline
