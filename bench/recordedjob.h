// bench_load --shape recorded: a job written by real recorders with the config's event_store
// on (docs/scale.md "What a worker writes itself"), and its first open from the event stores
// the workers wrote at close, against the first open of the same logs without them.
#pragma once

#include <string>

namespace syncline::bench {

// `workers` processes, each a FileTimerClient recording `steps` realistic steps, in `dir`; then
// the loads, each in a child (loaderInChild), `rounds` times interleaved, with the page cache
// warm and, when /proc/sys/vm/drop_caches can be written, dropped before each. Prints the rows
// ("read CPU s": the CPU of the stage that parses or decodes the logs).
void runRecorded(const std::string &dir, int workers, long long steps, int threads, int rounds);

} // namespace syncline::bench
