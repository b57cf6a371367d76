// ClockCorrector — gives every worker of a built Timeline its two clock maps.
//
// raw: the header's wall-clock anchor, global = anchor.wall_ns + (local − anchor.mono_ns) —
//      what a viewer without skew correction shows (identity for Chrome traces, whose µs are
//      already the tracer's global clock).
// corrected: the sync engine's map (sync samples, message pairs, and collectives: events whose
//      name matches --align-on or whose configured category is "collective" — or, without
//      --align-on, whose name CollectiveNames recognises; recognised names reach the engine only
//      when some worker has no sync samples, so a job synced to a time server is corrected as
//      it always was — instances keyed by CollectiveInstances: process group and sequence
//      number from the args, else the k-th per name per worker, within one generation), shifted
//      by one constant E so that both maps share one scale:
//      E = raw(x) − engine(x) for the lowest-rank worker the engine corrected, at its first
//      event x. So global ns are wall-clock ns since the Unix epoch, and that worker's events
//      sit at the same place in both modes. A worker the engine could not correct (no samples,
//      no collectives) keeps its raw map in corrected mode, and a clock note says so. Workers
//      synced to another time server's clock than the reference (the lowest synced rank's; see
//      sync/syncengine.h) are aligned on collectives or keep their raw map, with
//      sync::SegOtherReference in their results and a note naming which ranks used which.
// wall: every worker's header anchor is then checked against its corrected clock (WallClocks),
//      and with Options::wallClocks the hosts that pass are placed by their wall clocks.
// Threading: runs on the loader thread; the Timeline is not yet shared.
#pragma once

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/parsedfile.h"
#include "timeline/model/timeline.h"

#include "sync/syncengine.h"

#include <optional>
#include <string>
#include <vector>

namespace syncline::load {

class ClockCorrector
{
public:
    struct Options
    {
        std::string alignOn; // glob; without wildcards a substring ("allreduce" = "*allreduce*")
        bool correct = true;
        // false (--no-align): no collective reaches the engine — neither --align-on's, the
        // config's "collective" category nor the recognised names; sync samples and message
        // pairs still correct the clocks. Timeline::kinds still marks the collectives.
        bool alignCollectives = true;
        // --clock wall: after the correction, every host whose wall clock agrees with its
        // corrected clock within its sync band is placed by its wall clock (WallClocks::useWall);
        // the others stay on the corrected clock, with a note. The wall clocks are checked
        // (Worker::wall, Timeline::wallClocksAgree) either way.
        bool wallClocks = false;
    };

    static void apply(Timeline &timeline, const std::vector<MessageLog> &messages,
                      EventKindLookup &kinds, const Options &options);
    // Live refresh (LiveJob): when `fixedShift` is set, that E is used instead of being
    // recomputed, so a worker's corrected times move by exactly the change in its own estimate.
    // The E used is stored in *shiftOut when given (untouched when no worker was corrected).
    static void apply(Timeline &timeline, const std::vector<MessageLog> &messages,
                      EventKindLookup &kinds, const Options &options,
                      const std::optional<int64_t> &fixedShift, int64_t *shiftOut);
    // The same, from message pairs already matched (pairMessages), so the caller can free the
    // message records before the engine runs (JobLoader does: they are the biggest transient).
    static void apply(Timeline &timeline, std::vector<sync::MessagePair> messagePairs,
                      EventKindLookup &kinds, const Options &options,
                      const std::optional<int64_t> &fixedShift, int64_t *shiftOut);
    // Message pairs for the engine: per id, the last send and the last receive (worker order,
    // then file order) when they lie on different workers, plus Chrome flow arrows (s → f)
    // across workers; sorted by (send worker, send time, receive worker, receive time).
    // With `links`, also the viewer's arrows from the same matching (every pair, on any two
    // tracks, and every step s/t → t/f of a flow), replacing *links (LinkTable: sorted by
    // MessageLink::lessByPair, grouped). JobLoader and LiveJob both take their arrows from here.
    static std::vector<sync::MessagePair> pairMessages(const Timeline &timeline,
                                                       const std::vector<MessageLog> &messages,
                                                       LinkTable *links = nullptr);
    // The same, consuming the records: each worker's are freed as soon as the pairing has
    // taken what it needs from them (the biggest transient of a load).
    static std::vector<sync::MessagePair>
    pairMessages(const Timeline &timeline, std::vector<MessageLog> &&messages, LinkTable *links);
    // Only the links (a job loaded without correction).
    static LinkTable links(const Timeline &timeline, const std::vector<MessageLog> &messages);
    static bool matchesAlignPattern(const std::string &pattern, std::string_view name);
    // The one rule for which names are blocking collectives: the config gives it the category
    // "collective"; or --align-on matches it; or, without --align-on, CollectiveNames recognises
    // it (`recognised`, CollectiveNames::recognise of the timeline's names) and the config gives
    // it no other category.
    static bool isCollective(const Timeline &timeline, EventKindLookup &kinds,
                             const std::string &alignOn, const std::vector<uint8_t> &recognised,
                             uint32_t nameId);
    // Timeline::kinds for every name (EventKindLookup::describe), with NameKind::collective set
    // by isCollective — what the viewer's collective instances go by.
    static void markCollectives(Timeline &timeline, EventKindLookup &kinds,
                                const std::string &alignOn);
    // A split load's clock inputs (JobLoader::clockInputs): keeps of a prepared file (sorted, nested,
    // args in argRefs) only the events whose name isCollective could accept in any job — the
    // config's "collective" category, --align-on's match, or a name CollectiveNames classifies
    // (whichever kind the job turns out to recognise) — with their args; a kept event's parent
    // becomes its nearest kept ancestor. The correction reads nothing else of the events (the
    // reference point is the header's first local time), so it gives the full load's result.
    static void keepClockInputs(ParsedFile &file, EventKindLookup &kinds,
                                const std::string &alignOn);
    // Whether the names CollectiveNames recognises (with no config category or --align-on)
    // reach the engine: only when some of a job's workers (two or more) have no sync samples.
    static bool alignsOnRecognisedNames(size_t workers, size_t unsynced);
    // A split load's decoded clock inputs, when every worker of the job has sync samples (so
    // !alignsOnRecognisedNames): keeps only the events whose names `options` aligns on —
    // isCollective with no recognised name: the config's "collective" category or --align-on's
    // match; none with alignment or correction off — and only their args. The correction reads
    // nothing of the others, so it gives the same clocks from what is left.
    static void keepAlignedEvents(ParsedFile &file, EventKindLookup &kinds,
                                  const Options &options);
};

} // namespace syncline::load
