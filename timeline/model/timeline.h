// Timeline — the whole job on one corrected global timeline: workers, interned names, args,
// problems found while loading, and the time range of its events under each clock mode.
//
// Invariants: workers sorted by (rank, restart); global times are ns on the reference clock;
// range(mode).origin is the display zero = the earliest global event start in that mode
// (documented in docs/cli.md; CSV start_ns/end_ns are relative to it) — of the whole job, also
// for a windowed timeline (`window.active`), whose events are only those overlapping the window. The Timeline holds no
// current clock mode: every time query takes the ClockMode it is asked in.
// Threading: built on a loader thread, then handed over; const access from any thread;
// mutation (live append) only from the owning thread.
#pragma once

#include "timeline/model/argstore.h"
#include "timeline/model/linktable.h"
#include "timeline/model/loadproblem.h"
#include "timeline/model/stringtable.h"
#include "timeline/model/worker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

// The global range of a timeline's events in one clock mode: origin is the display zero (the
// earliest start), [begin, end] spans every event (origin == begin).
struct TimeRange
{
    int64_t origin = 0;
    int64_t begin = 0;
    int64_t end = 0;
    int64_t duration() const { return end - begin; }
};

// One end of a Chrome-trace flow arrow (`s`, `t`, `f` records), kept for export and, when its
// ends lie on different workers, used as a message pair by the clock correction.
struct FlowPoint
{
    uint32_t worker = 0;
    uint32_t track = 0;
    int64_t localNs = 0;
    uint64_t id = 0;
    char phase = 's';           // 's' start, 't' step, 'f' finish
    bool bindEnclosing = false; // "bp":"e"
    uint32_t nameId = 0;
    uint32_t categoryId = 0;
};

// What the config's event_kinds say about one event name (docs/config.md): its category ("" when
// none) and its explicit colour (0xRRGGBB, when hasColour). Filled by the loader and LiveJob
// through EventKindLookup::describe (and ClockCorrector::markCollectives).
struct NameKind
{
    std::string category;
    uint32_t rgb = 0;
    bool hasColour = false;
    // The clock correction treats the name as a blocking collective (category "collective", or
    // it matched --align-on): its k-th instances are one operation (CollectiveInstances).
    bool collective = false;
};

// A windowed load (LoadOptions::window, docs/scale.md): the timeline holds only the events that
// overlap [beginNs, endNs] (global ns of `mode`); `job` is the whole job's range per mode
// ([0] corrected, [1] raw), and the timeline's origins stay the whole job's.
struct TimelineWindow
{
    bool active = false;
    ClockMode mode = ClockMode::Corrected;
    int64_t beginNs = 0;
    int64_t endNs = 0;
    TimeRange job[2];
    bool readOnlyWindow = false; // read through the index (false: full load, then cut)
    int64_t bytesRead = 0;       // bytes read: of the logs, or of their event stores
    bool fromEventStore = false; // decoded from the logs' event stores (no JSON parsed)
};

class Timeline
{
public:
    std::vector<Worker> workers;
    StringTable names;
    ArgStore args; // JSON object text per args id (interned: events share ids)
    std::vector<LoadProblem> problems;
    sync::CausalityReport causality;
    std::vector<std::string> clockNotes;
    std::vector<FlowPoint> flows; // sorted by (id, localNs)
    // Arrows between tracks (msg pairs and flow steps), 16 bytes a link, grouped by track pair
    // and kind (LinkTable). Loaded and live-attached jobs alike (LiveJob rebuilds them as
    // message records arrive).
    LinkTable links;
    // Corrected mode: global ns = the sync engine's global time (the time server's clock, or the
    // lowest-rank domain's clock when aligned on collectives) + referenceShiftNs — the constant E
    // of ClockCorrector that puts that scale on the wall-clock epoch. 0 when nothing was corrected.
    int64_t referenceShiftNs = 0;
    // The clock the job was loaded on (LoadOptions::clock, else the config's view_clock);
    // Wall: accepted hosts are placed by their wall clocks (Worker::wall.used).
    ClockChoice clockChoice = ClockChoice::Corrected;
    // Every host's wall clock agrees with its corrected clock within its sync band (at least two
    // hosts checked; WallClocks): `--clock wall` is worth suggesting.
    bool wallClocksAgree = false;
    TimelineWindow window; // inactive unless loaded with a window
    // Per name id (may be shorter than names: missing entries have no kind).
    std::vector<NameKind> kinds;
    const NameKind *kindOf(uint32_t nameId) const
    {
        return nameId < kinds.size() ? &kinds[nameId] : nullptr;
    }

    const sync::ClockMap &map(size_t worker, ClockMode mode) const
    {
        return workers[worker].map(mode);
    }
    int64_t toGlobal(size_t worker, int64_t localNs, ClockMode mode) const
    {
        return map(worker, mode).toGlobal(localNs);
    }
    int64_t startNs(size_t w, size_t track, size_t i, ClockMode mode) const;
    int64_t endNs(size_t w, size_t track, size_t i, ClockMode mode) const;

    // The range of every event in `mode` (as of the last updateRange() or setRange()).
    const TimeRange &range(ClockMode mode) const { return m_range[index(mode)]; }
    int64_t originNs(ClockMode mode) const { return range(mode).origin; }

    // The one rule for the range's begin: the earliest global start, found from each track's
    // first event (tracks are sorted by start); INT64_MAX when there are no events.
    int64_t earliestStart(ClockMode mode) const;
    // Recomputes both modes' ranges after the events or maps changed: begin = earliestStart(),
    // end = the latest global end over every event (ends are not sorted: a full pass); origin =
    // begin, or the whole job's origin when `window` is active.
    void updateRange();
    // Live append (LiveJob) keeps the range up to date incrementally instead of updateRange()'s
    // full pass: begin = earliestStart(mode), end = `endNs` (the job's "now" in that mode).
    void setLiveRange(ClockMode mode, int64_t endNs);

    size_t eventCount() const;

private:
    static size_t index(ClockMode mode) { return mode == ClockMode::Raw ? 1 : 0; }
    TimeRange m_range[2];
};

} // namespace syncline
