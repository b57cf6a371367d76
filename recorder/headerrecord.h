// HeaderRecord — the first line of every syncline log, `{"t":"header",...}` (docs/log-format.md
// "header"): format and version, worker identity, clock source and its anchor (monotonic ↔
// wall), config path, start time, the synthetic skew when a test clock is active, flush interval
// and overflow policy. Written once per log with nlohmann_json, in its own translation unit:
// with this code inside recordformatter.cpp the writer thread's formatting ran ~6 % slower
// (bench_recorder WriterThroughput, same run).
// Stateless; safe from any thread.
#pragma once

#include "recorder/clock.h"
#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"

#include <cstdint>
#include <string>

namespace syncline::rec {

class HeaderRecord
{
public:
    // The header line, ending in '\n'. startNs: the client's clock at creation.
    static std::string format(const WorkerIdentity &identity, const Clock &clock,
                              const Clock::Anchor &anchor, const TimerConfig &config,
                              int64_t startNs);
};

} // namespace syncline::rec
