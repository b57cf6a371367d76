// EventQuery — the find language of the viewer (docs/viewer.md "Find and filters"): which events
// a query string selects. Pure logic over the model (no Qt, no I/O), so the viewer, tests and a
// brute-force reference all use this one rule.
//
// A query is terms separated by spaces; an event matches when every term holds (a term with a
// leading '-' must not hold). Values may be quoted ("two words"). Terms:
//   WORD            the name contains WORD (case-insensitive)
//   /RE/            the name matches the regular expression RE (ECMAScript, case-insensitive)
//   name:V name=V   the name contains V / equals V (exactly); name:/RE/ as /RE/
//   cat:V cat=V     the category (the config's event_kinds category, else the async track's cat)
//   host:V host=V   the worker's host
//   thread:V        the thread's name contains V, or its tid is V; thread=V: the name is V
//   rank:N  rank:N-M  rank OP N      the worker's rank (OP: = != < <= > >=); restart the same
//   dur OP D        the duration, D with a unit ns, us (µs), ms, s (1.5ms); only complete
//                   intervals have one (open events and instants never match a dur term)
//   args.K          the args object has key K (K may be a dotted path: args.opt.lr)
//   args.K=V args.K!=V   the value equals V: numerically when both are numbers, else as text
//   args.K OP N     numeric comparison (< <= > >=); args.K:V the value's text contains V
// Terms split in three stages so a viewer can evaluate each once: name terms (per name),
// track terms (per worker thread), event terms (dur and args, per event; args per args id).
// Invariants: parse() never throws; a query that parses evaluates without error on any input
// (args texts that are not JSON objects simply have no keys). Nesting in args is scanned
// iteratively (no recursion on the input).
// Threading: a parsed query is immutable; evaluate from any thread.
#pragma once

#include "timeline/model/clockmode.h"
#include "timeline/model/timeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

class EventQuery
{
public:
    enum class Field
    {
        Name,
        Category,
        Host,
        Thread,
        Rank,
        Restart,
        Duration,
        Arg
    };
    enum class Op
    {
        Contains,
        Regex,
        Has, // args.K alone
        Eq,
        Ne,
        Lt,
        Le,
        Gt,
        Ge,
        Range // rank:N-M
    };
    struct Term
    {
        Field field = Field::Name;
        Op op = Op::Contains;
        bool negate = false;
        std::string text;          // lower-cased for Contains
        std::string argPath;       // Arg: the key path after "args."
        double number = 0, high = 0; // numeric value (Range: [number, high]); Duration: ns
        bool numeric = false;        // text parses as a number
        std::shared_ptr<const std::regex> regex;
    };

    // Parses `text`; std::nullopt with *error ("dur: '1xs' is not a duration (ns, us, ms, s)")
    // when it does not. An empty or blank text parses to a query with no terms (matches all).
    static std::optional<EventQuery> parse(std::string_view text, std::string *error);

    const std::vector<Term> &terms() const { return m_terms; }
    bool empty() const { return m_terms.empty(); }
    bool hasNameTerms() const { return m_hasName; }
    bool hasTrackTerms() const { return m_hasTrack; }
    bool hasEventTerms() const { return m_hasDuration || m_hasArgs; }
    bool hasArgTerms() const { return m_hasArgs; }

    // Stage 1: the name and category terms for one name.
    bool matchesName(std::string_view name, std::string_view category) const;
    // Stage 2: host, thread, rank and restart terms for one thread of one worker.
    bool matchesTrack(const WorkerInfo &worker, const EventTrack &track) const;
    // Stage 3: the duration terms (durationNs < 0: no duration, an open event or an instant).
    bool matchesDuration(int64_t durationNs) const;
    // Stage 3: the args terms for one args object text ("" when the event has none).
    bool matchesArgs(std::string_view argsJson) const;
    // Every stage for event `index` of workers[worker].tracks[track]: the reference rule.
    bool matches(const Timeline &timeline, size_t worker, size_t track, size_t index,
                 ClockMode mode) const;
    // The category a name's terms see: its kind's category, else the track's (async) cat.
    static std::string_view categoryOf(const Timeline &timeline, const EventTrack &track,
                                       uint32_t nameId);

    // The value of key path `path` ("a.b") in a JSON object text, as raw JSON text (strings
    // unquoted and unescaped); nullopt when absent or not an object.
    static std::optional<std::string> argValue(std::string_view json, std::string_view path);

private:
    std::vector<Term> m_terms;
    bool m_hasName = false, m_hasTrack = false, m_hasDuration = false, m_hasArgs = false;
};

} // namespace syncline
