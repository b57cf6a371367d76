#include "pysplit.h"

#include "pyerrors.h"
#include "pytimeline.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/openfilelimit.h"
#include "timeline/report/compareparts.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/diagnosisexporter.h"
#include "timeline/report/diagnosisparts.h"
#include "timeline/report/statsparts.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
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

// Whether one log's clock inputs are of a usable log with sync samples.
bool clockInputsSynced(const pyb::bytes &part)
{
    char *data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(part.ptr(), &data, &size);
    return JobLoader::clockInputsSynced(std::string_view(data, size_t(size)));
}

// The correction once over every log's clock inputs: [(log, rank, its clocks)]. `parts`: any
// iterable of bytes (a list, or a generator that fetches each log's bytes as it is asked for):
// each is read in place (no copy) and let go of once decoded, before the next is taken.
// `synced`: every part is of a synced log (clockInputsSynced of each: then the decoded inputs
// keep only what the correction aligns on).
pyb::list clocks(const pyb::iterable &parts, const std::string &configPath,
                 const std::string &configText, const std::string &alignOn, bool align,
                 const pyb::object &ranks, bool synced)
{
    LoadOptions o;
    o.alignOn = alignOn;
    o.alignCollectives = align;
    o.ranks = PyTimeline::ranksArg(ranks);
    o.threads = 1; // one task, one core
    pyb::iterator it = pyb::iter(parts);
    pyb::object current; // the bytes being decoded (the GIL is held whenever it changes)
    struct Stop
    {
    };
    std::optional<pyb::error_already_set> failed; // raised by the iterable itself
    bool notBytes = false;
    auto next = [&]() -> std::optional<std::string_view> {
        pyb::gil_scoped_acquire gil;
        current = pyb::object(); // decoded: let go of it before the next is fetched
        current = pyb::reinterpret_steal<pyb::object>(PyIter_Next(it.ptr()));
        if (!current) {
            if (!PyErr_Occurred())
                return std::nullopt;
            failed.emplace(); // takes the error raised by the iterable
            throw Stop();
        }
        if (!pyb::isinstance<pyb::bytes>(current)) {
            notBytes = true;
            throw Stop();
        }
        char *data = nullptr;
        Py_ssize_t size = 0;
        PyBytes_AsStringAndSize(current.ptr(), &data, &size);
        return std::string_view(data, size_t(size));
    };
    SplitClocks c;
    try {
        pyb::gil_scoped_release release;
        c = JobLoader::splitClocks(o, configPath, configText, next, synced);
    } catch (const Stop &) {
    }
    current = pyb::object();
    if (failed)
        throw std::move(*failed);
    if (notBytes)
        throw pyb::type_error("syncline.dask: clock inputs must be bytes");
    if (!c.fatalError.empty())
        throw pyb::value_error("syncline.dask: " + c.fatalError);
    pyb::list out;
    for (const SplitWorker &w : c.workers)
        out.append(pyb::make_tuple(w.log, w.rank, pyb::bytes(w.clocks)));
    return out;
}

// One log loaded alone with its worker's clocks (and the job's config, when given: the event
// kinds a load of the whole job gives it), its worker given the whole job's rank.
std::shared_ptr<Timeline> loadPart(const std::string &log, const std::string &plan, int rank,
                                   const pyb::object &configPath, const std::string &config,
                                   const std::string &alignOn = {})
{
    LoadOptions o;
    o.paths = {log};
    o.clockPlan = plan;
    o.alignOn = alignOn; // the names it marks are collectives, as in the whole job's load
    if (!configPath.is_none())
        o.splitConfig = std::make_pair(configPath.cast<std::string>(), config);
    const LoadResult r = loadReleased(o);
    if (!r.timeline)
        throw LoadError("syncline.dask: " + log + ": " + r.fatalError);
    for (Worker &w : r.timeline->workers)
        w.info.rank = rank; // the whole job's (a log without a rank of its own)
    return r.timeline;
}

CompareAnchor anchorOf(const std::string &text)
{
    CompareAnchor anchor;
    std::string error;
    if (!CompareAnchor::parse(text, &anchor, &error))
        throw pyb::value_error("--anchor: " + error);
    return anchor;
}

// One log's compare part (its stats part, extent and the anchor's starts), encoded.
pyb::bytes comparePart(const std::string &log, const std::string &plan, int rank,
                       const std::string &clock, const std::string &anchorText,
                       const pyb::object &configPath, const std::string &config)
{
    const ClockMode mode = modeOf(clock);
    const CompareAnchor anchor = anchorOf(anchorText);
    const std::shared_ptr<Timeline> tl = loadPart(log, plan, rank, configPath, config);
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        bytes = CompareRunPart::of(*tl, mode, anchor).encode();
    }
    return pyb::bytes(bytes);
}

// A part's bytes decoded (StatsParts, CompareRunPart): a ValueError when they do not decode.
template <class Part> Part decodedPart(const pyb::handle &b)
{
    std::string why;
    std::optional<Part> p = Part::decode(b.cast<std::string>(), &why);
    if (!p)
        throw pyb::value_error("syncline.dask: " + why);
    return std::move(*p);
}

// Parts merged into one, as bytes (the GIL released while merging).
template <class Part> pyb::bytes mergedParts(const pyb::list &parts)
{
    std::vector<Part> all;
    for (pyb::handle h : parts)
        all.push_back(decodedPart<Part>(h));
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        bytes = Part::merge(std::move(all)).encode();
    }
    return pyb::bytes(bytes);
}

CompareRunPart compareDecoded(const pyb::handle &b) { return decodedPart<CompareRunPart>(b); }

std::vector<GateCondition> gateOf(const std::vector<std::string> &failIf)
{
    std::vector<GateCondition> gate;
    for (const std::string &text : failIf) {
        GateCondition c;
        std::string why;
        if (!CompareGate::parse(text, &c, &why))
            throw pyb::value_error("--fail-if " + why);
        gate.push_back(std::move(c));
    }
    return gate;
}

// The anchor's text as `compare` reports it; ValueError (the CLI's words) when the anchor or a
// condition is malformed.
std::string compareOptions(const std::string &anchorText, const std::vector<std::string> &failIf)
{
    gateOf(failIf);
    return anchorOf(anchorText).text();
}

// Two runs' merged parts compared: (the `syncline compare --json` document, its --csv text,
// whether a --fail-if condition holds).
pyb::tuple compare(const pyb::bytes &a, const pyb::bytes &b,
                   const std::vector<std::string> &pathsA, const std::vector<std::string> &pathsB,
                   const std::string &clock, const std::string &anchorText,
                   const std::vector<std::string> &failIf)
{
    const ClockMode mode = modeOf(clock);
    const CompareAnchor anchor = anchorOf(anchorText);
    const std::vector<GateCondition> gate = gateOf(failIf);
    const CompareRunPart pa = compareDecoded(a), pb = compareDecoded(b);
    std::ostringstream json, csv;
    std::string error;
    bool failed = false;
    {
        pyb::gil_scoped_release release;
        SplitComparison c = CompareParts::compare(pa, pb, mode, anchor);
        if (c.errorRun) {
            error = "--anchor " + anchor.text() + ": run " + c.errorRun + " (" +
                    (c.errorRun == 'A' ? pathsA : pathsB).front() + "): " + c.error;
        } else {
            c.info.pathsA = pathsA;
            c.info.pathsB = pathsB;
            const std::vector<GateOutcome> outcomes = CompareGate::evaluate(c.result, gate);
            for (const GateOutcome &o : outcomes) {
                failed = failed || o.holds;
                if (o.matched.empty() && error.empty())
                    error = "--fail-if '" + o.condition.spec + "': no complete event named '" +
                            o.condition.name + "' in A or B";
            }
            CompareExporter::writeJson(c.result, c.info, json, gate.empty() ? nullptr : &outcomes);
            CompareExporter::writeCsv(c.result, csv);
        }
    }
    if (!error.empty())
        throw pyb::value_error(error);
    return pyb::make_tuple(json.str(), csv.str(), failed);
}

// One log's earliest event start in the mode (Timeline::earliestStart; None without events).
pyb::object earliest(const std::string &log, const std::string &plan, int rank,
                     const std::string &clock, const pyb::object &configPath,
                     const std::string &config)
{
    const ClockMode mode = modeOf(clock);
    const std::shared_ptr<Timeline> tl = loadPart(log, plan, rank, configPath, config);
    const int64_t t = tl->earliestStart(mode);
    return t == INT64_MAX ? pyb::object(pyb::none()) : pyb::int_(t);
}

// The whole job's origin (Timeline::originNs) from its logs' earliest starts: the earliest, 0
// when no log has an event.
int64_t origin(const pyb::list &earliests)
{
    int64_t t = INT64_MAX;
    for (pyb::handle h : earliests)
        if (!h.is_none())
            t = std::min(t, h.cast<int64_t>());
    return t == INT64_MAX ? 0 : t;
}

// One log's rows of the events CSV (no header), times from the whole job's origin; with a
// range (start, end in ns from the origin, as --range), only the events overlapping it.
pyb::bytes csvPart(const std::string &log, const std::string &plan, int rank,
                   const std::string &clock, const pyb::object &configPath,
                   const std::string &config, int64_t originNs, const pyb::object &range)
{
    const ClockMode mode = modeOf(clock);
    EventRange r;
    if (!range.is_none()) {
        const auto [begin, end] = range.cast<std::pair<int64_t, int64_t>>();
        r = {true, originNs + begin, originNs + end};
    }
    const std::shared_ptr<Timeline> tl = loadPart(log, plan, rank, configPath, config);
    std::ostringstream out;
    {
        pyb::gil_scoped_release release;
        CsvExporter::writeRows(*tl, mode, out, r, originNs);
    }
    return pyb::bytes(out.str());
}

pyb::tuple parseRange(const std::string &text)
{
    LoadWindow w;
    if (!LoadWindow::parse(text, w))
        throw pyb::value_error("--range: expected START:END (e.g. 0:2.5s), got '" + text + "'");
    return pyb::make_tuple(w.beginNs, w.endNs);
}

// One log loaded alone with its worker's clocks: its stats part, encoded.
pyb::bytes statsPart(const std::string &log, const std::string &plan, int rank,
                     const std::string &clock)
{
    const ClockMode mode = modeOf(clock);
    const std::shared_ptr<Timeline> tl = loadPart(log, plan, rank, pyb::none(), {});
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        StatsQuery q;
        q.mode = mode;
        q.threads = 1; // one task, one core: the cluster runs the others
        bytes = StatsParts::of(*tl, q).encode();
    }
    return pyb::bytes(bytes);
}

StatsParts decoded(const pyb::handle &b) { return decodedPart<StatsParts>(b); }

// One log loaded alone with its worker's clocks, the job's config and --align-on (the kinds a
// load of the whole job gives its names): its diagnose part, encoded. `step`: the --step name,
// or the job's step key when a first part did not hold it whole ("" to detect).
pyb::bytes diagnosePart(const std::string &log, const std::string &plan, int rank,
                        const pyb::object &configPath, const std::string &config,
                        const std::string &alignOn, const std::string &step)
{
    const std::shared_ptr<Timeline> tl = loadPart(log, plan, rank, configPath, config, alignOn);
    if (tl->workers.size() != 1)
        throw LoadError("syncline.dask: " + log + ": not one worker's log");
    std::string bytes;
    {
        pyb::gil_scoped_release release;
        bytes = DiagnosisPart::of(*tl, 0, step).encode();
    }
    return pyb::bytes(bytes);
}

// The job's diagnose parts (in the timeline's order) put together and diagnosed as `syncline
// diagnose` does: (its --json document, or its text, [], ""); or, when the job's step key is
// one that some parts did not keep whole, (None, [their indices], the key): the caller makes
// those parts again with that step name.
pyb::tuple diagnose(const pyb::list &parts, const pyb::object &configPath,
                    const std::string &config, const std::string &alignOn,
                    const std::string &clock, const std::string &step, const pyb::object &range,
                    bool json)
{
    DiagnoseQuery q;
    q.mode = modeOf(clock);
    q.stepName = step;
    q.cells = false; // the heat map's cells: the viewer's
    q.threads = 1;   // one task, one core
    std::pair<int64_t, int64_t> window;
    if (!range.is_none())
        window = range.cast<std::pair<int64_t, int64_t>>();
    std::vector<DiagnosisPart> all;
    for (pyb::handle h : parts)
        all.push_back(decodedPart<DiagnosisPart>(h));
    const std::string path = configPath.is_none() ? std::string() : configPath.cast<std::string>();
    std::string text, key;
    std::vector<size_t> lacking;
    {
        pyb::gil_scoped_release release;
        const std::shared_ptr<Timeline> tl = DiagnosisPart::timeline(all);
        JobLoader::splitKinds(*tl, path, config, alignOn);
        if (!range.is_none()) {
            q.useRange = true;
            q.beginNs = tl->originNs(q.mode) + window.first;
            q.endNs = tl->originNs(q.mode) + window.second;
        }
        const Diagnosis d = Diagnoser::run(*tl, q);
        for (size_t i = 0; i < all.size() && !d.stepName.empty(); ++i)
            if (!all[i].holdsStep(d.stepName))
                lacking.push_back(i);
        if (lacking.empty()) {
            std::ostringstream out;
            if (json)
                DiagnosisExporter::writeJson(*tl, d, out);
            else
                DiagnosisExporter::writeText(*tl, d, out);
            text = out.str();
        } else {
            key = d.stepName;
        }
    }
    if (!lacking.empty())
        return pyb::make_tuple(pyb::none(), pyb::cast(lacking), key);
    return pyb::make_tuple(text, pyb::list(), key);
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
    m.def("_split_clock_inputs_synced", &clockInputsSynced, "part"_a,
          "Whether one log's clock inputs are of a usable log with sync samples.");
    m.def("_split_clocks", &clocks, "parts"_a, "config_path"_a, "config"_a, "align_on"_a = "",
          "align"_a = true, "ranks"_a = pyb::none(), "synced"_a = false,
          "The clock correction over every log's inputs (an iterable of bytes, each let go of "
          "once decoded): [(log, rank, that worker's clocks)]. synced: every part is of a "
          "synced log (_split_clock_inputs_synced).");
    m.def("_split_stats_part", &statsPart, "log"_a, "clocks"_a, "rank"_a,
          "clock"_a = "corrected", "One log's stats part (bytes), with its worker's clocks.");
    m.def("_split_stats_merge", &mergedParts<StatsParts>, "parts"_a, "Stats parts merged into one (bytes).");
    m.def("_split_stats_json", &statsJson, "part"_a,
          "The `syncline stats --json` document of a (merged) stats part.");
    m.def("_split_compare_options", &compareOptions, "anchor"_a, "fail_if"_a,
          "The anchor's text; ValueError when the anchor or a --fail-if condition is malformed.");
    m.def("_split_compare_part", &comparePart, "log"_a, "clocks"_a, "rank"_a, "clock"_a,
          "anchor"_a, "config_path"_a, "config"_a,
          "One log's compare part (bytes), with its worker's clocks.");
    m.def("_split_compare_merge", &mergedParts<CompareRunPart>, "parts"_a,
          "Compare parts of one run merged into one (bytes).");
    m.def("_split_compare", &compare, "a"_a, "b"_a, "paths_a"_a, "paths_b"_a, "clock"_a,
          "anchor"_a, "fail_if"_a,
          "(`syncline compare --json` text, its --csv text, whether a --fail-if holds) of two "
          "runs' merged compare parts.");
    m.def("_split_earliest", &earliest, "log"_a, "clocks"_a, "rank"_a, "clock"_a,
          "config_path"_a, "config"_a, "One log's earliest event start (None: no events).");
    m.def("_split_origin", &origin, "earliests"_a,
          "The job's origin from its logs' earliest starts.");
    m.def("_split_csv_part", &csvPart, "log"_a, "clocks"_a, "rank"_a, "clock"_a,
          "config_path"_a, "config"_a, "origin"_a, "range"_a = pyb::none(),
          "One log's events CSV rows (bytes, no header).");
    m.def("_split_csv_header", [] { return std::string(CsvExporter::kHeader) + "\n"; },
          "The events CSV's header line.");
    m.def("_split_diagnose_part", &diagnosePart, "log"_a, "clocks"_a, "rank"_a,
          "config_path"_a, "config"_a, "align_on"_a = "", "step"_a = "",
          "One log's diagnose part (bytes), with its worker's clocks.");
    m.def("_split_diagnose", &diagnose, "parts"_a, "config_path"_a, "config"_a,
          "align_on"_a = "", "clock"_a = "corrected", "step"_a = "", "range"_a = pyb::none(),
          "json"_a = true,
          "(`syncline diagnose [--json]` text, [], \"\") of the job's diagnose parts, or (None, "
          "[indices of the parts to make again], the step name to make them with).");
    m.def("_split_parse_range", &parseRange, "text"_a,
          "(start, end) ns of a --range START:END text.");
}

} // namespace syncline::py
