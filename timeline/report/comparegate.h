// CompareGate — regression conditions over a comparison (`syncline compare --fail-if`): a CI
// job fails when B is slower than A by more than a threshold.
//
// A condition is `NAME:STAT>THRESHOLD`:
//   NAME       an event name, exact, or a glob (GlobPattern: * ? [..]) when it has wildcards;
//              it is split from STAT at the last ':' before the last '>', so names may hold
//              ':' and '>' themselves
//   STAT       mean, p50, p95, p99 or total — of the name's all-ranks row (Compare's, i.e.
//              Stats': complete intervals, nearest-rank percentiles, the comparison's clock)
//   THRESHOLD  a signed number with `%` (relative: 100 · (B − A) / A) or a duration unit
//              ns, us, ms, s (absolute: B − A); `+` may be omitted
// A condition holds for a matched name when the change exceeds the threshold strictly:
// relative: (B − A) / A · 100 > X, and when A is 0 (the name absent from A, or no duration):
// B > 0; absolute: B − A > X ns. A glob condition holds when it holds for any matched name.
// A name recorded by neither run matches nothing: `matched` is empty and the caller reports it
// (a misspelt name must not pass a CI gate silently).
// Threading: pure functions of their arguments; any thread.
#pragma once

#include "timeline/report/compare.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline {

struct GateCondition
{
    enum class Stat
    {
        Mean,
        P50,
        P95,
        P99,
        Total
    };
    std::string spec; // as given
    std::string name; // exact name or glob
    Stat stat = Stat::Mean;
    bool relative = true; // % (else absolute ns)
    double percent = 0;   // when relative
    int64_t ns = 0;       // when absolute
};

// One name a condition matched.
struct GateMatch
{
    std::string name;
    int64_t aNs = 0, bNs = 0; // the stat in A and B
    double ratio = 0;         // B / A; NaN when A is 0
    bool holds = false;
};

struct GateOutcome
{
    GateCondition condition;
    std::vector<GateMatch> matched; // in the comparison's impact order
    bool holds = false;             // any matched name holds
};

class CompareGate
{
public:
    // Parses "NAME:STAT>THRESHOLD"; false with a reason naming the bad part.
    static bool parse(const std::string &text, GateCondition *out, std::string *error);
    static std::vector<GateOutcome> evaluate(const CompareResult &result,
                                             const std::vector<GateCondition> &conditions);
    static const char *statName(GateCondition::Stat stat); // "mean", "p50", ...
    // "+5%" / "+5.000 ms" — the threshold as the report prints it.
    static std::string thresholdText(const GateCondition &c);
};

} // namespace syncline
