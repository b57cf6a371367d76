// TraceAttachment — puts a profiler trace that a worker wrote beside its syncline log into that
// worker, instead of loading it as a second worker of the same rank.
//
// The PyTorch profiler of the pip builds (Kineto) writes one Chrome trace per rank whose `ts` are
// wall-clock µs (the system clock; since PyTorch 2.4 µs after `baseTimeNanoseconds`, which the
// parser adds, so a trace arrives here in wall-clock ns either way) and whose
// `distributedInfo.rank` names the rank. A trace is
// attached to the syncline-log worker of that rank: among that rank's incarnations (restarts,
// membership changes), the one whose header pid equals the trace's main pid, else the one whose
// wall-clock span overlaps the trace's most; no pid match and no overlap: not attached (it stays
// a worker of its own, as before). Only logs with a wall/monotonic anchor qualify.
//
// Mapping: a trace time w (wall ns) becomes the log's local time
//   local = w − (anchor.wall_ns − anchor.mono_ns)
// so its raw view is w again, and the worker's corrected clock map (sync samples, alignment)
// carries the profiler's events onto the global timeline with the syncline events. Error of that
// step: the trace's µs resolution (±0.5 µs), the anchor's spread_ns, and whatever the wall clock
// was slewed against the monotonic one between the anchor (client start) and the event (NTP:
// typically < 1 ppm, at most 500 ppm). The trace's tracks stay tracks of their own, named
// "<thread> (profiler)", beside the log's; flows and args move with them.
//
// Example: log anchor mono 5 000 000 000 ↔ wall 1 682 725 898 000 000 000 ns; a Kineto `X` at
// ts 1682725898236567 µs lands at local 5 236 567 000 ns.
// Threading: called by TimelineBuilder::merge on the loader thread.
#pragma once

#include "timeline/load/parse/parsedfile.h"

#include <vector>

namespace syncline::load {

class TraceAttachment
{
public:
    // Moves every attachable trace of `files` into its log's ParsedFile (the trace's entry is
    // left unusable and empty); an Info problem per attached trace says where it went.
    // Args move into `store` (the timeline's, TimelineBuilder::moveArgsTo) first.
    static void attachAll(std::vector<ParsedFile> &files, ArgStore &store);
    // Moves `trace` into `log` (times shifted by `shift`: local = trace time + shift).
    static void attach(ParsedFile &log, ParsedFile &trace, int64_t shift, ArgStore &store);
};

} // namespace syncline::load
