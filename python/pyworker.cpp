// PyWorker — see pyworker.h.
#include "pyworker.h"

#include "pyevent.h"

#include "timeline/model/timeline.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <tuple>

namespace syncline::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

PyWorker::PyWorker(std::shared_ptr<const Timeline> timeline, ClockMode mode, uint32_t worker)
    : m_timeline(std::move(timeline)), m_mode(mode), m_worker(worker)
{
}

const Worker &PyWorker::worker() const
{
    return m_timeline->workers[m_worker];
}

pyb::dict PyWorker::clock() const
{
    const sync::WorkerClockResult &c = worker().clock;
    const WallClockStatus &wall = worker().wall;
    pyb::dict d("method"_a = sync::methodName(c.method), "offset_ns"_a = c.offsetNs,
                "drift_ppm"_a = c.driftPpm, "bound_ns"_a = c.boundNs, "band_ns"_a = c.bandNs,
                "assumed_bound_ns"_a = c.assumedBoundNs, "samples"_a = c.sampleCount,
                "domain"_a = c.domain, "flags"_a = c.flags,
                "source"_a = worker().info.clockSource);
    // The wall-clock check, as `stats --json` names it (docs/cli.md).
    d["wall_used"] = wall.used;
    d["wall_verdict"] = sync::wallVerdictName(wall.verdict);
    d["wall_offset_ns"] = wall.offsetNs;
    d["wall_band_ns"] = wall.bandNs;
    d["wall_reason"] = wall.reason;
    return d;
}

pyb::object PyWorker::skew() const
{
    const WorkerInfo &i = worker().info;
    if (!i.hasSkew)
        return pyb::none();
    return pyb::dict("offset_ns"_a = i.skewOffsetNs, "drift_ppm"_a = i.skewDriftPpm);
}

pyb::list PyWorker::threads() const
{
    pyb::list out;
    for (const EventTrack &t : worker().tracks)
        out.append(pyb::make_tuple(t.tid, t.threadName));
    return out;
}

pyb::list PyWorker::events() const
{
    std::vector<std::tuple<int64_t, int, uint32_t, uint32_t>> order;
    const Worker &w = worker();
    for (uint32_t t = 0; t < w.tracks.size(); ++t)
        for (uint32_t i = 0; i < w.tracks[t].count(); ++i)
            order.emplace_back(m_timeline->startNs(m_worker, t, i, m_mode), w.tracks[t].depth[i], t,
                               i);
    std::sort(order.begin(), order.end());
    pyb::list out;
    for (const auto &[start, depth, t, i] : order)
        out.append(pyb::cast(PyEvent(m_timeline, m_mode, m_worker, t, i)));
    return out;
}

pyb::list PyWorker::counters() const
{
    pyb::list out;
    const sync::ClockMap &map = worker().map(m_mode);
    for (const CounterTrack &c : worker().counters) {
        std::vector<int64_t> times(c.count());
        for (size_t i = 0; i < c.count(); ++i)
            times[i] = map.toGlobal(c.localTs[i]);
        out.append(pyb::dict("name"_a = c.name, "series"_a = c.series, "label"_a = c.label(),
                             "times_ns"_a = times, "local_ns"_a = c.localTs, "values"_a = c.value));
    }
    return out;
}

void PyWorker::bind(pyb::module_ &m)
{
    pyb::class_<PyWorker>(m, "Worker", "One worker process of a Timeline (a view).")
        .def_property_readonly("rank", [](const PyWorker &w) { return w.worker().info.rank; })
        .def_property_readonly("local_rank",
                               [](const PyWorker &w) { return w.worker().info.localRank; })
        .def_property_readonly("world_size",
                               [](const PyWorker &w) { return w.worker().info.worldSize; })
        .def_property_readonly("restart", [](const PyWorker &w) { return w.worker().info.restart; })
        .def_property_readonly("role", [](const PyWorker &w) { return w.worker().info.role; })
        .def_property_readonly("run_id", [](const PyWorker &w) { return w.worker().info.runId; })
        .def_property_readonly("host", [](const PyWorker &w) { return w.worker().info.host; })
        .def_property_readonly("boot_id", [](const PyWorker &w) { return w.worker().info.bootId; })
        .def_property_readonly("pid", [](const PyWorker &w) { return w.worker().info.pid; })
        .def_property_readonly("source_file",
                               [](const PyWorker &w) { return w.worker().info.sourceFile; })
        .def_property_readonly("closed_cleanly",
                               [](const PyWorker &w) { return w.worker().info.closedCleanly; })
        .def_property_readonly("dropped_events",
                               [](const PyWorker &w) { return w.worker().info.droppedEvents; })
        .def_property_readonly("event_count",
                               [](const PyWorker &w) { return w.worker().eventCount(); })
        .def_property_readonly("label", [](const PyWorker &w) { return w.worker().label(); })
        .def_property_readonly("clock", &PyWorker::clock,
                               "The engine's estimate: method, offset_ns (global - local at the "
                               "first event), drift_ppm, bound_ns, band_ns, samples, domain.")
        .def_property_readonly("skew", &PyWorker::skew,
                               "True synthetic skew from the header (test/demo facility) or None.")
        .def_property_readonly("threads", &PyWorker::threads, "[(tid, name), ...]")
        .def_property_readonly("events", &PyWorker::events)
        .def_property_readonly("counters", &PyWorker::counters,
                               "[{name, series, label, times_ns (global, this view's clock mode), "
                               "local_ns, values}, ...], one per counter series, by (pid, name, "
                               "series)")
        .def("__repr__",
             [](const PyWorker &w) { return "<syncline.Worker " + w.worker().label() + ">"; });
}

} // namespace syncline::py
