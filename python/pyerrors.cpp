// PyErrors — see pyerrors.h.
#include "pyerrors.h"

#include "recorder/filetimerclient.h"
#include "recorder/timerconfig.h"

#include <pybind11/pybind11.h>

namespace syncline::py {

PyObject *PyErrors::error = nullptr;
PyObject *PyErrors::timerError = nullptr;
PyObject *PyErrors::configError = nullptr;
PyObject *PyErrors::loadError = nullptr;

namespace {

PyObject *newType(pybind11::module_ &m, const char *name, PyObject *base, const char *doc)
{
    const std::string full = std::string("syncline.") + name;
    PyObject *type = PyErr_NewExceptionWithDoc(full.c_str(), doc, base, nullptr);
    if (!type)
        throw pybind11::error_already_set();
    m.add_object(name, pybind11::handle(type)); // the module keeps a reference too
    return type;
}

} // namespace

void PyErrors::registerTypes(pybind11::module_ &m)
{
    error = newType(m, "Error", PyExc_RuntimeError, "Base class of syncline's exceptions.");
    timerError = newType(m, "TimerError", error,
                         "Misuse of the recorder API: ending an event that is not the innermost "
                         "open event, an empty name, an interval whose end is before its start.");
    configError = newType(m, "ConfigError", error,
                          "Bad timer_config.json, log path template or environment variable; "
                          "the message names the file and key.");
    loadError = newType(m, "LoadError", error, "Nothing could be loaded from the given paths.");
    pybind11::register_exception_translator([](std::exception_ptr p) {
        if (!p)
            return;
        try {
            std::rethrow_exception(p);
        } catch (const rec::TimerError &e) {
            PyErr_SetString(timerError, e.what());
        } catch (const rec::ConfigError &e) {
            PyErr_SetString(configError, e.what());
        } catch (const LoadError &e) {
            PyErr_SetString(loadError, e.what());
        } catch (const PythonErrorPending &) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_SystemError, "syncline: lost Python error");
        }
    });
}

void PyErrors::setCurrent()
{
    try {
        throw;
    } catch (const PythonErrorPending &) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "syncline: lost Python error");
    } catch (pybind11::error_already_set &e) {
        e.restore();
    } catch (const rec::TimerError &e) {
        PyErr_SetString(timerError, e.what());
    } catch (const rec::ConfigError &e) {
        PyErr_SetString(configError, e.what());
    } catch (const LoadError &e) {
        PyErr_SetString(loadError, e.what());
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "syncline: unknown C++ exception");
    }
}

} // namespace syncline::py
