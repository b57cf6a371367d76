// PerfettoExporter — the timeline as a Perfetto protobuf trace (`syncline export --perfetto
// out.pftrace`, Python `Timeline.to_perfetto`): a `perfetto.protos.Trace` of TracePackets
// (Perfetto's protos/perfetto/trace/perfetto_trace.proto), written by ProtoWriter, that
// ui.perfetto.dev and trace_processor open.
//
// Layout:
//  - hosts as machines: one packet sequence per host (trusted_packet_sequence_id = host index
//    + 1, hosts in the order their first worker appears), every packet of a host but the first
//    host's carrying machine_id = host index; each sequence starts with a SystemInfo packet
//    naming the machine (machine_name = the host, "?" when unknown), flagged
//    SEQ_INCREMENTAL_STATE_CLEARED, interning the debug annotation names;
//  - one process per worker: a TrackDescriptor with ProcessDescriptor {pid = worker index + 1,
//    process_name "rank N (host)[, restart R]" as ChromeExporter's, process_labels ["clock:
//    METHOD, bound ±X ns"]}; one thread track per thread (ThreadDescriptor {pid, tid = track
//    index + 1, thread_name}); an async lane as a named child track of its process; one counter
//    track per counter series (CounterDescriptor; name "NAME" or "NAME SERIES");
//  - events as TrackEvent: an interval as TYPE_SLICE_BEGIN at its start and TYPE_SLICE_END at
//    its end (open events end at their last seen time, EventTrack's rule), an instant as
//    TYPE_INSTANT; names interned per sequence (InternedData.event_names, name_iid, packets
//    flagged SEQ_NEEDS_INCREMENTAL_STATE); debug annotations: "clock_bound_ns" (the worker's
//    clock bound, corrected mode, on outermost slices), "status" ("open", "overdue") when not
//    complete, "args" (the event's args JSON text) when it has args;
//  - counter samples as TYPE_COUNTER (double_counter_value);
//  - links (messages and Chrome flow steps, LinkTable) as flows: an instant "send" (message) or
//    "flow" on the sender's thread at the send time with flow_ids [link index + 1], and an
//    instant "recv" / "flow" on the receiver's thread at the receive time with
//    terminating_flow_ids [the same].
// Timestamps are absolute global ns in the clock mode (the default clock, BOOTTIME in
// Perfetto's terms); per track the packets are written in time order (begin/end by nesting).
// Text fields are valid UTF-8 (invalid bytes become U+FFFD).
// Cost: one pass over every event, counter sample and link; about 25 bytes of output per slice
// boundary; memory: one packet and the interning tables (a uint64 per name per host).
// Threading: reads the Timeline only; any thread.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace syncline {

class PerfettoExporter
{
public:
    struct Counts
    {
        int64_t slices = 0, instants = 0, counterSamples = 0, flows = 0, packets = 0, bytes = 0;
    };
    static Counts write(const Timeline &timeline, ClockMode mode, std::ostream &out);
    // Creates/truncates `path`; false with *error ("<path>: cannot write: ...") on failure.
    static bool writeFile(const Timeline &timeline, ClockMode mode, const std::string &path,
                          std::string *error, Counts *counts = nullptr);
};

} // namespace syncline
