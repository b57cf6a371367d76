// pyinstance.h — the C++ object inside a pybind11 instance, for the vectorcall methods that
// bypass pybind11's dispatch (clientbindings.cpp, eventscope.cpp). The caller guarantees that
// `self` is an instance of the bound type (a method descriptor checks that before the call).
// Returns null with a Python TypeError set when the instance's __init__ has not run.
// Threading: GIL held.
#pragma once

#include <pybind11/pybind11.h>

namespace syncline::py {

template <typename T> T *instanceValue(PyObject *self, const char *typeName)
{
    auto *inst = reinterpret_cast<pybind11::detail::instance *>(self);
    void *value = inst->simple_layout ? inst->simple_value_holder[0]
                                      : inst->get_value_and_holder().value_ptr();
    if (!value)
        PyErr_Format(PyExc_TypeError,
                     "%s is not initialised (a subclass's __init__ must call the base __init__)",
                     typeName);
    return static_cast<T *>(value);
}

// Adds METH_FASTCALL methods to a pybind11 type as method descriptors (replacing any of the
// same name). Throws pybind11::error_already_set on failure.
inline void addFastMethods(pybind11::handle type, PyMethodDef *defs)
{
    for (PyMethodDef *def = defs; def->ml_name; ++def) {
        PyObject *descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject *>(type.ptr()), def);
        if (!descr || PyObject_SetAttrString(type.ptr(), def->ml_name, descr) != 0) {
            Py_XDECREF(descr);
            throw pybind11::error_already_set();
        }
        Py_DECREF(descr);
    }
}

} // namespace syncline::py
