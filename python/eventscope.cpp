// EventScope — see eventscope.h.
#include "eventscope.h"

#include "pyclient.h"

namespace syncline::py {

namespace pyb = pybind11;

EventScope::EventScope(pyb::object owner, PyClient *client, std::string name,
                       rec::EventArgs args)
    : m_owner(std::move(owner)), m_client(client), m_name(std::move(name)),
      m_args(std::move(args))
{
}

void EventScope::enter()
{
    if (!m_client->start(m_name, &m_args))
        throw pyb::error_already_set();
}

void EventScope::exit()
{
    if (!m_client->end(m_name, nullptr))
        throw pyb::error_already_set();
}

void EventScope::bind(pyb::module_ &m)
{
    pyb::class_<EventScope>(m, "EventScope",
                            "Context manager returned by FileTimerClient.event(); starts the "
                            "event on entry and ends it on exit (also on an exception).")
        .def(
            "__enter__",
            [](pyb::object self) {
                self.cast<EventScope &>().enter();
                return self;
            },
            "Starts the event.")
        .def(
            "__exit__",
            [](EventScope &s, pyb::object, pyb::object, pyb::object) {
                s.exit();
                return false; // never swallows the body's exception
            },
            "Ends the event; returns False so an exception from the body propagates.")
        .def_property_readonly("name", &EventScope::name)
        .def("__repr__", [](const EventScope &s) {
            return "<syncline.EventScope " + pyb::repr(pyb::str(s.name())).cast<std::string>() +
                   ">";
        });
}

} // namespace syncline::py
