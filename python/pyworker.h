// PyWorker — one worker process of a loaded Timeline as seen from Python (syncline.Worker): a
// view (timeline, worker index). Identity from the log header, its threads, and its clock:
// what the sync engine estimated (method, offset, drift, guaranteed bound, statistical band)
// and, for the demo/test facility, the true synthetic skew from the header (`skew`, or None).
// Threading: needs the GIL; the Timeline is only read.
#pragma once

#include "timeline/model/clockmode.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>

namespace syncline {
class Timeline;
class Worker;
} // namespace syncline

namespace syncline::py {

class PyWorker
{
public:
    PyWorker(std::shared_ptr<const Timeline> timeline, ClockMode mode, uint32_t worker);

    const Worker &worker() const;
    pybind11::dict clock() const;
    pybind11::object skew() const; // dict or None
    pybind11::list threads() const;
    pybind11::list events() const;   // this worker's events, by start
    pybind11::list counters() const; // [{name, series, label, times_ns, local_ns, values}, ...]

    static void bind(pybind11::module_ &m);

private:
    std::shared_ptr<const Timeline> m_timeline;
    ClockMode m_mode;
    uint32_t m_worker;
};

} // namespace syncline::py
