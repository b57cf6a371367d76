// CorrectionCache — the clock correction of a whole job, kept beside its logs so a windowed open
// (LoadOptions::window) can use the result that every sync sample, message pair and collective
// of the full load produced without reading them again. Written by every full load of a job made
// only of syncline logs; keyed by the logs (absolute path, size, mtime, inode, head hash — see
// LogFileStamp) and the correction options (--align-on, --no-correct, --no-align, --clock wall), so any change to any log, or other options, makes
// it stale: it is then ignored and the next load is a full one that writes it again.
//
// Holds per worker (by its log's path) the corrected map, the engine's summary and its wall-clock
// check (Worker::wall); for the job
// the causality report, clock notes, the reference shift and both modes' ranges (the window's
// times stay relative to the whole job's origin).
// File: CacheFile::placeFor(<dir of the first log>) + "/correction-<hash of the key>.scc".
// Threading: values; any thread.
#pragma once

#include "timeline/load/build/clockcorrector.h"
#include "timeline/model/timeline.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncline::load {

struct CorrectionCache
{
    // Raised whenever the engine gives other results (maps, flags, notes) for the same logs:
    // a cache never hands a windowed open another engine's correction.
    // 3: the wall-clock check per worker; 4: samples of one reference clock combined across its
    // servers, --clock wall following the wall-clock pairs; 5: a process's model counts within a
    // few burst spacings of its bursts when a domain's models are combined.
    static constexpr uint32_t kVersion = 5;

    struct WorkerClock
    {
        std::string log; // absolute path
        std::vector<sync::ClockSegment> corrected;
        std::vector<sync::ClockSegment> raw;
        sync::WorkerClockResult clock; // its map left empty
        WallClockStatus wall;
    };
    std::vector<WorkerClock> workers;
    sync::CausalityReport causality;
    std::vector<std::string> clockNotes;
    int64_t referenceShiftNs = 0;
    bool wallClocksAgree = false;
    TimeRange range[2]; // [0] corrected, [1] raw
    int64_t events = 0;

    // The key of a job: its logs (any order) and the correction options.
    static std::string keyOf(const std::vector<std::string> &logs,
                             const ClockCorrector::Options &options, std::string *error = nullptr);
    // Where a job-level cache file of `logs` with this key lives (`<stem><hash of key><ext>`
    // in the place of the first log, sorted): the correction's, the links' (LinkStore).
    static std::string fileOf(const std::vector<std::string> &logs, const std::string &key,
                              bool beside, const char *stem, const char *ext);
    static std::optional<CorrectionCache> load(const std::vector<std::string> &logs,
                                               const ClockCorrector::Options &options,
                                               std::string *why = nullptr);
    // The cache file's bytes for `key` (what store() writes), and back: nullopt with *why when
    // the bytes are not a cache of this version, or of another key. A split load
    // (LoadOptions::clockPlan) ships them to the processes that load single logs.
    std::string encode(const std::string &key) const;
    static std::optional<CorrectionCache> decode(std::string_view bytes, const std::string &key,
                                                 std::string *why = nullptr);
    // From a full load's timeline (workers' sourceFile are the logs).
    static CorrectionCache of(const Timeline &tl);
    bool store(const std::vector<std::string> &logs, const ClockCorrector::Options &options) const;
    // Puts the cached clocks on the workers of `tl` (matched by sourceFile); false when a worker
    // has none (the cache does not describe this job).
    bool applyTo(Timeline &tl) const;
};

} // namespace syncline::load
