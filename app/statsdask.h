// statsdask — `syncline stats --json --dask ADDRESS`: the same document computed on a
// dask.distributed cluster by the Python module syncline.dask (docs/python.md, docs/scale.md
// "Beyond one machine"). The verb only hands over: it runs the Python the module was built for
// as `python3 -m syncline.dask stats PATH... --scheduler ADDRESS [--ranks R] [--align-on P]
// [--no-align] [--raw]`, with the module's directory first on PYTHONPATH (the build tree's
// python/ beside bin/, else the installed one beside the prefix's bin/), and returns its exit
// status. Python prints the document, or one line saying why not (dask.distributed not
// installed: status 3).
// Threading: main thread only; the process waits for Python.
#pragma once

#include <string>

namespace syncline::app {

struct JobArgs;

// Usage errors (an option the split does not compute: --range, --clock wall, --no-correct;
// no --json) print why and give 2.
int runStatsOnDask(const JobArgs &args, bool json, const std::string &address);

} // namespace syncline::app
