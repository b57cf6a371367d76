// HeaderRecord — see headerrecord.h.
#include "recorder/headerrecord.h"

#include <nlohmann/json.hpp>

namespace syncline::rec {

std::string HeaderRecord::format(const WorkerIdentity &identity, const Clock &clock,
                                 const Clock::Anchor &anchor, const TimerConfig &config,
                                 int64_t startNs)
{
    nlohmann::ordered_json h;
    h["t"] = "header";
    h["format"] = "syncline";
    h["version"] = 1;
    h["minor"] = 2; // format 1.2: `C` counter records (1.1), wall-clock pairs on `hb`/`close` (1.2)
    h["rank"] = identity.rank;
    h["local_rank"] = identity.localRank;
    h["world_size"] = identity.worldSize;
    h["group_rank"] = identity.groupRank;
    h["role"] = identity.role;
    h["restart"] = identity.restart;
    h["run_id"] = identity.runId;
    h["host"] = identity.host;
    h["boot_id"] = identity.bootId;
    h["pid"] = identity.pid;
    h["clock"] = Clock::sourceName(clock.source());
    h["anchor"] = {
        {"mono_ns", anchor.monoNs}, {"wall_ns", anchor.wallNs}, {"spread_ns", anchor.spreadNs}};
    if (config.loadedFromFile)
        h["config"] = config.sourcePath;
    else
        h["config"] = nullptr;
    h["start_ns"] = startNs;
    if (clock.hasTransform())
        h["skew"] = {{"offset_ns", clock.offsetNs()}, {"drift_ppm", clock.driftPpm()}};
    h["flush_interval_ms"] = config.flushIntervalMs;
    h["overflow"] = TimerConfig::overflowName(config.overflow);
    return h.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace syncline::rec
