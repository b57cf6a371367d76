// LogHeader — see logheader.h.
#include "timeline/load/parse/log/logheader.h"

#include "timeline/load/parse/parsedfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <regex>
#include <stdexcept>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;

namespace {

// An integer header field in [lo, hi]: absent → def; anything else (a float such as 1e10, a
// string, an integer out of range) → def and a warning naming the key and the range. Casting
// the JSON value straight to int (nlohmann's value<int>) would wrap, or be undefined for a float.
int64_t intField(const nlohmann::json &obj, const char *key, int64_t def, int64_t lo, int64_t hi,
                 int64_t lineNo, ProblemLog &problems, const char *instead = nullptr)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        return def;
    bool ok = false;
    int64_t v = 0;
    if (it->is_number_unsigned()) {
        const uint64_t u = it->get<uint64_t>();
        ok = hi >= 0 && u <= uint64_t(hi);
        v = ok ? int64_t(u) : 0;
    } else if (it->is_number_integer()) {
        v = it->get<int64_t>();
        ok = v >= lo && v <= hi;
    }
    if (ok)
        return v;
    problems.add(Kind::BadHeader, lineNo,
                 std::string("header: \"") + key + "\" is " + it->dump().substr(0, 40) +
                     ", expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                     "; " + (instead ? std::string(instead) : std::to_string(def) + " used"));
    return def;
}

void readFields(const nlohmann::json &h, WorkerInfo &info, int64_t lineNo, ProblemLog &problems)
{
    constexpr int64_t kIntMax = std::numeric_limits<int>::max();
    const auto intOf = [&](const nlohmann::json &o, const char *key, int64_t def, int64_t lo,
                           int64_t hi) { return intField(o, key, def, lo, hi, lineNo, problems); };
    info.rank = int(intOf(h, "rank", 0, 0, kIntMax));
    info.localRank = int(intOf(h, "local_rank", 0, 0, kIntMax));
    info.worldSize = int(intOf(h, "world_size", 1, 1, kIntMax));
    info.groupRank = int(intOf(h, "group_rank", 0, 0, kIntMax));
    info.restart = int(intOf(h, "restart", 0, 0, kIntMax));
    info.role = h.value("role", std::string());
    info.runId = h.value("run_id", std::string());
    info.host = h.value("host", std::string());
    info.bootId = h.value("boot_id", std::string());
    info.clockSource = h.value("clock", std::string());
    info.pid = intOf(h, "pid", 0, 0, std::numeric_limits<int64_t>::max());
    if (h.contains("anchor") && h["anchor"].is_object()) {
        info.anchorMonoNs = intOf(h["anchor"], "mono_ns", 0, -kMaxTimeNs, kMaxTimeNs);
        info.anchorWallNs = intOf(h["anchor"], "wall_ns", 0, -kMaxTimeNs, kMaxTimeNs);
        info.anchorSpreadNs = intOf(h["anchor"], "spread_ns", 0, 0, kMaxTimeNs);
    }
    if (h.contains("skew") && h["skew"].is_object()) {
        info.hasSkew = true;
        info.skewOffsetNs = intOf(h["skew"], "offset_ns", 0, -kMaxTimeNs, kMaxTimeNs);
        const auto drift = h["skew"].find("drift_ppm");
        info.skewDriftPpm = drift != h["skew"].end() && drift->is_number() &&
                                    std::isfinite(drift->get<double>()) &&
                                    std::fabs(drift->get<double>()) <= 1e6
                                ? drift->get<double>()
                                : 0.0;
    }
}

// The newest minor version of format 1 this reader knows (1.1 added the `C` counter record, 1.2
// the wall-clock pairs on `hb` and `close`).
constexpr int64_t kMinor = 2;

} // namespace

bool LogHeader::read(std::string_view line, int64_t lineNo, WorkerInfo &info, ProblemLog &problems,
                     bool *unsupported, std::optional<int64_t> *startNs)
{
    try {
        const auto h = nlohmann::json::parse(line);
        if (h.value("format", std::string()) != "syncline")
            problems.add(Kind::BadHeader, lineNo, "header: \"format\" is not \"syncline\"");
        if (!h.contains("version"))
            throw std::runtime_error("no \"version\" (this reader knows version 1)");
        const auto &v = h["version"];
        if (!v.is_number_integer() || v.get<int64_t>() != 1) {
            *unsupported = true;
            problems.add(Kind::BadHeader, lineNo,
                         "unsupported log format version " + v.dump().substr(0, 40) +
                             " (this reader knows version 1); none of the file's records loaded",
                         Severity::Error);
            return false;
        }
        // Format 1.N (`minor`, absent = 0) only adds record types and keys, which readers of
        // an older 1.x skip: a newer minor loads, with a note that some records may be unshown.
        if (const auto m = h.find("minor");
            m != h.end() && (!m->is_number_integer() || m->get<int64_t>() > kMinor))
            problems.add(Kind::BadHeader, lineNo,
                         "log format 1." + m->dump().substr(0, 20) +
                             " is newer than this reader's 1." + std::to_string(kMinor) +
                             ": records of types it does not know are skipped",
                         Severity::Info);
        readFields(h, info, lineNo, problems);
        if (h.contains("start_ns")) {
            const int64_t v = intField(h, "start_ns", INT64_MIN, -kMaxTimeNs, kMaxTimeNs, lineNo,
                                       problems, "ignored");
            if (v != INT64_MIN)
                *startNs = v;
        }
        return true;
    } catch (const std::exception &e) {
        problems.add(Kind::BadHeader, lineNo, std::string("bad header: ") + e.what(), Severity::Error);
        return false;
    }
}

std::optional<int> LogHeader::rankFromFileName(const std::string &path)
{
    std::string base = path.substr(path.find_last_of('/') + 1);
    base =
        base.substr(0, base.find('.') == std::string::npos ? base.size() : base.find_last_of('.'));
    // A later incarnation's tag (rec::LogPath::incarnation: `.r<restart>`, `.r<restart>.p<pid>`,
    // `.r<restart>.p<pid>.<n>`; before format 1.1 `.r<restart>.<n>`) is not the rank:
    // timer_events.3.r0.p4242.1.log is rank 3.
    static const std::regex kIncarnationTag(R"(\.r[0-9]+(\.p[0-9]+)?(\.[0-9]+)?$)");
    base = std::regex_replace(base, kIncarnationTag, "");
    const size_t last = base.find_last_of("0123456789");
    if (last == std::string::npos)
        return std::nullopt;
    size_t first = last;
    while (first > 0 && std::isdigit(static_cast<unsigned char>(base[first - 1])))
        --first;
    return std::stoi(base.substr(first, std::min<size_t>(last - first + 1, 9)));
}

} // namespace syncline::load
