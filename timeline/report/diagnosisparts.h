// DiagnosisPart — `syncline diagnose` computed from parts made in other processes (syncline.dask,
// docs/scale.md "Beyond one machine"): one log loaded alone with the whole job's clocks
// (LoadOptions::clockPlan) gives its worker's part — a pruned slice of the worker holding what
// Diagnoser reads and nothing else; timeline() puts the parts back together as a Timeline on
// which Diagnoser::run and DiagnosisExporter give exactly the document of a full load.
//
// What a part holds: the worker's identity (rank, restart, world size, run id, source kind, its
// close record and last local time: generations and unclosed workers), its clock summary
// (method, bounds) and both clock maps (their segments' mapping); the log's names in its own
// order (all of them: the merge interns them part after part in the timeline's order, which
// is the order in which the full load interns each file's names — by rank, restart and file,
// a log without a rank after them all with the next free rank —, so the ids and the orders
// that follow from them — the collective names listed, the step detection's tie-break — come
// out the same); and per track (every track, so track indices stay) only these events, with
// their local times, name, depth and flags:
//  - the first event (the job's origin, Timeline::earliestStart, is read from tracks' first);
//  - the step candidates: on thread tracks, every complete event of a step key (Diagnoser::
//    stepKey) that is outermost somewhere on the worker, is the config's "step" kind or is the
//    query's step name; and the events one level below a key's shallowest events on a track
//    (a step's children: the critical path's compute by name);
//  - every complete event whose name can be a collective (the load's kinds, or a name
//    CollectiveNames recognises in either of its modes: the job may rule otherwise than the
//    log alone), with its args when they name a process group and sequence number or say
//    `failed` (what CollectiveInstances reads), and every event at a depth a collective has on
//    its track (its siblings: the compute before it by name, without steps);
//  - the ancestors of all these, so depth and parent are the worker's own.
// Names with complete events on a thread track of which none was a step candidate are listed
// (`partial`): when the job's step key turns out to be one of them (a key outermost on another
// worker only), holdsStep() says so and the part is made again with that step name.
// On the wire: varints, the starts as deltas (partcodec.h).
// Threading: values; any thread.
#pragma once

#include "timeline/model/timeline.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

struct DiagnosisPart
{
    Worker worker;                  // tracks' name ids index `names`, args ids index `args`
    std::vector<std::string> names; // the log's name table, id order (id 0 is "")
    std::vector<std::string> args;  // the kept collectives' args texts (those read)
    std::vector<uint32_t> partial;  // name ids (ascending) of names not kept whole

    // Worker `worker` of a loaded timeline (one log loaded alone, its kinds the job's config's);
    // `stepName`: the query's --step ("" to detect).
    static DiagnosisPart of(const Timeline &timeline, size_t worker, std::string_view stepName);
    std::string encode() const;
    // nullopt with *why when the bytes are not an encoded part (truncated, damaged, another
    // format).
    static std::optional<DiagnosisPart> decode(std::string_view bytes, std::string *why = nullptr);
    // Whether every complete thread-track event of the step key `key` is in the part.
    bool holdsStep(std::string_view key) const;
    // The job from its workers' parts, in the timeline's order: names interned and workers
    // added in that order, the range updated; the workers are moved out of `parts` (their names
    // and `partial` stay, for holdsStep). Kinds are not set (JobLoader::splitKinds sets the
    // whole job's).
    static std::shared_ptr<Timeline> timeline(std::vector<DiagnosisPart> &parts);
};

} // namespace syncline
