// PyEventArgs — converts Python keyword arguments (`**args` of start_event, instant, ...) into
// the recorder's EventArgs.
//
// Accepted values: str, bool, int (must fit int64), float. bool is checked before int (it is an
// int subclass in Python). Anything else raises TypeError naming the key; an int out of range
// raises OverflowError. Keys keep the caller's order.
// Threading: call with the GIL held.
#pragma once

#include "recorder/eventargs.h"

#include <Python.h>

namespace syncline::py {

class PyEventArgs
{
public:
    // From a dict of keyword arguments; false with a Python exception set on bad input.
    static bool fromDict(PyObject *dict, rec::EventArgs *out);
    // From vectorcall keyword names + values (kwnames may be null); same contract.
    static bool fromKwnames(PyObject *const *values, PyObject *kwnames, rec::EventArgs *out);
    // One value; false with a Python exception set.
    static bool convertValue(PyObject *key, PyObject *value, rec::ArgValue *out);
};

} // namespace syncline::py
