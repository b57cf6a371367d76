// TimedFunction — what `@client.timed(name)` turns a function into: calling it records one
// event `name` around the call (started before, ended after, also when the function raises).
// functools.update_wrapper copies __name__, __doc__, __wrapped__, so it looks like the wrapped
// function; __get__ makes it bind like a function, so decorating methods works.
//
// If the wrapped function raises, the event is ended and the function's exception propagates;
// if ending fails then (the function left an inner event open) the function's exception still
// wins and the events stay open. If on_event_start raises, the function is not called.
// Invariant: holds strong references to the client and the function.
// Threading: a call starts and ends its event on the calling thread.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace syncline::py {

class PyClient;

class TimedFunction
{
public:
    TimedFunction(pybind11::object owner, PyClient *client, std::string name,
                  pybind11::object function);

    pybind11::object call(pybind11::args args, pybind11::kwargs kwargs);
    const std::string &name() const { return m_name; }

    static void bind(pybind11::module_ &m);
    // What client.timed(...) returns: a TimedFunction when `nameOrFunction` is callable (bare
    // @client.timed; event name = the function's __qualname__), else a decorator.
    static pybind11::object decorate(pybind11::object owner, pybind11::object nameOrFunction);

private:
    pybind11::object m_owner;
    PyClient *m_client;
    std::string m_name;
    pybind11::object m_function;
};

} // namespace syncline::py
