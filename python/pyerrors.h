// PyErrors — the module's exception types and the translation of C++ exceptions into them.
//
//   syncline.Error (RuntimeError)   base of the three below
//   syncline.TimerError             misuse: end_event of an event that is not open, empty name,
//                                   record_interval with end < start (rec::TimerError)
//   syncline.ConfigError            bad timer_config.json / log path / environment
//   (rec::ConfigError) syncline.LoadError              load_timeline / get_timeline could load
//   nothing
//
// PythonErrorPending is thrown through C++ code (the recorder) when a Python callback raised:
// the Python error is already set and must simply be returned to the interpreter.
// Threading: setCurrent() needs the GIL; the type objects are created once at import.
#pragma once

#include <Python.h>

#include <stdexcept>
#include <string>

namespace pybind11 {
class module_;
}

namespace syncline::py {

struct PythonErrorPending
{
};

class LoadError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class PyErrors
{
public:
    static void registerTypes(pybind11::module_ &m);
    // Sets the Python error for the exception being handled (call inside a catch block).
    static void setCurrent();

    static PyObject *error;
    static PyObject *timerError;
    static PyObject *configError;
    static PyObject *loadError;
};

} // namespace syncline::py
