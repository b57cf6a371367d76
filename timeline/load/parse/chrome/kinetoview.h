// KinetoView — the PyTorch profiler's (Kineto's) conventions, applied while a Chrome trace is
// read, so its timeline reads as a PyTorch user expects:
//  - `ProfilerStep#N` is one name, "ProfilerStep", with N as the arg "step" (added first to the
//    event's args, unless they already have a "step"): stats, colours and the step detection
//    treat every step as one kind, and N stays on each event.
//  - the profiler's own span over the recording ("PyTorch Profiler (0)", on pid "Spans") gets
//    EventProfilerSpan: drawn on its track, never counted in stats nor listed in the legend.
//  - tracks are labelled "<process> / <thread>", the process by its `process_labels` ("CPU",
//    "GPU 0") when the trace gives them, else its `process_name`, else "pid N"; names are
//    trimmed (Kineto writes "stream 7 ").
//  - tracks are ordered by the process's `process_sort_index` (EventTrack::order): Kineto gives
//    a CPU process its pid and GPU n 2^24 + n, so CPU threads come above GPU streams; processes
//    without one (Kineto's global markers, pid "Traces") come last.
// (The rest: a trace's worker has no restart in its label, Worker::label; a thread label does
// not repeat its tid, EventTrack::label.)
// Threading: pure functions; ChromeTraceState's members here run on its parse's thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace syncline::load {

class KinetoView
{
public:
    // "ProfilerStep#12" → name "ProfilerStep", argsOut {"step": 12, <args' members>}; true when
    // folded (name and argsOut changed; args untouched). Only "ProfilerStep#<1-18 digits>".
    static bool foldProfilerStep(std::string_view &name, std::string_view args,
                                 std::string &argsOut);
    // "PyTorch Profiler (<digits>)".
    static bool isProfilerSpan(std::string_view name);
};

} // namespace syncline::load
