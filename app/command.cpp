#include "command.h"

#include <algorithm>

namespace syncline::app {

CommandRegistry &CommandRegistry::instance()
{
    static CommandRegistry registry;
    return registry;
}

bool CommandRegistry::add(Command command)
{
    if (find(command.name))
        return false;
    m_commands.push_back(std::move(command));
    std::sort(m_commands.begin(), m_commands.end(),
              [](const Command &a, const Command &b) { return a.name < b.name; });
    return true;
}

const Command *CommandRegistry::find(const std::string &name) const
{
    for (const Command &c : m_commands)
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace syncline::app
