// PySplit — the entry points of a split load (syncline.dask, docs/python.md): the private
// functions `_split_inputs`, `_split_clock_inputs`, `_split_clock_inputs_synced`,
// `_split_clocks`, `_split_stats_part`, `_split_stats_merge`, `_split_stats_json` and those of
// compare, export and diagnose (`_split_compare*`, `_split_csv_*`, `_split_diagnose*`) of
// syncline._core. They only call JobLoader (splitInputs, clockInputs, clockInputsSynced,
// splitClocks, splitKinds, LoadOptions::clockPlan), the parts (StatsParts, CompareRunPart,
// DiagnosisPart) and the exporters, and move bytes; the rules live there.
// Threading: needs the GIL; loads release it.
#pragma once

#include <pybind11/pybind11.h>

namespace syncline::py {

class PySplit
{
public:
    static void bind(pybind11::module_ &m);
};

} // namespace syncline::py
