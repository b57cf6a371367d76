// ClientBindings — defines syncline.FileTimerClient (over PyClient) in the module.
//
// start_event, end_event and event are vectorcall methods written against the C API
// (METH_FASTCALL): they are the hot path, and pybind11's generic dispatch (overload resolution,
// a kwargs dict built on every call) would cost several times the recorder itself. Everything else
// is a regular pybind11 method. Threading: import time only.
#pragma once

#include <pybind11/pybind11.h>

namespace syncline::py {

class ClientBindings
{
public:
    static void bind(pybind11::module_ &m);
};

} // namespace syncline::py
