// PySplit — the entry points of a split load (syncline.dask, docs/python.md): the private
// functions `_split_inputs`, `_split_clock_inputs`, `_split_clock_inputs_synced`,
// `_split_clocks`, `_split_stats_part`, `_split_stats_merge` and `_split_stats_json` of
// syncline._core. They only call JobLoader (splitInputs, clockInputs, clockInputsSynced,
// splitClocks, LoadOptions::clockPlan) and StatsParts and move bytes; the rules live there.
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
