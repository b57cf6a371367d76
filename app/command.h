// Command — one verb of the `syncline` command line (stats, export, check, open, attach,
// timeserver, ...). Each verb lives in its own app/<verb>command.cpp and registers itself with
// SYNCLINE_REGISTER_COMMAND; app/main.cpp dispatches on argv[1].
//
// Invariants: names are unique; run() returns the process exit status (0 = success) and writes
// errors to stderr. Commands hold no algorithms: they parse arguments and call the layers below.
// Threading: registration happens during static initialisation, before main().
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace syncline::app {

struct Command
{
    std::string name;     // verb, e.g. "stats"
    std::string synopsis; // one line for --help, e.g. "stats PATH... [--json]"
    std::string help;     // a paragraph for `syncline help VERB`
    // argv[0] is the verb itself; the rest are its arguments.
    std::function<int(int argc, char **argv)> run;
};

class CommandRegistry
{
public:
    static CommandRegistry &instance();
    bool add(Command command);
    const Command *find(const std::string &name) const;
    const std::vector<Command> &commands() const { return m_commands; }

private:
    std::vector<Command> m_commands;
};

} // namespace syncline::app

#define SYNCLINE_CONCAT_INNER(a, b) a##b
#define SYNCLINE_CONCAT(a, b) SYNCLINE_CONCAT_INNER(a, b)
// Registers a Command at static-initialisation time: SYNCLINE_REGISTER_COMMAND(makeStatsCommand());
#define SYNCLINE_REGISTER_COMMAND(expr)                                                            \
    static const bool SYNCLINE_CONCAT(syncline_registered_, __LINE__) =                            \
        ::syncline::app::CommandRegistry::instance().add(expr)
