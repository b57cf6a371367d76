// syncline — entry point. Dispatches `syncline VERB ARGS...` to the registered commands.
// `syncline PATH...` (first argument not a verb) is the same as `syncline open PATH...` when
// the viewer is built in.
#include "command.h"

#include <cstdio>
#include <cstring>
#include <string>

#ifndef SYNCLINE_VERSION
#define SYNCLINE_VERSION "0.0.0"
#endif

namespace {

void printUsage(FILE *out)
{
    std::fprintf(out, "usage: syncline VERB [ARGS...]\n       syncline PATH...   (open in the "
                      "viewer)\n\nverbs:\n");
    for (const auto &c : syncline::app::CommandRegistry::instance().commands())
        std::fprintf(out, "  %s\n", c.synopsis.c_str());
    std::fprintf(out, "\n  syncline help VERB    more about one verb\n  syncline --version\n");
}

} // namespace

int main(int argc, char **argv)
{
    auto &registry = syncline::app::CommandRegistry::instance();
    if (argc < 2) {
        if (const auto *open = registry.find("open"))
            return open->run(argc - 1, argv + 1);
        printUsage(stderr);
        return 2;
    }
    const std::string verb = argv[1];
    if (verb == "--help" || verb == "-h") {
        printUsage(stdout);
        return 0;
    }
    if (verb == "--version") {
        std::printf("syncline %s (log format v1)\n", SYNCLINE_VERSION);
        return 0;
    }
    if (verb == "help") {
        if (argc < 3 || std::strcmp(argv[2], "help") == 0) {
            printUsage(stdout);
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
    if (verb.rfind("-", 0) != 0) {
        if (const auto *open = registry.find("open"))
            return open->run(argc, argv); // argv[0] stands in for the verb
    }
    std::fprintf(stderr, "syncline: unknown verb '%s' (see syncline --help)\n", verb.c_str());
    return 2;
}
