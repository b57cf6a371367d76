// EventScope — what `client.event(name, **args)` returns: a context manager whose __enter__
// starts the event and whose __exit__ ends it, also when the body raises (the body's exception
// then propagates unchanged). If the end fails (an inner event was left open inside the body),
// __exit__ raises syncline.TimerError and the events stay open, as with end_event.
//
// Invariant: holds a strong reference to its FileTimerClient, so the client outlives the scope.
// Threading: enter and exit on the same thread (events nest per thread).
#pragma once

#include "recorder/eventargs.h"

#include <pybind11/pybind11.h>

#include <string>

namespace syncline::py {

class PyClient;

class EventScope
{
public:
    EventScope(pybind11::object owner, PyClient *client, std::string name, rec::EventArgs args);

    // False with a Python error set (see PyClient::start/end).
    bool tryEnter();
    bool tryExit();
    const std::string &name() const { return m_name; }

    static void bind(pybind11::module_ &m);

private:
    pybind11::object m_owner; // the Python FileTimerClient
    PyClient *m_client;
    std::string m_name;
    rec::EventArgs m_args;
};

} // namespace syncline::py
