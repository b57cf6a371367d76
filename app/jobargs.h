// JobArgs — the arguments shared by the verbs that read a job (stats, export, check, attach,
// open):
// input paths, --align-on PATTERN, --clock corrected|wall|raw (--raw = --clock raw), --no-correct,
// --no-align (sync samples and messages only, no alignment on collectives; not with --align-on),
// --quiet (no progress on stderr), --ranks RANKS (only those workers' logs: "0-63,512"), --help; for the verbs that write the timeline (export, attach) also --csv, --png, --svg FILE
// and --width/--height PX; plus each verb's own options, and the one way the job verbs load a
// job and report load problems on stderr.
// Usage errors name the option and what it expects ("syncline export: --width: expected
// 16..32768, got 'x'") and give exit status 2.
// Threading: main thread only.
#pragma once

#include "timeline/load/jobloader.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncline::app {

// The timeline outputs export and attach both write: the events CSV and the image.
struct TimelineOutputs
{
    std::string csv, png, svg;
    int width = 1920, height = 1080; // image size, px
};

struct JobArgs
{
    // What parse() accepts besides the common options; set before calling it.
    bool outputOptions = false; // --csv/--png/--svg/--width/--height (into `outputs`)
    bool oneDirectory = false;  // exactly one PATH, a directory (attach); else one or more
    bool pathsOptional = false; // no PATH is fine (open: the empty viewer)
    bool rangeOption = false;   // --range START:END (stats, export, open): a windowed load

    std::vector<std::string> paths;
    std::string alignOn;
    bool raw = false; // --raw, or --clock raw
    // --clock corrected|wall|raw (--raw = --clock raw); unset: the config's view_clock.
    std::optional<ClockChoice> clock;
    // The clock the last load() used (the option's, else the config's).
    mutable ClockChoice loadedClock = ClockChoice::Corrected;
    bool correct = true;
    bool align = true;  // --no-align: LoadOptions::alignCollectives false
    bool quiet = false; // --quiet / -q: no load progress on stderr
    TimelineOutputs outputs;
    LoadWindow window; // from --range (mode set from --raw)
    RankSet ranks;     // from --ranks (all() without it)

    // Parses argv[1..]; `extra(i)` handles a verb-specific option at argv[i] (advancing i past
    // its value) and returns 1, 0 when it does not know it, or -1 after printing why its value
    // is bad. Returns -1 to go on, else the exit status (usage errors print to stderr and
    // give 2; --help prints the verb's usage and gives 0).
    int parse(const char *verb, int argc, char **argv, const std::function<int(int &i)> &extra);
    // Loads the job; on failure prints "syncline VERB: reason" and returns nullptr. While it
    // loads, the loader's progress line (stage, %, ETA) is redrawn on stderr when stderr is a
    // terminal and not --quiet; the line is erased when the load ends. Nothing when piped.
    std::shared_ptr<Timeline> load(const char *verb) const;
    // The clock mode the outputs use: Raw with --raw / --clock raw (or, after load(), the
    // config's view_clock raw), else Corrected (--clock wall is a corrected mode).
    ClockMode mode() const
    {
        return raw || loadedClock == ClockChoice::Raw ? ClockMode::Raw : ClockMode::Corrected;
    }
};

// Prints a one-line summary of the load problems to stderr (the `check` verb prints them all).
void printProblemSummary(const Timeline &timeline, const char *verb);
// The same line from the counts (a verb that answers from a cache without loading).
void printProblemCounts(int64_t errors, int64_t warnings, const char *verb);

} // namespace syncline::app
