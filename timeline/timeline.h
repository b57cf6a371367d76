// Timeline — the whole job on one corrected global timeline: workers, interned names, args,
// problems found while loading, and the clock mode (corrected or raw).
//
// Invariants: workers sorted by (rank, restart); global times are ns on the reference clock;
// originNs() is the display zero = the earliest global event start in the current mode
// (documented in docs/cli.md; CSV start_ns/end_ns are relative to it).
// Threading: built on a loader thread, then handed over; const access from any thread;
// mutation (live append, setMode) only from the owning thread.
#pragma once

#include "loadproblem.h"
#include "stringtable.h"
#include "worker.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

enum class ClockMode
{
    Corrected,
    Raw
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
// through EventKindLookup::describe.
struct NameKind
{
    std::string category;
    uint32_t rgb = 0;
    bool hasColour = false;
};

class Timeline
{
public:
    std::vector<Worker> workers;
    StringTable names;
    std::vector<std::string> args; // JSON object text per args id
    std::vector<LoadProblem> problems;
    sync::CausalityReport causality;
    std::vector<std::string> clockNotes;
    std::vector<FlowPoint> flows; // sorted by (id, localNs)
    // Corrected mode: global ns = the sync engine's global time (the time server's clock, or the
    // lowest-rank domain's clock when aligned on collectives) + referenceShiftNs — the constant E
    // of ClockCorrector that puts that scale on the wall-clock epoch. 0 when nothing was corrected.
    int64_t referenceShiftNs = 0;
    // Per name id (may be shorter than names: missing entries have no kind).
    std::vector<NameKind> kinds;
    const NameKind *kindOf(uint32_t nameId) const
    {
        return nameId < kinds.size() ? &kinds[nameId] : nullptr;
    }

    ClockMode mode() const { return m_mode; }
    void setMode(ClockMode mode); // recomputes the origin and range
    const sync::ClockMap &map(size_t worker) const;

    int64_t toGlobal(size_t worker, int64_t localNs) const { return map(worker).toGlobal(localNs); }
    int64_t startNs(size_t w, size_t track, size_t i) const;
    int64_t endNs(size_t w, size_t track, size_t i) const;

    int64_t originNs() const { return m_origin; }
    int64_t beginNs() const { return m_begin; } // global range of all events
    int64_t endNs() const { return m_end; }
    void updateRange(); // recompute origin/begin/end after the events or maps changed
    // Live append (LiveJob) keeps the range up to date incrementally instead of updateRange()'s
    // full pass over every event's end.
    void setRange(int64_t origin, int64_t begin, int64_t end)
    {
        m_origin = origin;
        m_begin = begin;
        m_end = end;
    }

    size_t eventCount() const;

private:
    ClockMode m_mode = ClockMode::Corrected;
    int64_t m_origin = 0;
    int64_t m_begin = 0;
    int64_t m_end = 0;
};

} // namespace syncline
