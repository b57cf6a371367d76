// daskhandover — `syncline stats --json --dask ADDRESS`, `syncline export --csv FILE --dask
// ADDRESS` and `syncline diagnose [--json] --dask ADDRESS`: the same document or file computed on a dask.distributed cluster by the Python module
// syncline.dask (docs/python.md, docs/scale.md "Beyond one machine"). The verb only hands over:
// it runs the Python the module was built for as `python3 -m syncline.dask VERB PATH...
// --scheduler ADDRESS [--ranks R] [--align-on P] [--no-align] [--raw] [the verb's own options]`,
// with the module's directory first on PYTHONPATH (the build tree's python/ beside bin/, else
// the installed one beside the prefix's bin/), and returns its exit status. Python prints the
// document or writes the file, or prints one line saying why not (dask.distributed not
// installed: status 3).
// Threading: main thread only; the process waits for Python.
#pragma once

#include <string>
#include <vector>

namespace syncline {
struct LoadWindow;
}

namespace syncline::app {

struct JobArgs;

// Usage errors (an option the split does not compute: --range, --clock wall, --no-correct;
// no --json) print why and give 2.
int runStatsOnDask(const JobArgs &args, bool json, const std::string &address);
// `csv`: the --csv FILE (the only output the split writes); the range is args.window's.
// Usage errors (another output than --csv, --clock wall, --no-correct) print why and give 2.
int runExportOnDask(const JobArgs &args, const std::string &csv, bool otherOutputs,
                    const std::string &address);
// `range`: diagnose's --range (ns from the job's earliest event); `step`: its --step ("" when
// not given). Usage errors (--clock wall, --no-correct) print why and give 2.
int runDiagnoseOnDask(const JobArgs &args, bool json, const LoadWindow &range,
                      const std::string &step, const std::string &address);

} // namespace syncline::app
