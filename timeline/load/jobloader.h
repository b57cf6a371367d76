// JobLoader — loads a whole job into a corrected Timeline: resolves the inputs (JobInputs),
// parses the files in parallel on a pool of std::threads (LogParser for syncline logs,
// ChromeTraceParser for Chrome traces; each file also sorted and nested on its thread), merges
// them (TimelineBuilder) and runs the clock correction (ClockCorrector).
//
// Never throws for bad data: problems end up in Timeline::problems; fatalError is set only when
// nothing can be loaded (no such path, no input files, every file unusable).
// Threading: load() blocks the calling thread; `progress` is called from pool threads and the
// calling thread, one call at a time, with the overall fraction in [0, 1] over every stage
// (parsing by bytes, merging, correcting clocks, indexing) and a line naming the stage, its
// detail, the percentage and an ETA ("parsing: 12 of 64 files, 310 MB of 1.5 GB · 19% · ETA 8 s"),
// ending with (1.0, "done"); a windowed read reports "reading the window: N of M files" instead
// of parsing and needs no correction stage; `cancel` is polled between files, inside big files and between
// stages — when it becomes true, load() returns cancelled = true and no timeline.
#pragma once

#include "timeline/model/rankset.h"
#include "timeline/model/timeline.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline {

namespace rec {
class TimerConfig;
}

// A time window to open (docs/scale.md "Windowed opening"): [beginNs, endNs] relative to the
// whole job's origin in `mode` (the same times `--range` and the CSV use).
struct LoadWindow
{
    bool use = false;
    ClockMode mode = ClockMode::Corrected;
    int64_t beginNs = 0;
    int64_t endNs = 0;
    // "START:END" (`--range`, syncline.dask's range=): durations with a unit ns (default), us,
    // ms or s ("250ms" → 250000000), START <= END; sets use, beginNs, endNs. False when
    // malformed.
    static bool parse(const std::string &text, LoadWindow &window);
    static bool parseDuration(const std::string &text, int64_t &ns);
};

struct LoadOptions
{
    std::vector<std::string> paths;
    std::string alignOn; // --align-on PATTERN: collectives to align clocks on
    bool correctClocks = true;
    // false (--no-align): clocks are corrected from sync samples and messages only, never
    // aligned on collectives (ClockCorrector::Options::alignCollectives).
    bool alignCollectives = true;
    // --clock: Wall places every host whose wall clock agrees with its corrected clock within
    // its sync band by its wall clock (ClockCorrector::Options::wallClocks); Raw and Corrected
    // correct as usual (Raw is a display mode: the caller shows ClockMode::Raw). Unset: the
    // config's `view_clock`, else Corrected; a config's raw then also sets window.mode to Raw.
    // The choice made is Timeline::clockChoice.
    std::optional<ClockChoice> clock;
    int threads = 0; // 0 = hardware concurrency
    std::function<void(double fraction, const std::string &what)> progress;
    const std::atomic<bool> *cancel = nullptr;
    // With a window, only the events overlapping it are kept. When every input is a syncline
    // log with a valid index and the job's clock correction is cached (a full load wrote them),
    // only the blocks the window needs are read (Timeline::window.readOnlyWindow); otherwise the
    // job is loaded whole (writing the indexes and the cache) and cut.
    LoadWindow window;
    // Full loads write each log's index, its event store and the job's correction cache
    // (LogIndex, EventStore, CorrectionCache) when they are missing or stale; a windowed load
    // writes the event store of a log that has none (it parses that log whole). With false,
    // nothing is written, and a windowed load parses only the index's blocks of such a log.
    bool writeIndex = true;
    size_t indexIntervalBytes = 256 << 10; // between an index's checkpoints (tests use less)
    // --ranks: only these workers (RankSet::all(): every one). A log is chosen by the rank its
    // file name gives (LogHeader::rankFromFileName: timer_events.<rank>.log, as the recorder
    // names them), so the others are never opened; a log whose name gives none, and every
    // Chrome trace, is read and kept when its worker's rank is in the set. Clocks come from the
    // chosen workers' own samples, messages among them and collectives over them; an Info
    // problem says how many message records found no partner in the subset (a whole load may
    // bound the clocks tighter).
    RankSet ranks;
    // A split load (syncline.dask; docs/scale.md "Beyond one machine"): one worker's clocks as
    // JobLoader::splitClocks gives them (its SplitWorker::clocks). The worker's clocks are taken
    // from them instead of corrected; a log they do not name fails the load.
    std::string clockPlan;
    // A log of a split load loaded alone: the job's config as splitInputs read it (its path
    // and bytes; an empty path: the job has none), instead of one among the paths, so the log
    // gets the whole job's event kinds (overdue limits, categories, collectives).
    std::optional<std::pair<std::string, std::string>> splitConfig;
};

// A load split over processes (syncline.dask; docs/scale.md "Beyond one machine"), in three
// steps: splitInputs resolves the paths where they are readable; clockInputs parses one log
// where it lies and keeps what the clock correction reads (sync samples, wall pairs, message
// records, the events that can be collectives: ClockCorrector::keepClockInputs), as bytes
// (ClockInputs); splitClocks runs the correction once over every log's bytes — the same
// merge, pairing and engine as a full load, so the same clocks — and gives each worker's
// clocks as bytes of their own, for LoadOptions::clockPlan.
struct SplitInputs
{
    std::vector<std::string> logs; // absolute, in the load's input order
    std::string configPath;        // the job's timer_config.json ("" when none)
    std::string configText;        // its bytes: tasks elsewhere need not read it
    std::string noLogs;            // why `logs` is empty: none of the ranks asked for
    std::string fatalError;
};

struct SplitWorker
{
    std::string log;
    int rank = 0;       // the whole job's (a log without a rank of its own gets one here)
    std::string clocks; // for LoadOptions::clockPlan
};

struct SplitClocks
{
    std::vector<SplitWorker> workers; // the job's workers, in the timeline's order
    std::string fatalError;
};

// What the index knows about a job without loading it (the viewer's Open window… dialog):
// the whole job's range per mode and its event count, when its correction is cached and every
// log has a valid index.
struct IndexedSpan
{
    bool known = false;
    TimeRange range[2]; // [0] corrected, [1] raw
    int64_t events = 0;
    std::string why; // when !known
};

struct LoadResult
{
    std::shared_ptr<Timeline> timeline;
    // A full load: the logs decoded from their event stores instead of parsed, because they
    // had not changed since a load wrote their index and store (docs/scale.md "Loading an
    // unchanged job again").
    size_t logsFromStores = 0;
    bool cancelled = false;
    std::string fatalError;
};

class JobLoader
{
public:
    static LoadResult load(const LoadOptions &options);
    // The split load's steps (SplitInputs above). splitInputs: the logs that `ranks` keeps by
    // their file names (a Chrome trace among the inputs is a fatal error: a split load reads
    // syncline logs only). clockInputs: "" and *error when the log is gone; a log that cannot
    // be read or parsed gives the inputs of an unusable file (the correction leaves it out, as
    // a load does).
    // splitClocks: `inputs` in splitInputs' order, the options' alignOn, alignCollectives,
    // correctClocks, clock, ranks and threads as a full load of the job would have them.
    static SplitInputs splitInputs(const std::vector<std::string> &paths, const RankSet &ranks);
    static std::string clockInputs(const std::string &log, const std::string &configPath,
                                   const std::string &configText, const std::string &alignOn,
                                   std::string *error);
    static SplitClocks splitClocks(const LoadOptions &options, const std::string &configPath,
                                   const std::string &configText,
                                   const std::vector<std::string> &inputs);
    // Whether one log's clock inputs are of a usable log with sync samples (ClockInputs::synced).
    static bool clockInputsSynced(std::string_view inputs);
    // The same, taking the logs' clock inputs one at a time: `next` gives the next log's bytes
    // (nullopt after the last), which need to stay valid only until `next` is called again —
    // each is decoded first, so no more than one log's bytes need be held (the correction's
    // memory is the decoded inputs of every log, not their bytes as well). An exception thrown
    // by `next` ends the correction and propagates. `everyLogSynced`: every input is of a
    // usable log with sync samples (ClockInputs::synced of each, asked where its bytes are):
    // then only the events the correction aligns on are kept of each log as it is decoded
    // (ClockCorrector::keepAlignedEvents), and an input that is not synced is a fatal error.
    using NextClockInputs = std::function<std::optional<std::string_view>()>;
    static SplitClocks splitClocks(const LoadOptions &options, const std::string &configPath,
                                   const std::string &configText, const NextClockInputs &next,
                                   bool everyLogSynced = false);
    // The training process's side of `event_store` (recorder/logstorewriter.h): installs
    // writeLogStore as the recorder's LogStoreWriter. A program that records with the recorder
    // and links the loader calls it once at start-up (the Python module does when imported).
    static void installLogStoreWriter();
    // One closed log's index and event store, written as a full load of its job would write
    // them (StoredLog: the same parse, files and checks). False and *error when they could not
    // be written (the log is not usable, it changed while it was read, no cache place takes
    // them). Never throws.
    static bool writeLogStore(const std::string &log, const rec::TimerConfig &config,
                              std::string *error);
    // The job's event kinds (categories, colours, collectives: the full load's rule, which
    // reads the whole job's names) on a timeline put together from a split load's parts
    // (DiagnosisPart::timeline); `configPath`/`configText` as splitInputs gave them.
    static void splitKinds(Timeline &timeline, const std::string &configPath,
                           const std::string &configText, const std::string &alignOn);
    static IndexedSpan indexedSpan(const std::vector<std::string> &paths,
                                   const std::string &alignOn = {}, bool correct = true,
                                   bool alignCollectives = true);

private:
    static LoadResult loadJob(const LoadOptions &options);
};

} // namespace syncline
