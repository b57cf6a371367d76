// syncline — entry point. Dispatches `syncline VERB ARGS...` to the registered commands.
// `syncline PATH...` (first argument neither a verb nor an option) and plain `syncline` are
// `syncline open PATH...`. SYNCLINE_VERSION comes from the build (app/CMakeLists.txt).
#include "command.h"

#include "timeline/load/openfilelimit.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace {

void printUsage()
{
    std::printf("usage: syncline VERB [ARGS...]\n"
                "       syncline PATH...   (open in the viewer)\n\nverbs:\n");
    for (const auto &c : syncline::app::CommandRegistry::instance().commands())
        std::printf("  %s\n", c.synopsis.c_str());
    std::printf("\n  syncline help VERB    more about one verb\n  syncline --version\n");
}

// Whatever a verb printed must have reached stdout: `syncline stats --json > /dev/full` (disk
// full, a closed pipe) fails with a message and status 1 instead of exiting 0.
// Not for `timeserver`: its stats lines are best-effort by design (a failed write stops them,
// not the server; docs/timeserver.md), and it says so on stderr itself.
int finish(int status, const char *verb)
{
    if (std::strcmp(verb, "timeserver") == 0)
        return status;
    errno = 0;
    std::cout.flush();
    if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
        const int err = errno;
        std::fprintf(stderr, "syncline%s%s: cannot write to standard output: %s\n",
                     *verb ? " " : "", verb,
                     err ? std::strerror(err) : "write error (disk full, or the reader went away)");
        return status == 0 ? 1 : status;
    }
    return status;
}

int run(int argc, char **argv);

} // namespace

int main(int argc, char **argv)
{
    // Jobs of more than about a thousand workers need more descriptors than the usual soft
    // limit; raised once here for every verb and the viewer.
    syncline::raiseOpenFileLimit();
    return finish(run(argc, argv), argc >= 2 && argv[1][0] != '-' ? argv[1] : "");
}

namespace {

int run(int argc, char **argv)
{
    const auto &registry = syncline::app::CommandRegistry::instance();
    const auto &open = *registry.find("open"); // app/opencommand.cpp is always compiled in
    if (argc < 2)
        return open.run(argc - 1, argv + 1);
    const std::string verb = argv[1];
    if (verb == "--help" || verb == "-h") {
        printUsage();
        return 0;
    }
    if (verb == "--version") {
        std::printf("syncline %s (log format v1)\n", SYNCLINE_VERSION);
        return 0;
    }
    if (verb == "help") {
        if (argc < 3 || std::strcmp(argv[2], "help") == 0) {
            printUsage();
            return 0;
        }
        const auto *c = registry.find(argv[2]);
        if (!c) {
            std::fprintf(stderr, "syncline: unknown verb '%s'\n", argv[2]);
            return 2;
        }
        std::printf("usage: syncline %s\n\n%s\n", c->synopsis.c_str(), c->help.c_str());
        return 0;
    }
    if (const auto *c = registry.find(verb))
        return c->run(argc - 1, argv + 1);
    if (verb.rfind("-", 0) != 0)
        return open.run(argc, argv); // argv[0] stands in for the verb
    std::fprintf(stderr, "syncline: unknown verb '%s' (see syncline --help)\n", verb.c_str());
    return 2;
}

} // namespace
