// TimedFunction — see timedfunction.h.
#include "timedfunction.h"

#include "pyclient.h"

namespace syncline::py {

namespace pyb = pybind11;

namespace {

pyb::object wrap(pyb::object owner, std::string name, pyb::object function)
{
    if (!PyCallable_Check(function.ptr()))
        throw pyb::type_error("timed(): expected a callable to decorate, got " +
                              std::string(Py_TYPE(function.ptr())->tp_name));
    PyClient *client = PyClient::fromSelf(owner.ptr());
    if (!client)
        throw pyb::error_already_set();
    pyb::object wrapper = pyb::cast(TimedFunction(owner, client, std::move(name), function));
    pyb::module_::import("functools").attr("update_wrapper")(wrapper, function);
    return wrapper;
}

std::string qualifiedName(const pyb::object &function)
{
    for (const char *attr : {"__qualname__", "__name__"}) {
        if (pyb::hasattr(function, attr))
            return pyb::str(function.attr(attr)).cast<std::string>();
    }
    return pyb::str(function).cast<std::string>();
}

} // namespace

TimedFunction::TimedFunction(pyb::object owner, PyClient *client, std::string name,
                             pyb::object function)
    : m_owner(std::move(owner)), m_client(client), m_name(std::move(name)),
      m_function(std::move(function))
{
}

pyb::object TimedFunction::call(pyb::args args, pyb::kwargs kwargs)
{
    if (!m_client->start(m_name, nullptr))
        throw pyb::error_already_set();
    PyObject *result = PyObject_Call(m_function.ptr(), args.ptr(), kwargs.ptr());
    if (!result) {
        // End the event but let the function's own exception win.
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (!m_client->end(m_name, nullptr))
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
        throw pyb::error_already_set();
    }
    pyb::object r = pyb::reinterpret_steal<pyb::object>(result);
    if (!m_client->end(m_name, nullptr))
        throw pyb::error_already_set();
    return r;
}

pyb::object TimedFunction::decorate(pyb::object owner, pyb::object nameOrFunction)
{
    if (!nameOrFunction.is_none() && !PyUnicode_Check(nameOrFunction.ptr())) {
        const std::string name = qualifiedName(nameOrFunction);
        return wrap(owner, name, nameOrFunction); // bare @client.timed
    }
    const bool named = !nameOrFunction.is_none();
    const std::string name = named ? nameOrFunction.cast<std::string>() : std::string();
    if (named && name.empty())
        throw pyb::value_error("timed(): empty event name");
    return pyb::cpp_function([owner, name](pyb::object function) {
        return wrap(owner, name.empty() ? qualifiedName(function) : name, function);
    });
}

void TimedFunction::bind(pyb::module_ &m)
{
    pyb::class_<TimedFunction>(m, "TimedFunction", pyb::dynamic_attr(),
                               "A function wrapped by FileTimerClient.timed(): each call is "
                               "recorded as one event.")
        .def("__call__", &TimedFunction::call)
        .def(
            "__get__",
            [](pyb::object self, pyb::object instance, pyb::object) -> pyb::object {
                if (instance.is_none())
                    return self;
                return pyb::reinterpret_steal<pyb::object>(
                    PyMethod_New(self.ptr(), instance.ptr()));
            },
            pyb::arg("instance"), pyb::arg("owner") = pyb::none())
        .def_property_readonly("event_name", &TimedFunction::name)
        .def("__repr__", [](const TimedFunction &f) {
            return "<syncline.TimedFunction event " +
                   pyb::repr(pyb::str(f.name())).cast<std::string>() + ">";
        });
}

} // namespace syncline::py
