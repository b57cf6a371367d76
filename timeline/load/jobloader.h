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
// ending with (1.0, "done"); `cancel` is polled between files, inside big files and between
// stages — when it becomes true, load() returns cancelled = true and no timeline.
#pragma once

#include "timeline/model/timeline.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace syncline {

struct LoadOptions
{
    std::vector<std::string> paths;
    std::string alignOn; // --align-on PATTERN: collectives to align clocks on
    bool correctClocks = true;
    int threads = 0; // 0 = hardware concurrency
    std::function<void(double fraction, const std::string &what)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

struct LoadResult
{
    std::shared_ptr<Timeline> timeline;
    bool cancelled = false;
    std::string fatalError;
};

class JobLoader
{
public:
    static LoadResult load(const LoadOptions &options);
};

} // namespace syncline
