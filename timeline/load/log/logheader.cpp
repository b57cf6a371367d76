// LogHeader — see logheader.h.
#include "timeline/load/log/logheader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <regex>
#include <stdexcept>

namespace syncline::load {

using Severity = LoadProblem::Severity;

namespace {

void readFields(const nlohmann::json &h, WorkerInfo &info)
{
    info.rank = h.value("rank", 0);
    info.localRank = h.value("local_rank", 0);
    info.worldSize = h.value("world_size", 1);
    info.groupRank = h.value("group_rank", 0);
    info.restart = h.value("restart", 0);
    info.role = h.value("role", std::string());
    info.runId = h.value("run_id", std::string());
    info.host = h.value("host", std::string());
    info.bootId = h.value("boot_id", std::string());
    info.clockSource = h.value("clock", std::string());
    info.pid = h.value("pid", int64_t(0));
    if (h.contains("anchor") && h["anchor"].is_object()) {
        info.anchorMonoNs = h["anchor"].value("mono_ns", int64_t(0));
        info.anchorWallNs = h["anchor"].value("wall_ns", int64_t(0));
        info.anchorSpreadNs = h["anchor"].value("spread_ns", int64_t(0));
    }
    if (h.contains("skew") && h["skew"].is_object()) {
        info.hasSkew = true;
        info.skewOffsetNs = h["skew"].value("offset_ns", int64_t(0));
        info.skewDriftPpm = h["skew"].value("drift_ppm", 0.0);
    }
}

} // namespace

bool LogHeader::read(std::string_view line, int64_t lineNo, WorkerInfo &info, ProblemLog &problems,
                     bool *unsupported, std::optional<int64_t> *startNs)
{
    try {
        const auto h = nlohmann::json::parse(line);
        if (h.value("format", std::string()) != "syncline")
            problems.add("header", lineNo, "header: \"format\" is not \"syncline\"");
        if (!h.contains("version"))
            throw std::runtime_error("no \"version\" (this reader knows version 1)");
        const auto &v = h["version"];
        if (!v.is_number_integer() || v.get<int64_t>() != 1) {
            *unsupported = true;
            problems.add("header", lineNo,
                         "unsupported log format version " + v.dump().substr(0, 40) +
                             " (this reader knows version 1); none of the file's records loaded",
                         Severity::Error);
            return false;
        }
        readFields(h, info);
        if (h.contains("start_ns") && h["start_ns"].is_number_integer())
            *startNs = h["start_ns"].get<int64_t>();
        return true;
    } catch (const std::exception &e) {
        problems.add("header", lineNo, std::string("bad header: ") + e.what(), Severity::Error);
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
