// JobArgs — the arguments shared by the job verbs (stats, export, check): input paths,
// --align-on PATTERN, --raw (raw clocks instead of corrected), --no-correct, plus each verb's own
// options, and the one way they load a job and report load problems on stderr.
// Threading: main thread only.
#pragma once

#include "timeline/jobloader.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace syncline::app {

struct JobArgs
{
    std::vector<std::string> paths;
    std::string alignOn;
    bool raw = false;
    bool correct = true;

    // Parses argv[1..]; `extra(i)` handles a verb-specific option at argv[i] (advancing i past
    // its value) and returns false when it does not know it. Returns -1 to go on, else the exit
    // status (usage errors print to stderr and give 2).
    int parse(const char *verb, int argc, char **argv, const std::function<int(int &i)> &extra);
    // Loads the job; on failure prints "syncline VERB: reason" and returns nullptr.
    std::shared_ptr<Timeline> load(const char *verb) const;
};

// Prints a one-line summary of the load problems to stderr (the `check` verb prints them all).
void printProblemSummary(const Timeline &timeline, const char *verb);

} // namespace syncline::app
