// PyColumns — the timeline as columns of numpy arrays (Timeline.columns(), counter_columns(),
// link_columns(), collective_columns()), for analysis without one Python object per event.
//
// Every column is a fresh numpy array written straight from the C++ tracks (the events of one
// thread are one EventTrack's arrays; a job has many, so concatenating them is a copy — no column
// is a view of C++ memory, which also keeps the arrays valid after the Timeline is gone). Nothing
// else is allocated per event: the arrays are allocated once at their final size and filled with
// the GIL released, workers spread over the machine's threads.
// Row order: workers by (rank, restart), then their tracks, then events in track order (start
// order within a thread) — the events CSV's order. `parent` is a row index into the same columns.
// numpy is imported only when a columns function is called: `import syncline` never needs it.
// Threading: needs the GIL; the fill runs without it (the Timeline is immutable).
#pragma once

#include "timeline/model/clockmode.h"

#include <pybind11/pybind11.h>

#include <memory>

namespace syncline {
class Timeline;
}

namespace syncline::py {

class PyColumns
{
public:
    // `fields`: None = every column; else the names wanted (ValueError on an unknown one).
    static pybind11::dict events(const std::shared_ptr<const Timeline> &tl, ClockMode mode,
                                 const pybind11::object &fields);
    static pybind11::dict counters(const std::shared_ptr<const Timeline> &tl, ClockMode mode);
    static pybind11::dict links(const std::shared_ptr<const Timeline> &tl, ClockMode mode);
    // The diagnosis's collective instances, one row per (instance, worker) — the rows of the
    // SQLite `collectives` table, in its order (report/diagnosis.h, Diagnosis::arrivals).
    static pybind11::dict collectives(const std::shared_ptr<const Timeline> &tl, ClockMode mode);
};

} // namespace syncline::py
