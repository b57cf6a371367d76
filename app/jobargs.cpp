#include "jobargs.h"

#include <cstdio>

namespace syncline::app {

int JobArgs::parse(const char *verb, int argc, char **argv, const std::function<int(int &i)> &extra)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--align-on") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline %s: --align-on needs a PATTERN\n", verb);
                return 2;
            }
            alignOn = argv[++i];
        } else if (arg == "--raw") {
            raw = true;
        } else if (arg == "--no-correct") {
            correct = false;
        } else if (arg == "--help" || arg == "-h") {
            std::printf("see: syncline help %s\n", verb);
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            const int r = extra ? extra(i) : 0;
            if (r < 0)
                return 2;
            if (r == 0) {
                std::fprintf(stderr, "syncline %s: unknown option '%s' (see syncline help %s)\n",
                             verb, arg.c_str(), verb);
                return 2;
            }
        } else {
            paths.push_back(arg);
        }
    }
    if (paths.empty()) {
        std::fprintf(
            stderr,
            "syncline %s: no PATH given (a job directory, timer_config.json, logs or traces)\n",
            verb);
        return 2;
    }
    return -1;
}

std::shared_ptr<Timeline> JobArgs::load(const char *verb) const
{
    LoadOptions o;
    o.paths = paths;
    o.alignOn = alignOn;
    o.correctClocks = correct;
    LoadResult r = JobLoader::load(o);
    if (!r.timeline) {
        std::fprintf(stderr, "syncline %s: %s\n", verb, r.fatalError.c_str());
        return nullptr;
    }
    if (raw)
        r.timeline->setMode(ClockMode::Raw);
    return r.timeline;
}

void printProblemSummary(const Timeline &tl, const char *verb)
{
    int warnings = 0, errors = 0;
    for (const LoadProblem &p : tl.problems) {
        warnings += p.severity == LoadProblem::Severity::Warning;
        errors += p.severity == LoadProblem::Severity::Error;
    }
    if (warnings + errors > 0)
        std::fprintf(stderr,
                     "syncline %s: %d error(s), %d warning(s) while loading; run `syncline check` "
                     "for details\n",
                     verb, errors, warnings);
}

} // namespace syncline::app
