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

// The job's logs (absolute, in the load's order), its config, and why there is no log ("" when
// there are some), resolved where they are.
pyb::tuple inputs(const std::vector<std::string> &paths, const pyb::object &ranks)
{
    const RankSet set = PyTimeline::ranksArg(ranks);
    SplitInputs in;
    {
        pyb::gil_scoped_release release;
        in = JobLoader::splitInputs(paths, set);
    }
    if (!in.fatalError.empty())
        throw LoadError("syncline.dask: " + in.fatalError);
    return pyb::make_tuple(in.logs, in.configPath, pyb::bytes(in.configText),
                           in.noLogs.empty() ? std::string() : "syncline.dask: " + in.noLogs);
}

// One log's clock inputs, as bytes.
pyb::bytes clockInputs(const std::string &log, const std::string &configPath,
                       const std::string &configText, const std::string &alignOn)
{
    std::string bytes, error;
    {
        raiseOpenFileLimit();
        pyb::gil_scoped_release release;
        bytes = JobLoader::clockInputs(log, configPath, configText, alignOn, &error);
    }
    if (bytes.empty())
        throw LoadError("syncline.dask: " + error);
    return pyb::bytes(bytes);
}

// The correction once over every log's clock inputs: [(log, rank, its clocks)].
pyb::list clocks(const pyb::list &parts, const std::string &configPath,
                 const std::string &configText, const std::string &alignOn, bool align,
                 const pyb::object &ranks)
{
    LoadOptions o;
    o.alignOn = alignOn;
    o.alignCollectives = align;
    o.ranks = PyTimeline::ranksArg(ranks);
    o.threads = 1; // one task, one core
    std::vector<std::string> bytes;
    for (pyb::handle h : parts) {
        if (!pyb::isinstance<pyb::bytes>(h))
            throw pyb::type_error("syncline.dask: clock inputs must be bytes");
        bytes.push_back(h.cast<std::string>());
    }
    SplitClocks c;
    {
        pyb::gil_scoped_release release;
        c = JobLoader::splitClocks(o, configPath, configText, bytes);
    }
    if (!c.fatalError.empty())
        throw pyb::value_error("syncline.dask: " + c.fatalError);
    pyb::list out;
    for (const SplitWorker &w : c.workers)
        out.append(pyb::make_tuple(w.log, w.rank, pyb::bytes(w.clocks)));
    return out;
}

// One log loaded alone with its worker's clocks: its stats part, encoded.
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
    m.def("_split_inputs", &inputs, "paths"_a, "ranks"_a = pyb::none(),
          "([log], config path, config bytes, why no log) of the job: its logs in the load's "
          "order.");
    m.def("_split_clock_inputs", &clockInputs, "log"_a, "config_path"_a, "config"_a,
          "align_on"_a = "", "One log's clock inputs (bytes).");
    m.def("_split_clocks", &clocks, "parts"_a, "config_path"_a, "config"_a, "align_on"_a = "",
          "align"_a = true, "ranks"_a = pyb::none(),
          "The clock correction over every log's inputs: [(log, rank, that worker's clocks)].");
    m.def("_split_stats_part", &statsPart, "log"_a, "clocks"_a, "rank"_a,
          "clock"_a = "corrected", "One log's stats part (bytes), with its worker's clocks.");
    m.def("_split_stats_merge", &statsMerge, "parts"_a, "Stats parts merged into one (bytes).");
    m.def("_split_stats_json", &statsJson, "part"_a,
          "The `syncline stats --json` document of a (merged) stats part.");
}

} // namespace syncline::py
