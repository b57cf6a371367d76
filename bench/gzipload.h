// gzipload — bench_load's gzip row: the loader on a gzip'd Kineto trace (default: the real one
// in tests/data) against the same trace inflated, and against `zcat FILE | wc -c` (the
// throughput of inflating alone, gzip's own tool). Rates are in inflated MB/s, so the ratios
// compare like with like; each figure is the best of `reps` runs in this process (page cache
// warm). Threading: main thread.
#pragma once

#include <string>

namespace syncline::bench {

// Prints the rows and ratios; false when the trace cannot be loaded.
bool runGzipRow(const std::string &gzPath, int reps);

} // namespace syncline::bench
