// CompareAnchor — where two runs are aligned when they are compared (`syncline compare
// --anchor`, `syncline open A --compare B --anchor`, the viewer's Compare panel): the start of
// each run, or the k-th instance of a step-like event name.
//
// The anchor time of one run, in global ns of a clock mode:
//  - "start": the run's earliest event start (Timeline::earliestStart, the display origin);
//  - "NAME[:K]": per rank, the start of that rank's K-th (1-based, default 1) event named NAME
//    exactly (any thread, any depth, in start order); the run's anchor is the EARLIEST of these
//    over its ranks (the rank that began step K first). A rank with fewer than K instances
//    gives none; a run where no rank has K instances has no anchor (find() says why).
// B is then shifted as a whole, by one constant (anchor(A) − anchor(B)), so that the two
// anchors coincide: B's own skew between ranks is kept, which is what a comparison shows.
// Worked example: A's ranks begin their 2nd "step" at 10.0 s and 10.2 s, B's at 50.4 s and
// 50.3 s → anchor(A) = 10.0 s, anchor(B) = 50.3 s, B is shifted by −40.3 s.
// Threading: pure functions over a const Timeline.
#pragma once

#include "timeline/model/timeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace syncline {

struct CompareAnchor
{
    std::string name; // empty: the start
    int k = 1;        // 1-based instance per rank

    bool byStart() const { return name.empty(); }
    // "start" or "NAME" or "NAME:K" (K ≥ 1; a name may contain ':' — only a trailing ":<digits>"
    // is read as K). False with *error ("expected start, NAME or NAME:K with K >= 1, got 'x:0'").
    static bool parse(const std::string &text, CompareAnchor *anchor, std::string *error);
    std::string text() const; // "start", "step:2"

    // The run's anchor time (global ns in `mode`); nullopt with *why when it has none
    // ("no rank has a 3rd 'step' (at most 2 per rank)", "no event named 'step'", "no events").
    // find(run) is pick(starts(run)).
    std::optional<int64_t> find(const Timeline &run, ClockMode mode, std::string *why) const;

    // What find() reads of a run, in a form that merges: a split comparison (syncline.dask)
    // takes it of each log loaded alone and merges the logs' (in any grouping) before pick().
    struct Starts
    {
        int64_t earliest = INT64_MAX; // "start": the earliest event start (INT64_MAX: none)
        bool named = false;           // the run's names hold the anchor's name
        // Per rank (every rank of the run, none left out): the K smallest starts of the name,
        // ascending (fewer when the rank has fewer).
        std::map<int, std::vector<int64_t>> perRank;
        void merge(const Starts &other, int k);
    };
    Starts starts(const Timeline &run, ClockMode mode) const;
    std::optional<int64_t> pick(const Starts &starts, std::string *why) const;
};

} // namespace syncline
