// syncline — entry point. Dispatches `syncline VERB ARGS...` to the registered commands.
// `syncline PATH...` (first argument neither a verb nor an option) and plain `syncline` are
// `syncline open PATH...`. SYNCLINE_VERSION comes from the build (app/CMakeLists.txt).
#include "command.h"

#include <cstdio>
#include <cstring>
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

} // namespace

int main(int argc, char **argv)
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
