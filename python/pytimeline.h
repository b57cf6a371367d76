// PyTimeline — a loaded, corrected global Timeline as seen from Python (syncline.Timeline),
// returned by FileTimerClient.get_timeline() and syncline.load_timeline().
//
//   events   every event of every worker (syncline.Event), sorted by (start_ns, rank, depth);
//            the list is built once and cached; iter(timeline) / len(timeline) use it
//   workers  syncline.Worker per worker, sorted by (rank, restart)
//   problems "file:line: message" for everything wrong found while loading
//   problem_kinds  the kind of each of those, index for index ("misnested_end", ...:
//            LoadProblem::kindKey; stable where the messages' wording is not)
//   origin_ns / begin_ns / end_ns   the display zero (earliest start) and the global range
//   stats()  per-name duration statistics (the timeline layer's Stats)
//   columns(), counter_columns(), link_columns(), collective_columns()  numpy columns over
//            every event, counter sample, link, collective arrival (pycolumns.h); to_pandas()
//            and friends are syncline/__init__.py's
//   diagnose()  who holds the job back (report/diagnosis.h): the dict `syncline diagnose
//            --json` prints, parsed by Python's json module from the same exporter
//   compare(other)  two runs compared (report/compare.h): the dict `syncline compare --json`
//            prints, from the same exporter; syncline/__init__.py wraps it (Comparison, with
//            its notebook table)
//   _repr_html_()  what a notebook shows (report/htmlreport.h: summary, culprit, step map);
//            stats()'s rows are a list subclass with its own table (syncline/__init__.py)
// Invariant: shares the Timeline with every Event/Worker view taken from it; immutable.
// Threading: needs the GIL; loading (load()) releases it.
#pragma once

#include "timeline/model/clockmode.h"
#include "timeline/model/rankset.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncline {
class Timeline;
}

namespace syncline::py {

class PyTimeline
{
public:
    // `mode`: the clock every time this object and its events/workers report is in.
    explicit PyTimeline(std::shared_ptr<const Timeline> timeline,
                        ClockMode mode = ClockMode::Corrected);

    pybind11::list events();
    pybind11::list workers() const;
    pybind11::list problems() const;
    pybind11::list problemKinds() const;
    pybind11::list stats(bool perRank) const;
    pybind11::object diagnose(const std::string &step, pybind11::object range) const;
    // B = other; anchor "start" / "NAME" / "NAME:K"; failIf: --fail-if conditions (a "gate"
    // key when any). ValueError as the CLI's exit 2 (bad anchor or condition, a condition that
    // matches no name, the two in different clock modes).
    pybind11::object compare(const PyTimeline &other, const std::string &anchor,
                             const std::vector<std::string> &failIf) const;
    size_t size() const;
    const Timeline &timeline() const { return *m_timeline; }
    const std::shared_ptr<const Timeline> &shared() const { return m_timeline; }
    ClockMode mode() const { return m_mode; }
    // What it was loaded from (load_timeline's paths; empty otherwise): compare's "paths".
    const std::vector<std::string> &paths() const { return m_paths; }

    // load_timeline(*paths): JobLoader over the paths, GIL released; LoadError on failure.
    // align false: LoadOptions::alignCollectives false (--no-align).
    // ranks: LoadOptions::ranks (ranksArg's RankSet; all() for every worker).
    static PyTimeline load(const std::vector<std::string> &paths, const std::string &alignOn,
                           const std::optional<std::string> &clock, bool align = true,
                           const RankSet &ranks = {});
    // The `ranks=` argument of load_timeline / get_timeline / syncline.dask: None (every rank),
    // a str as --ranks takes it ("0-63,512") or an iterable of ints; ValueError (TypeError for
    // another type) saying what is wrong.
    static RankSet ranksArg(const pybind11::object &ranks);
    static void bind(pybind11::module_ &m);

private:
    std::shared_ptr<const Timeline> m_timeline;
    ClockMode m_mode;
    pybind11::object m_events; // cached list, None until first asked
    std::vector<std::string> m_paths;
};

} // namespace syncline::py
