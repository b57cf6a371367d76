#include "pysplit.h"

#include "pyerrors.h"
#include "pytimeline.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/openfilelimit.h"
#include "timeline/report/statsparts.h"

#include <pybind11/stl.h>

#include <sstream>

namespace syncline::py {

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace {

LoadResult loadReleased(const LoadOptions &o)
{
    raiseOpenFileLimit();
    pyb::gil_scoped_release release;
    return JobLoader::load(o);
}

ClockMode modeOf(const std::string &clock)
{
    if (clock != "corrected" && clock != "raw")
        throw pyb::value_error("clock must be \"corrected\" or \"raw\", got \"" + clock + "\"");
    return clock == "raw" ? ClockMode::Raw : ClockMode::Corrected;
}

// The whole job's clocks from a clock-only load, and its logs with their ranks.
pyb::tuple clockPlan(const std::vector<std::string> &paths, const std::string &alignOn,
                     bool align, const pyb::object &ranks)
{
    LoadOptions o;
    o.paths = paths;
    o.alignOn = alignOn;
    o.alignCollectives = align;
    o.ranks = PyTimeline::ranksArg(ranks);
    o.clockOnly = true;
    const LoadResult r = loadReleased(o);
    if (!r.timeline)
        throw LoadError("syncline.dask: " + r.fatalError);
    pyb::list logs;
    for (const Worker &w : r.timeline->workers) {
        if (w.info.kind != SourceKind::SynclineLog)
            throw LoadError("syncline.dask: " + w.info.sourceFile +
                            ": a Chrome trace; syncline.dask reads syncline logs only (load the "
                            "job with syncline.load_timeline)");
        logs.append(pyb::make_tuple(w.info.sourceFile, w.info.rank));
    }
    pyb::list problems;
    for (const LoadProblem &p : r.timeline->problems)
        problems.append(p.toString());
    return pyb::make_tuple(pyb::bytes(JobLoader::clockPlan(*r.timeline)), logs, problems);
}

// One log loaded alone with the plan's clocks: its stats part, encoded.
pyb::bytes statsPart(const std::string &log, const std::string &plan, int rank,
                     const std::string &clock)
{
    LoadOptions o;
    o.paths = {log};
    o.clockPlan = plan;
    const ClockMode mode = modeOf(clock);
    const LoadResult r = loadReleased(o);
    if (!r.timeline)
        throw LoadError("syncline.dask: " + log + ": " + r.fatalError);
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        for (Worker &w : r.timeline->workers)
            w.info.rank = rank; // the whole job's (a log without a rank of its own)
        StatsQuery q;
        q.mode = mode;
        q.threads = 1; // one task, one core: the cluster runs the others
        bytes = StatsParts::of(*r.timeline, q).encode();
    }
    return pyb::bytes(bytes);
}

StatsParts decoded(const pyb::handle &b)
{
    std::string why;
    std::optional<StatsParts> p = StatsParts::decode(b.cast<std::string>(), &why);
    if (!p)
        throw pyb::value_error("syncline.dask: " + why);
    return std::move(*p);
}

pyb::bytes statsMerge(const pyb::list &parts)
{
    std::vector<StatsParts> all;
    for (pyb::handle h : parts)
        all.push_back(decoded(h));
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        bytes = StatsParts::merge(std::move(all)).encode();
    }
    return pyb::bytes(bytes);
}

std::string statsJson(const pyb::bytes &part)
{
    const StatsParts p = decoded(part);
    std::ostringstream out;
    p.writeJson(out);
    return out.str();
}

} // namespace

void PySplit::bind(pyb::module_ &m)
{
    m.def("_split_clock_plan", &clockPlan, "paths"_a, "align_on"_a = "", "align"_a = true,
          "ranks"_a = pyb::none(),
          "(plan bytes, [(log, rank)], [problem]) of a clock-only load of the job.");
    m.def("_split_stats_part", &statsPart, "log"_a, "plan"_a, "rank"_a,
          "clock"_a = "corrected", "One log's stats part (bytes), its clocks from the plan.");
    m.def("_split_stats_merge", &statsMerge, "parts"_a, "Stats parts merged into one (bytes).");
    m.def("_split_stats_json", &statsJson, "part"_a,
          "The `syncline stats --json` document of a (merged) stats part.");
}

} // namespace syncline::py
