// bench_load's measurement of the loader itself: JobLoader::load in a child process (bench_load
// itself again, exec'd with --loader-child), so that the peak RSS is the loader's own. The child reports VmHWM (peak) and VmRSS after the load and
// malloc_trim, each with the child's RSS before loading (subtract it), the resident and peak
// at the start of each stage (merging, correcting, indexing, done), wall and process-CPU
// seconds in all and per stage, and the timeline's structure bytes by part.
// Threading: call from one thread; the child loads with `threads` threads.
#pragma once

#include "timeline/load/jobloader.h"

#include <cstdint>
#include <string>

namespace syncline::bench {

// Bytes held by the timeline's structures (capacities), by part, as a cross-check of the RSS
// figure and to say where memory goes (docs/scale.md).
struct Breakdown
{
    int64_t times = 0, names = 0, nesting = 0, flags = 0, argRefs = 0, argStore = 0, samples = 0,
            links = 0, other = 0;
    int64_t total() const
    {
        return times + names + nesting + flags + argRefs + argStore + samples + links + other;
    }
};

struct LoaderReport
{
    double seconds = 0;
    int64_t events = 0, baseKb = 0, peakKb = 0, afterKb = 0, problems = 0;
    int64_t stageRssKb[4] = {}, stageHwmKb[4] = {}; // at the start of merge, correct, index, end
    double stageSeconds[4] = {};
    double cpuSeconds = 0, stageCpuSeconds[4] = {}; // process CPU time (all threads)
    Breakdown structure;
    bool readOnlyWindow = false, fromEventStore = false; // a windowed load (--window)
    int64_t bytesRead = 0;
    int64_t logsFromStores = 0; // a full load: logs decoded from their event stores
};

// The full load of `dir` with `threads` threads, or with `window` (its use set) the windowed
// open of that window instead. `writeIndex` is LoadOptions::writeIndex: false parses every log
// (and writes nothing); true uses and writes the indexes and event stores (a log unchanged
// since they were written is decoded from its store).
LoaderReport loaderInChild(const std::string &dir, int threads, LoadWindow window = {},
                           bool writeIndex = true);
// The child's side: with argv as loaderInChild passes it, loads and reports, then returns 0;
// -1 when argv is not a child's. bench_load's main calls it first.
int loaderChildMain(int argc, char **argv);

} // namespace syncline::bench
