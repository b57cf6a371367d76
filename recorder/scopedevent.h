// ScopedEvent — RAII begin/end of one event on a FileTimerClient.
//
// The constructor calls startEvent(name[, args]), the destructor endEvent(name). The name must
// outlive the scope (a string literal or a string that lives longer). If the scope's event is
// not the innermost open event when the destructor runs (an inner event was left open), the
// TimerError is swallowed — a destructor must not throw — and the events stay open; call
// end() explicitly to get the error. Threading: use on one thread, like the events it records.
#pragma once

#include "recorder/filetimerclient.h"

#include <string_view>

namespace syncline::rec {

class ScopedEvent
{
public:
    ScopedEvent(FileTimerClient &client, std::string_view name) : m_client(&client), m_name(name)
    {
        m_client->startEvent(m_name);
    }
    ScopedEvent(FileTimerClient &client, std::string_view name, const EventArgs &args)
        : m_client(&client), m_name(name)
    {
        m_client->startEvent(m_name, args);
    }
    ~ScopedEvent()
    {
        try {
            end();
        } catch (const TimerError &) {
        }
    }
    ScopedEvent(const ScopedEvent &) = delete;
    ScopedEvent &operator=(const ScopedEvent &) = delete;

    // Ends the event now (throws TimerError on misnesting); the destructor then does nothing.
    void end()
    {
        if (!m_client)
            return;
        FileTimerClient *c = m_client;
        m_client = nullptr;
        c->endEvent(m_name);
    }

private:
    FileTimerClient *m_client;
    std::string_view m_name;
};

} // namespace syncline::rec
