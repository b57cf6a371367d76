// PyEvent — one event of a loaded Timeline as seen from Python (syncline.Event): a view
// (timeline, worker, track, index), so building a list of them copies no event data. Every
// property reads the Timeline; times are ns.
//
//   start_ns / end_ns    global (reference clock) ns in the timeline's mode (corrected or raw)
//   duration_ns          end_ns - start_ns (0 for instants; up to the end of data when open)
//   local_start_ns / local_end_ns   the stamps in the worker's own clock
//   status               "complete", "open" (no end recorded) or "overdue" (CsvExporter::status)
//   kind                 "event" (B/E), "interval" (X) or "instant" (I)
// Invariant: the Timeline is shared and immutable while views exist.
// Threading: needs the GIL like any Python object; the Timeline itself is only read.
#pragma once

#include "timeline/model/clockmode.h"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

namespace syncline {
class Timeline;
class EventTrack;
class Worker;
} // namespace syncline

namespace syncline::py {

class PyEvent
{
public:
    PyEvent(std::shared_ptr<const Timeline> timeline, ClockMode mode, uint32_t worker, uint32_t track,
            uint32_t index);

    const Worker &worker() const;
    const EventTrack &track() const;
    uint32_t index() const { return m_index; }
    std::string name() const;
    int depth() const;
    uint16_t flags() const;
    int64_t startNs() const;
    int64_t endNs() const;
    std::string status() const;
    std::string kind() const;
    pybind11::object args() const; // dict, empty when the event has none
    pybind11::dict toDict() const;
    std::string repr() const;

    static void bind(pybind11::module_ &m);

private:
    std::shared_ptr<const Timeline> m_timeline;
    ClockMode m_mode;
    uint32_t m_worker;
    uint32_t m_track;
    uint32_t m_index;
};

} // namespace syncline::py
