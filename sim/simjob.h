// SimJob — everything one simulated job produced: per-worker sync samples and events with both
// their local stamps and their true times, messages, collectives, and each host's true clock.
// Invariants: per worker, events are in the order their begins were produced (nested: a parent
// precedes its children); true times are reference-clock ns (refBase + τ); local stamps are the
// worker's monotonic clock. Value type; no threading rules.
#pragma once

#include "simconfig.h"
#include "trueclock.h"

#include "sync/syncengine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline::sim {

struct SimEvent
{
    int nameId = 0; // index into SimJob::names
    int tid = 0;
    int64_t localBegin = 0, localEnd = 0;
    int64_t trueBegin = 0, trueEnd = 0;
    int64_t step = -1; // training step (args), -1 none
};

struct SimMessage
{
    int sendWorker = 0, recvWorker = 0;
    int64_t sendLocal = 0, recvLocal = 0;
    int64_t sendTrue = 0, recvTrue = 0;
    std::string id;
};

struct SimWorker
{
    int rank = 0;
    int host = 0; // index into SimJob::clocks
    int localRank = 0;
    int pid = 0, tidMain = 0, tidLoader = 0;
    std::vector<sync::ClockSample> samples;
    std::vector<SimEvent> events;
    int64_t startLocal = 0, endLocal = 0;
};

struct SimJob
{
    SimConfig config;
    int64_t refBase = 0;
    std::vector<TrueClock> clocks; // one per host
    std::vector<std::string> hostNames, bootIds;
    std::vector<SimWorker> workers;
    std::vector<SimMessage> messages;
    std::vector<sync::CollectiveInstance> collectives; // workerId = rank
    std::vector<std::string> names;                    // event names; collectives use nameId too
    std::string refId = "timeserver:29400";

    // The engine's input (samples, domains, collectives, messages), as the timeline would build it.
    sync::SyncEngineInput engineInput(bool withSamples = true) const;
};

} // namespace syncline::sim
