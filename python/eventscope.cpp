// EventScope — see eventscope.h.
#include "eventscope.h"

#include "pyclient.h"
#include "pyinstance.h"

namespace syncline::py {

namespace pyb = pybind11;

EventScope::EventScope(pyb::object owner, PyClient *client, std::string name, rec::EventArgs args)
    : m_owner(std::move(owner)), m_client(client), m_name(std::move(name)), m_args(std::move(args))
{
}

namespace {

// __enter__ / __exit__ as vectorcall methods: a `with` block costs two C calls, not two
// pybind11 dispatches.
PyObject *enterFast(PyObject *self, PyObject *const *, Py_ssize_t)
{
    EventScope *s = instanceValue<EventScope>(self, "EventScope");
    if (!s || !s->tryEnter())
        return nullptr;
    return Py_NewRef(self);
}

PyObject *exitFast(PyObject *self, PyObject *const *, Py_ssize_t)
{
    EventScope *s = instanceValue<EventScope>(self, "EventScope");
    if (!s || !s->tryExit())
        return nullptr;
    Py_RETURN_FALSE; // never swallows the body's exception
}

PyMethodDef g_scopeMethods[] = {
    {"__enter__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(enterFast)),
     METH_FASTCALL, "Starts the event."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(exitFast)),
     METH_FASTCALL, "Ends the event; returns False so an exception from the body propagates."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

bool EventScope::tryEnter()
{
    return m_client->start(m_name, &m_args);
}

bool EventScope::tryExit()
{
    return m_client->end(m_name, nullptr);
}

void EventScope::bind(pyb::module_ &m)
{
    pyb::class_<EventScope> cls(m, "EventScope",
                                "Context manager returned by FileTimerClient.event(); starts the "
                                "event on entry and ends it on exit (also on an exception).");
    addFastMethods(cls, g_scopeMethods);
    cls.def_property_readonly("name", &EventScope::name).def("__repr__", [](const EventScope &s) {
        return "<syncline.EventScope " + pyb::repr(pyb::str(s.name())).cast<std::string>() + ">";
    });
}

} // namespace syncline::py
