// PyEventArgs — see pyeventargs.h.
#include "pyeventargs.h"

#include <string>

namespace syncline::py {

namespace {

bool utf8(PyObject *s, std::string *out)
{
    Py_ssize_t n = 0;
    const char *p = PyUnicode_AsUTF8AndSize(s, &n);
    if (!p)
        return false;
    out->assign(p, size_t(n));
    return true;
}

} // namespace

bool PyEventArgs::convertValue(PyObject *key, PyObject *value, rec::ArgValue *out)
{
    if (PyBool_Check(value)) {
        *out = value == Py_True;
    } else if (PyLong_Check(value)) {
        const long long v = PyLong_AsLongLong(value);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Format(PyExc_OverflowError, "event argument %R: integer %R does not fit in int64",
                         key, value);
            return false;
        }
        *out = int64_t(v);
    } else if (PyFloat_Check(value)) {
        *out = PyFloat_AS_DOUBLE(value);
    } else if (PyUnicode_Check(value)) {
        std::string s;
        if (!utf8(value, &s))
            return false;
        *out = std::move(s);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "event argument %R: expected str, int, float or bool, got %.200s", key,
                     Py_TYPE(value)->tp_name);
        return false;
    }
    return true;
}

bool PyEventArgs::fromDict(PyObject *dict, rec::EventArgs *out)
{
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    out->reserve(size_t(PyDict_Size(dict)));
    while (PyDict_Next(dict, &pos, &key, &value)) {
        std::string k;
        if (!PyUnicode_Check(key) || !utf8(key, &k)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "event argument names must be strings");
            return false;
        }
        rec::ArgValue v;
        if (!convertValue(key, value, &v))
            return false;
        out->emplace_back(std::move(k), std::move(v));
    }
    return true;
}

bool PyEventArgs::fromKwnames(PyObject *const *values, PyObject *kwnames, rec::EventArgs *out)
{
    if (!kwnames)
        return true;
    const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    out->reserve(size_t(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        std::string k;
        if (!utf8(key, &k))
            return false;
        rec::ArgValue v;
        if (!convertValue(key, values[i], &v))
            return false;
        out->emplace_back(std::move(k), std::move(v));
    }
    return true;
}

} // namespace syncline::py
