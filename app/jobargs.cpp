#include "jobargs.h"

#include "command.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace syncline::app {

namespace {

// The value of the option at argv[i] (i advanced past it), or nullptr after saying that it is
// missing.
const char *optionValue(const char *verb, int argc, char **argv, int &i, const char *what)
{
    if (i + 1 < argc)
        return argv[++i];
    std::fprintf(stderr, "syncline %s: %s needs %s\n", verb, argv[i], what);
    return nullptr;
}

// --csv/--png/--svg/--width/--height: 1 when `arg` is one of them (stored, i advanced), 0 when
// it is not, -1 after printing why its value is bad.
int outputOption(const char *verb, int argc, char **argv, int &i, TimelineOutputs &o)
{
    const std::string arg = argv[i];
    std::string *file = arg == "--csv"   ? &o.csv
                        : arg == "--png" ? &o.png
                        : arg == "--svg" ? &o.svg
                                         : nullptr;
    int *size = arg == "--width" ? &o.width : arg == "--height" ? &o.height : nullptr;
    if (!file && !size)
        return 0;
    const char *v =
        optionValue(verb, argc, argv, i, file ? "a FILE" : "a size in pixels, 16..32768");
    if (!v)
        return -1;
    if (file) {
        *file = v;
        return 1;
    }
    char *end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end || n < 16 || n > 32768) {
        std::fprintf(stderr, "syncline %s: %s: expected 16..32768, got '%s'\n", verb, arg.c_str(),
                     v);
        return -1;
    }
    *size = int(n);
    return 1;
}

void printUsage(const char *verb)
{
    const Command *c = CommandRegistry::instance().find(verb);
    std::printf("usage: syncline %s\n(more: syncline help %s)\n", c ? c->synopsis.c_str() : verb,
                verb);
}

} // namespace

int JobArgs::parse(const char *verb, int argc, char **argv, const std::function<int(int &i)> &extra)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--align-on") {
            const char *v = optionValue(verb, argc, argv, i, "a PATTERN");
            if (!v)
                return 2;
            alignOn = v;
        } else if (rangeOption && arg == "--range") {
            const char *v = optionValue(verb, argc, argv, i, "START:END");
            if (!v)
                return 2;
            if (!LoadWindow::parse(v, window)) {
                std::fprintf(stderr,
                             "syncline %s: --range: expected START:END (e.g. 0:2.5s), got '%s'\n",
                             verb, v);
                return 2;
            }
        } else if (arg == "--ranks") {
            const char *v = optionValue(verb, argc, argv, i, "RANKS (e.g. 0-63,512)");
            if (!v)
                return 2;
            std::string why;
            if (!RankSet::parse(v, ranks, &why)) {
                std::fprintf(stderr, "syncline %s: --ranks: %s\n", verb, why.c_str());
                return 2;
            }
        } else if (arg == "--clock") {
            const char *v = optionValue(verb, argc, argv, i, "corrected, wall or raw");
            if (!v)
                return 2;
            const std::optional<ClockChoice> c = clockChoiceFromName(v);
            if (!c) {
                std::fprintf(stderr,
                             "syncline %s: --clock: expected corrected, wall or raw, got '%s'\n",
                             verb, v);
                return 2;
            }
            if (clock && *clock != *c) {
                std::fprintf(stderr, "syncline %s: --clock %s contradicts --%s%s\n", verb, v,
                             raw ? "raw" : "clock ", raw ? "" : clockChoiceName(*clock));
                return 2;
            }
            clock = c;
            raw = *c == ClockChoice::Raw;
        } else if (arg == "--raw") {
            if (clock && *clock != ClockChoice::Raw) {
                std::fprintf(stderr, "syncline %s: --raw contradicts --clock %s\n", verb,
                             clockChoiceName(*clock));
                return 2;
            }
            raw = true;
            clock = ClockChoice::Raw;
        } else if (arg == "--no-correct") {
            correct = false;
        } else if (arg == "--no-align") {
            align = false;
        } else if (arg == "--quiet" || arg == "-q") {
            quiet = true;
        } else if (arg == "--help" || arg == "-h") {
            printUsage(verb);
            return 0;
        } else if (arg.size() > 1 && arg[0] == '-') {
            int r = outputOptions ? outputOption(verb, argc, argv, i, outputs) : 0;
            if (r == 0 && extra)
                r = extra(i);
            if (r < 0)
                return 2;
            if (r == 0) {
                std::fprintf(stderr, "syncline %s: unknown option '%s' (see syncline help %s)\n",
                             verb, arg.c_str(), verb);
                return 2;
            }
        } else if (oneDirectory && !paths.empty()) {
            std::fprintf(stderr, "syncline %s: one directory only ('%s')\n", verb, arg.c_str());
            return 2;
        } else {
            paths.push_back(arg);
        }
    }
    if (!align && !alignOn.empty()) {
        std::fprintf(stderr,
                     "syncline %s: --align-on and --no-align contradict each other (--no-align: "
                     "no alignment on collectives)\n",
                     verb);
        return 2;
    }
    if (paths.empty() && !pathsOptional) {
        if (oneDirectory)
            std::fprintf(stderr, "syncline %s: which directory? (syncline %s DIR)\n", verb, verb);
        else
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
    o.alignCollectives = align;
    o.clock = clock;
    o.window = window;
    o.window.mode = mode();
    o.ranks = ranks;
    // Progress on a terminal only, redrawn in place, erased at the end.
    const bool show = !quiet && ::isatty(STDERR_FILENO) == 1;
    // Redrawn at most ~10 times a second within a stage; a new stage is always drawn.
    std::chrono::steady_clock::time_point last{};
    std::string lastStage;
    bool drawn = false;
    if (show)
        o.progress = [&](double fraction, const std::string &what) {
            const auto now = std::chrono::steady_clock::now();
            const std::string stage = what.substr(0, what.find_first_of(":·"));
            if (fraction < 1.0 && drawn && stage == lastStage &&
                now - last < std::chrono::milliseconds(100))
                return;
            last = now;
            lastStage = stage;
            drawn = true;
            std::fprintf(stderr, "\r\033[Ksyncline %s: %s", verb, what.c_str());
            std::fflush(stderr);
        };
    LoadResult r = JobLoader::load(o);
    if (drawn) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
    if (!r.timeline) {
        std::fprintf(stderr, "syncline %s: %s\n", verb, r.fatalError.c_str());
        return nullptr;
    }
    loadedClock = r.timeline->clockChoice;
    // --clock wall (or the config's view_clock): the hosts it was refused for, on stderr.
    if (loadedClock == ClockChoice::Wall)
        for (const std::string &n : r.timeline->clockNotes)
            if (n.rfind("--clock wall refused", 0) == 0)
                std::fprintf(stderr, "syncline %s: %s\n", verb, n.c_str());
    return r.timeline;
}

void printProblemSummary(const Timeline &tl, const char *verb)
{
    int64_t warnings = 0, errors = 0;
    for (const LoadProblem &p : tl.problems) {
        warnings += p.severity == LoadProblem::Severity::Warning;
        errors += p.severity == LoadProblem::Severity::Error;
    }
    printProblemCounts(errors, warnings, verb);
}

void printProblemCounts(int64_t errors, int64_t warnings, const char *verb)
{
    if (warnings + errors > 0)
        std::fprintf(stderr,
                     "syncline %s: %lld error(s), %lld warning(s) while loading; run `syncline "
                     "check` for details\n",
                     verb, (long long)errors, (long long)warnings);
}

} // namespace syncline::app
