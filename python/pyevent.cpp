// PyEvent — see pyevent.h.
#include "pyevent.h"

#include "timeline/report/csvexporter.h"
#include "timeline/model/timeline.h"

namespace syncline::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

PyEvent::PyEvent(std::shared_ptr<const Timeline> timeline, ClockMode mode, uint32_t worker,
                 uint32_t track, uint32_t index)
    : m_timeline(std::move(timeline)), m_mode(mode), m_worker(worker), m_track(track), m_index(index)
{
}

const Worker &PyEvent::worker() const
{
    return m_timeline->workers[m_worker];
}

const EventTrack &PyEvent::track() const
{
    return worker().tracks[m_track];
}

std::string PyEvent::name() const
{
    return std::string(m_timeline->names.name(track().nameId[m_index]));
}

int PyEvent::depth() const
{
    return track().depth[m_index];
}

uint16_t PyEvent::flags() const
{
    return track().flags[m_index];
}

int64_t PyEvent::startNs() const
{
    return m_timeline->startNs(m_worker, m_track, m_index, m_mode);
}

int64_t PyEvent::endNs() const
{
    return m_timeline->endNs(m_worker, m_track, m_index, m_mode);
}

std::string PyEvent::status() const
{
    return CsvExporter::status(flags());
}

std::string PyEvent::kind() const
{
    const uint16_t f = flags();
    return (f & EventInstant) ? "instant" : (f & EventInterval) ? "interval" : "event";
}

pyb::object PyEvent::args() const
{
    const int64_t id = track().argsId(m_index);
    if (id < 0)
        return pyb::dict();
    return pyb::module_::import("json").attr("loads")(m_timeline->args[size_t(id)]);
}

pyb::dict PyEvent::toDict() const
{
    const Worker &w = worker();
    const int64_t start = startNs(), end = endNs();
    return pyb::dict("rank"_a = w.info.rank, "restart"_a = w.info.restart, "host"_a = w.info.host,
                     "pid"_a = track().pid, "tid"_a = track().tid, "thread"_a = track().threadName,
                     "name"_a = name(), "depth"_a = depth(), "start_ns"_a = start, "end_ns"_a = end,
                     "duration_ns"_a = end - start,
                     "local_start_ns"_a = track().localStart[m_index],
                     "local_end_ns"_a = track().localEnd[m_index], "status"_a = status(),
                     "kind"_a = kind(), "args"_a = args());
}

std::string PyEvent::repr() const
{
    return "Event(rank=" + std::to_string(worker().info.rank) +
           ", name=" + pyb::repr(pyb::str(name())).cast<std::string>() +
           ", depth=" + std::to_string(depth()) + ", start_ns=" + std::to_string(startNs()) +
           ", duration_ns=" + std::to_string(endNs() - startNs()) + ", status='" + status() + "')";
}

void PyEvent::bind(pyb::module_ &m)
{
    pyb::class_<PyEvent>(m, "Event", "One event on the corrected global timeline (a view).")
        .def_property_readonly("rank", [](const PyEvent &e) { return e.worker().info.rank; })
        .def_property_readonly("restart", [](const PyEvent &e) { return e.worker().info.restart; })
        .def_property_readonly("host", [](const PyEvent &e) { return e.worker().info.host; })
        .def_property_readonly("pid", [](const PyEvent &e) { return e.track().pid; })
        .def_property_readonly("tid", [](const PyEvent &e) { return e.track().tid; })
        .def_property_readonly("thread", [](const PyEvent &e) { return e.track().threadName; })
        .def_property_readonly("name", &PyEvent::name)
        .def_property_readonly("depth", &PyEvent::depth)
        .def_property_readonly("start_ns", &PyEvent::startNs)
        .def_property_readonly("end_ns", &PyEvent::endNs)
        .def_property_readonly("duration_ns",
                               [](const PyEvent &e) { return e.endNs() - e.startNs(); })
        .def_property_readonly("local_start_ns",
                               [](const PyEvent &e) { return e.track().localStart[e.index()]; })
        .def_property_readonly("local_end_ns",
                               [](const PyEvent &e) { return e.track().localEnd[e.index()]; })
        .def_property_readonly("status", &PyEvent::status)
        .def_property_readonly("kind", &PyEvent::kind)
        .def_property_readonly("open", [](const PyEvent &e) { return bool(e.flags() & EventOpen); })
        .def_property_readonly("overdue",
                               [](const PyEvent &e) { return bool(e.flags() & EventOverdue); })
        .def_property_readonly("args", &PyEvent::args)
        .def("to_dict", &PyEvent::toDict, "All properties as a dict (e.g. for pandas).")
        .def("__repr__", &PyEvent::repr);
}

} // namespace syncline::py
