#include "timeline/report/comparegate.h"

#include "recorder/globpattern.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace syncline {

namespace {

int64_t statOf(const CompareSide &s, GateCondition::Stat stat)
{
    switch (stat) {
    case GateCondition::Stat::Mean:
        return s.meanNs;
    case GateCondition::Stat::P50:
        return s.p50Ns;
    case GateCondition::Stat::P95:
        return s.p95Ns;
    case GateCondition::Stat::P99:
        return s.p99Ns;
    case GateCondition::Stat::Total:
        return s.totalNs;
    }
    return 0;
}

bool parseThreshold(const std::string &text, GateCondition *c, std::string *error)
{
    const char *begin = text.c_str();
    char *end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin || text.empty() || !(text[0] == '+' || text[0] == '-' ||
                                          (text[0] >= '0' && text[0] <= '9') || text[0] == '.')) {
        *error = "threshold '" + text + "': expected a number with % or ns/us/ms/s, e.g. +5% or +2ms";
        return false;
    }
    const std::string unit = end;
    if (!std::isfinite(v)) {
        *error = "threshold '" + text + "' is not finite";
        return false;
    }
    if (unit == "%") {
        c->relative = true;
        c->percent = v;
        return true;
    }
    double scale = 0;
    if (unit == "ns")
        scale = 1;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    if (scale == 0) {
        *error = "threshold '" + text + "': unit '" + unit +
                 "' is not one of %, ns, us, ms, s";
        return false;
    }
    if (std::fabs(v * scale) > 9e18) {
        *error = "threshold '" + text + "' is out of range";
        return false;
    }
    c->relative = false;
    c->ns = std::llround(v * scale);
    return true;
}

} // namespace

bool CompareGate::parse(const std::string &text, GateCondition *out, std::string *error)
{
    GateCondition c;
    c.spec = text;
    const size_t gt = text.rfind('>');
    if (gt == std::string::npos) {
        *error = "'" + text + "': expected NAME:STAT>THRESHOLD, e.g. 'train_step:mean>+5%'";
        return false;
    }
    const std::string left = text.substr(0, gt);
    const size_t colon = left.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        *error = "'" + text + "': expected NAME:STAT>THRESHOLD (no NAME: before the stat)";
        return false;
    }
    c.name = left.substr(0, colon);
    const std::string stat = left.substr(colon + 1);
    static const std::pair<const char *, GateCondition::Stat> stats[] = {
        {"mean", GateCondition::Stat::Mean},
        {"p50", GateCondition::Stat::P50},
        {"p95", GateCondition::Stat::P95},
        {"p99", GateCondition::Stat::P99},
        {"total", GateCondition::Stat::Total}};
    bool found = false;
    for (const auto &[n, s] : stats)
        if (stat == n) {
            c.stat = s;
            found = true;
        }
    if (!found) {
        *error = "'" + text + "': stat '" + stat + "' is not one of mean, p50, p95, p99, total";
        return false;
    }
    if (rec::GlobPattern::hasWildcards(c.name)) {
        if (const auto why = rec::GlobPattern::validate(c.name)) {
            *error = "'" + text + "': name pattern: " + *why;
            return false;
        }
    }
    std::string why;
    if (!parseThreshold(text.substr(gt + 1), &c, &why)) {
        *error = "'" + text + "': " + why;
        return false;
    }
    *out = std::move(c);
    return true;
}

std::vector<GateOutcome> CompareGate::evaluate(const CompareResult &result,
                                               const std::vector<GateCondition> &conditions)
{
    std::vector<GateOutcome> out;
    out.reserve(conditions.size());
    for (const GateCondition &c : conditions) {
        GateOutcome o;
        o.condition = c;
        const bool glob = rec::GlobPattern::hasWildcards(c.name);
        for (const CompareRow &row : result.rows) {
            if (row.rank)
                continue;
            if (glob ? !rec::GlobPattern::match(c.name, row.name) : row.name != c.name)
                continue;
            GateMatch m;
            m.name = row.name;
            m.aNs = statOf(row.a, c.stat);
            m.bNs = statOf(row.b, c.stat);
            m.ratio = CompareRow::ratio(m.aNs, m.bNs);
            if (!c.relative)
                m.holds = m.bNs - m.aNs > c.ns;
            else if (m.aNs == 0)
                m.holds = m.bNs > 0;
            else
                m.holds = double(m.bNs - m.aNs) * 100.0 / double(m.aNs) > c.percent;
            o.holds = o.holds || m.holds;
            o.matched.push_back(std::move(m));
        }
        out.push_back(std::move(o));
    }
    return out;
}

const char *CompareGate::statName(GateCondition::Stat stat)
{
    switch (stat) {
    case GateCondition::Stat::Mean:
        return "mean";
    case GateCondition::Stat::P50:
        return "p50";
    case GateCondition::Stat::P95:
        return "p95";
    case GateCondition::Stat::P99:
        return "p99";
    case GateCondition::Stat::Total:
        return "total";
    }
    return "?";
}

std::string CompareGate::thresholdText(const GateCondition &c)
{
    char buf[48];
    if (c.relative)
        std::snprintf(buf, sizeof buf, "%+g%%", c.percent);
    else
        std::snprintf(buf, sizeof buf, "%+.3f ms", double(c.ns) / 1e6);
    return buf;
}

} // namespace syncline
