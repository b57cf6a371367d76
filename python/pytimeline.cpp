// PyTimeline — see pytimeline.h.
#include "pytimeline.h"

#include "pycolumns.h"
#include "pyerrors.h"
#include "pyevent.h"
#include "pyworker.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/openfilelimit.h"
#include "timeline/model/timeline.h"
#include "timeline/report/compare.h"
#include "timeline/report/compareexporter.h"
#include "timeline/report/comparegate.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/diagnosisexporter.h"
#include "timeline/report/htmlreport.h"
#include "timeline/report/perfettoexporter.h"
#include "timeline/report/sqliteexporter.h"
#include "timeline/report/stats.h"
#include "timeline/report/wallclocksummary.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <sstream>
#include <tuple>

namespace syncline::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

PyTimeline::PyTimeline(std::shared_ptr<const Timeline> timeline, ClockMode mode)
    : m_timeline(std::move(timeline)), m_mode(mode), m_events(pyb::none())
{
}

pyb::list PyTimeline::events()
{
    if (!m_events.is_none())
        return m_events;
    const Timeline &tl = *m_timeline;
    std::vector<std::tuple<int64_t, int, int, uint32_t, uint32_t, uint32_t>> order;
    order.reserve(tl.eventCount());
    for (uint32_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &worker = tl.workers[w];
        for (uint32_t t = 0; t < worker.tracks.size(); ++t)
            for (uint32_t i = 0; i < worker.tracks[t].count(); ++i)
                order.emplace_back(tl.startNs(w, t, i, m_mode), worker.info.rank,
                                   worker.tracks[t].depth[i], w, t, i);
    }
    std::sort(order.begin(), order.end());
    pyb::list out(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const auto &[start, rank, depth, w, t, i] = order[k];
        out[k] = pyb::cast(PyEvent(m_timeline, m_mode, w, t, i));
    }
    m_events = out;
    return out;
}

pyb::list PyTimeline::workers() const
{
    pyb::list out;
    for (uint32_t w = 0; w < m_timeline->workers.size(); ++w)
        out.append(pyb::cast(PyWorker(m_timeline, m_mode, w)));
    return out;
}

pyb::list PyTimeline::problems() const
{
    pyb::list out;
    for (const LoadProblem &p : m_timeline->problems)
        out.append(p.toString());
    return out;
}

pyb::list PyTimeline::problemKinds() const
{
    pyb::list out;
    for (const LoadProblem &p : m_timeline->problems)
        out.append(std::string(LoadProblem::kindKey(p.kind)));
    return out;
}

pyb::list PyTimeline::stats(bool perRank) const
{
    StatsQuery q;
    q.perRank = perRank;
    q.mode = m_mode;
    pyb::list out;
    for (const StatsRow &r : Stats::compute(*m_timeline, q)) {
        out.append(pyb::dict("name"_a = std::string(m_timeline->names.name(r.nameId)),
                             "rank"_a = r.rank ? pyb::object(pyb::int_(*r.rank)) : pyb::none(),
                             "count"_a = r.count, "total_ns"_a = r.totalNs, "mean_ns"_a = r.meanNs,
                             "p50_ns"_a = r.p50Ns, "p95_ns"_a = r.p95Ns, "p99_ns"_a = r.p99Ns,
                             "max_ns"_a = r.maxNs));
    }
    return out;
}

pyb::object PyTimeline::diagnose(const std::string &step, pyb::object range) const
{
    DiagnoseQuery q;
    q.mode = m_mode;
    q.stepName = step;
    q.cells = false; // the viewer's heat map cells; not in the dict
    if (!range.is_none()) {
        const auto r = range.cast<std::pair<int64_t, int64_t>>();
        if (r.second < r.first)
            throw pyb::value_error(
                "diagnose(): range must be (begin_ns, end_ns) with begin <= end");
        q.useRange = true; // ns from origin_ns, as `--range` and the CSV's start_ns
        q.beginNs = m_timeline->originNs(m_mode) + r.first;
        q.endNs = m_timeline->originNs(m_mode) + r.second;
    }
    std::ostringstream json;
    {
        pyb::gil_scoped_release release;
        DiagnosisExporter::writeJson(*m_timeline, Diagnoser::run(*m_timeline, q), json);
    }
    return pyb::module_::import("json").attr("loads")(json.str());
}

pyb::object PyTimeline::compare(const PyTimeline &other, const std::string &anchorText,
                                const std::vector<std::string> &failIf) const
{
    if (other.m_mode != m_mode)
        throw pyb::value_error("compare(): the two timelines are in different clock modes");
    std::vector<GateCondition> gate;
    for (const std::string &text : failIf) {
        GateCondition c;
        std::string why;
        if (!CompareGate::parse(text, &c, &why))
            throw pyb::value_error("compare(): fail_if " + why);
        gate.push_back(std::move(c));
    }
    CompareAnchor anchor;
    std::string error;
    if (!CompareAnchor::parse(anchorText, &anchor, &error))
        throw pyb::value_error("compare(): anchor: " + error);
    CompareInfo info;
    info.a = CompareRunInfo::of(*m_timeline, m_mode);
    info.b = CompareRunInfo::of(*other.m_timeline, m_mode);
    info.pathsA = m_paths;
    info.pathsB = other.m_paths;
    info.mode = m_mode;
    info.anchor = anchor;
    for (int side = 0; side < 2; ++side) {
        std::string why;
        const auto t = anchor.find(side ? *other.m_timeline : *m_timeline, m_mode, &why);
        if (!t)
            throw pyb::value_error("compare(): anchor " + anchor.text() + ": run " +
                                   (side ? "B" : "A") + ": " + why);
        (side ? info.anchorBNs : info.anchorANs) = *t;
    }
    std::ostringstream json;
    {
        pyb::gil_scoped_release release;
        CompareQuery q;
        q.mode = m_mode;
        q.anchor = anchor;
        const CompareResult result = Compare::compute(*m_timeline, *other.m_timeline, q);
        const std::vector<GateOutcome> outcomes = CompareGate::evaluate(result, gate);
        for (const GateOutcome &o : outcomes)
            if (o.matched.empty())
                error = "compare(): fail_if '" + o.condition.spec +
                        "': no complete event named '" + o.condition.name + "' in A or B";
        if (error.empty())
            CompareExporter::writeJson(result, info, json, gate.empty() ? nullptr : &outcomes);
    }
    if (!error.empty())
        throw pyb::value_error(error);
    return pyb::module_::import("json").attr("loads")(json.str());
}

size_t PyTimeline::size() const
{
    return m_timeline->eventCount();
}

RankSet PyTimeline::ranksArg(const pyb::object &ranks)
{
    if (ranks.is_none())
        return {};
    RankSet out;
    if (pyb::isinstance<pyb::str>(ranks)) {
        std::string why;
        if (!RankSet::parse(ranks.cast<std::string>(), out, &why))
            throw pyb::value_error("ranks: " + why);
        return out;
    }
    if (!pyb::hasattr(ranks, "__iter__"))
        throw pyb::type_error("ranks: expected None, a str like \"0-63,512\" or an iterable of "
                              "ints");
    std::vector<int> list;
    for (pyb::handle h : ranks) {
        if (!pyb::isinstance<pyb::int_>(h) || pyb::isinstance<pyb::bool_>(h))
            throw pyb::type_error("ranks: expected ints, got " +
                                  std::string(pyb::str(pyb::repr(h))));
        const long long v = h.cast<long long>();
        if (v < 0 || v > INT32_MAX)
            throw pyb::value_error("ranks: " + std::to_string(v) + " is not a rank (0.." +
                                   std::to_string(INT32_MAX) + ")");
        list.push_back(int(v));
    }
    if (list.empty())
        throw pyb::value_error("ranks: empty (None loads every rank)");
    return RankSet::of(list);
}

PyTimeline PyTimeline::load(const std::vector<std::string> &paths, const std::string &alignOn,
                            const std::optional<std::string> &clock, bool align,
                            const RankSet &ranks)
{
    if (paths.empty())
        throw pyb::type_error("load_timeline() needs at least one path");
    const std::optional<ClockChoice> choice =
        clock ? clockChoiceFromName(*clock) : std::optional<ClockChoice>();
    if (clock && !choice)
        throw pyb::value_error("load_timeline(): clock must be \"corrected\", \"wall\" or "
                               "\"raw\", got \"" + *clock + "\"");
    LoadOptions options;
    options.clock = choice;
    options.paths = paths;
    if (!align && !alignOn.empty())
        throw pyb::value_error("load_timeline(): align_on and align=False contradict each other");
    options.alignOn = alignOn;
    options.alignCollectives = align;
    options.ranks = ranks;
    raiseOpenFileLimit(); // a job of more logs than the usual soft limit of descriptors
    LoadResult result;
    {
        pyb::gil_scoped_release release;
        result = JobLoader::load(options);
    }
    if (!result.timeline)
        throw LoadError("load_timeline: " + (result.fatalError.empty()
                                                 ? std::string("nothing loaded")
                                                 : result.fatalError));
    PyTimeline out(result.timeline, modeOf(result.timeline->clockChoice));
    out.m_paths = paths;
    return out;
}

void PyTimeline::bind(pyb::module_ &m)
{
    PyEvent::bind(m);
    PyWorker::bind(m);
    pyb::class_<PyTimeline>(m, "Timeline", "The corrected global timeline of a job.")
        .def_property_readonly("events", &PyTimeline::events,
                               "All events, sorted by (start_ns, rank, depth).")
        .def_property_readonly("workers", &PyTimeline::workers)
        .def_property_readonly("problems", &PyTimeline::problems)
        .def_property_readonly("problem_kinds", &PyTimeline::problemKinds,
                               "The kind of each entry of problems, index for index "
                               "(\"misnested_end\", \"malformed_line\", ...).")
        .def_property_readonly(
            "notes", [](const PyTimeline &t) { return t.timeline().clockNotes; },
            "Remarks from the clock correction.")
        .def_property_readonly(
            "mode",
            [](const PyTimeline &t) { return t.mode() == ClockMode::Raw ? "raw" : "corrected"; })
        .def_property_readonly(
            "clock", [](const PyTimeline &t) { return clockChoiceName(t.timeline().clockChoice); },
            "The clock the job was loaded on: \"corrected\", \"wall\" or \"raw\".")
        .def_property_readonly(
            "wall_clocks",
            [](const PyTimeline &t) { return WallClockSummary::of(t.timeline()).headline; },
            "One line on the hosts' wall clocks against their sync bands (\"\" when fewer than "
            "two hosts have a band): that they agree (--clock wall is worth trying) or which "
            "hosts --clock wall is refused for. Each worker's verdict: Worker.clock['wall_*'].")
        .def_property_readonly("origin_ns",
                               [](const PyTimeline &t) { return t.timeline().originNs(t.mode()); })
        .def_property_readonly(
            "begin_ns", [](const PyTimeline &t) { return t.timeline().range(t.mode()).begin; })
        .def_property_readonly("end_ns",
                               [](const PyTimeline &t) { return t.timeline().range(t.mode()).end; })
        .def("stats", &PyTimeline::stats, "per_rank"_a = true,
             "Duration statistics per name (and per rank): count, total_ns, mean_ns, p50_ns, "
             "p95_ns, p99_ns, max_ns.")
        .def("diagnose", &PyTimeline::diagnose, "step"_a = "", "range"_a = pyb::none(),
             "Who holds the job back: steps, culprits (by blame, with what-if), victims, the "
             "critical path's shares and undecided instances — the dict of `syncline diagnose "
             "--json` (docs/cli.md#diagnose). range=(begin_ns, end_ns) from origin_ns.")
        .def("compare", &PyTimeline::compare, "other"_a, pyb::kw_only(), "anchor"_a = "start",
             "fail_if"_a = std::vector<std::string>(),
             "This run (A) against `other` (B): the dict of `syncline compare A B --json` "
             "(docs/cli.md#compare): per name and per rank count/total/mean/p50/p99 of each, "
             "their deltas, ratios and impact_ns, in impact order; fail_if=['NAME:STAT>X%', ...] "
             "adds its \"gate\" verdict.")
        .def(
            "columns",
            [](const PyTimeline &t, pyb::object fields) {
                return PyColumns::events(t.shared(), t.mode(), fields);
            },
            "fields"_a = pyb::none(),
            "Every event as numpy arrays (one row per event; no Python object per event): worker, "
            "rank, restart, tid, name_id (+ names), depth, parent (row index, -1 for roots), "
            "start_ns, end_ns (global, this timeline's clock), local_start_ns, local_end_ns, "
            "status (0 complete, 1 overdue, 2 open; + status_names), flags, bound_ns. "
            "fields=[...] computes only those. Needs numpy.")
        .def(
            "counter_columns",
            [](const PyTimeline &t) { return PyColumns::counters(t.shared(), t.mode()); },
            "Every counter sample as numpy arrays: worker, rank, restart, pid, name_id (+ names: "
            "the series labels), time_ns, local_ns, value. Needs numpy.")
        .def(
            "link_columns",
            [](const PyTimeline &t) { return PyColumns::links(t.shared(), t.mode()); },
            "Every link (message send -> recv, flow step) as numpy arrays: from_worker, "
            "from_rank, from_tid, to_worker, to_rank, to_tid, kind (0 message, 1 flow; + "
            "kind_names), from_ns, to_ns. Needs numpy.")
        .def(
            "collective_columns",
            [](const PyTimeline &t) { return PyColumns::collectives(t.shared(), t.mode()); },
            "The diagnosis's collective instances as numpy arrays, one row per (instance, "
            "worker) — the SQLite `collectives` table: instance, worker, rank, restart, name_id "
            "(+ names), sequence, generation, participants, decided, event (row of columns()), "
            "arrival_ns, end_ns, wait_ns (last arrival - arrival), last. Needs numpy.")
        .def(
            "to_sqlite",
            [](const PyTimeline &t, pyb::object path) {
                const std::string p = pyb::str(pyb::module_::import("os").attr("fspath")(path));
                std::string error;
                bool ok;
                {
                    pyb::gil_scoped_release release;
                    ok = SqliteExporter::write(t.timeline(), t.mode(), p, &error);
                }
                if (!ok)
                    throw pyb::value_error("to_sqlite: " + error);
            },
            "path"_a,
            "Writes the timeline as an SQLite database (the schema of `syncline export --sqlite`, "
            "docs/cli.md), replacing `path`.")
        .def(
            "to_perfetto",
            [](const PyTimeline &t, pyb::object path) {
                const std::string p = pyb::str(pyb::module_::import("os").attr("fspath")(path));
                std::string error;
                PerfettoExporter::Counts n;
                bool ok;
                {
                    pyb::gil_scoped_release release;
                    ok = PerfettoExporter::writeFile(t.timeline(), t.mode(), p, &error, &n);
                }
                if (!ok)
                    throw pyb::value_error("to_perfetto: " + error);
                return pyb::dict("slices"_a = n.slices, "instants"_a = n.instants,
                                 "counter_samples"_a = n.counterSamples, "flows"_a = n.flows,
                                 "packets"_a = n.packets, "bytes"_a = n.bytes);
            },
            "path"_a,
            "Writes the timeline as a Perfetto protobuf trace (as `syncline export --perfetto`, "
            "docs/cli.md), replacing `path`; returns what it wrote: slices, instants, "
            "counter_samples, flows, packets, bytes.")
        .def(
            "_repr_html_",
            [](const PyTimeline &t) {
                DiagnoseQuery q;
                q.mode = t.mode();
                q.whatIfRanks = 1; // the top culprit's saving only
                Diagnosis d;
                {
                    pyb::gil_scoped_release release;
                    d = Diagnoser::run(t.timeline(), q); // with cells: the step map
                }
                return HtmlReport::notebook(t.timeline(), t.mode(), d);
            },
            "What a notebook shows: the job's summary (workers, ranks, hosts, restarts, events, "
            "span, clock bound), the top culprit, and a step map (workers x steps, coloured by "
            "step time against the p50). Runs the diagnosis (cost: about that of diagnose()).")
        .def("__len__", &PyTimeline::size)
        .def("__iter__", [](PyTimeline &t) { return t.events().attr("__iter__")(); })
        .def("__repr__", [](const PyTimeline &t) {
            return "<syncline.Timeline " + std::to_string(t.timeline().workers.size()) +
                   " workers, " + std::to_string(t.size()) + " events>";
        });
    m.def(
        "load_timeline",
        [](pyb::args args, std::string alignOn, std::optional<std::string> clock, bool align,
           pyb::object ranks) {
            std::vector<std::string> paths;
            for (pyb::handle a : args)
                paths.push_back(pyb::str(pyb::module_::import("os").attr("fspath")(a)));
            return load(paths, alignOn, clock, align, ranksArg(ranks));
        },
        pyb::kw_only(), "align_on"_a = "", "clock"_a = pyb::none(), "align"_a = true,
        "ranks"_a = pyb::none(),
        "load_timeline(*paths, align_on='', clock=None, align=True, ranks=None): loads job "
        "directories, logs, timer_config.json and Chrome traces into a Timeline (LoadError if "
        "nothing loads); align=False: no alignment on collectives (as --no-align); clock: "
        "'corrected', 'wall' (hosts whose wall clock agrees with their corrected clock within "
        "the sync band placed by it, as --clock wall) or 'raw'; None: the config's view_clock, "
        "else 'corrected'; ranks: only those workers' logs (\"0-63,512\" as --ranks, or a list "
        "of ints).");
}

} // namespace syncline::py
