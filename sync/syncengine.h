// SyncEngine — the skew-correction engine: per-worker clock samples (and optionally collective
// instances and message pairs) in, per-worker ClockMap local → global out. Pure: no I/O, no
// logging side effects, deterministic for the same input.
//
// Global time is the reference clock (the time server's monotonic clock) when sync samples exist;
// with alignment on collectives only, it is the clock of the lowest-rank worker's domain.
// Samples taken against different reference clocks (refs whose time-server boot hashes differ:
// two servers, or one on another host) are never put on one scale: the reference clock of the
// lowest-rank synced worker is global time, and workers synced to any other are aligned on
// collectives like workers without samples, or left with no map (method None); either way they
// carry SegOtherReference and a note names which ranks used which reference.
// Workers that share a clock domain (same host and boot id and clock source) share one model.
// Threading: run() is reentrant; it may use worker threads internally.
#pragma once

#include "clockmap.h"
#include "clocksample.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncline::sync {

enum class ClockMethod
{
    None,
    SyncSamples,
    Collectives
};

struct WorkerClockInput
{
    int workerId = 0; // caller's index; results come back in the same order
    int rank = 0;
    std::string host;
    std::string bootId;
    std::string clockSource;
    std::string refId;                // reference clock id of the samples ("" = none)
    std::vector<ClockSample> samples; // any order
    int64_t firstLocalNs = 0;         // span of this worker's events (local ns)
    int64_t lastLocalNs = 0;
};

// One instance of a blocking collective on one worker (e.g. the 17th "allreduce").
struct CollectiveInstance
{
    int workerId = 0;
    // Instance key with nameId: the k-th instance of this name on this worker, from 0 (callers
    // may put a group in the high bits: instances pair only when (nameId, sequence) are equal).
    int64_t sequence = 0;
    uint32_t nameId = 0;
    int64_t localBegin = 0;
    int64_t localEnd = 0;
};

// A receive must happen after its send (one-sided constraint).
struct MessagePair
{
    int sendWorker = 0;
    int64_t sendLocal = 0;
    int recvWorker = 0;
    int64_t recvLocal = 0;
};

struct SyncEngineOptions
{
    bool alignOnCollectives = true; // used only for workers without sync samples
    bool repairCausality = true;    // CLC over messages and collectives
    int64_t minMessageLatencyNs = 0;
};

struct SyncEngineInput
{
    std::vector<WorkerClockInput> workers;
    std::vector<CollectiveInstance> collectives;
    std::vector<MessagePair> messages;
    SyncEngineOptions options;
};

struct WorkerClockResult
{
    int workerId = 0;
    ClockMap map;
    ClockMethod method = ClockMethod::None;
    int64_t offsetNs = 0;  // global - local at the worker's first event
    double driftPpm = 0.0; // fitted drift: mean (slope − 1) · 1e6 of the map before causality
                           // repair, over the part of the span its samples cover
    int64_t boundNs = 0;   // largest guaranteed bound over the worker's span (0 = none)
    int64_t bandNs = 0;    // largest statistical band over the worker's span
    // Largest assumption-based bound over the span (ClockSegment::assumedBoundNs; = boundNs where
    // a segment has none): collective alignment's bound under its documented assumption.
    int64_t assumedBoundNs = 0;
    uint32_t flags = 0; // OR of the segments' SegmentFlag bits
    int sampleCount = 0;
    int domain = 0; // clock-domain index; workers with equal domain share a model
};

struct CausalityReport
{
    int64_t constraints = 0;
    int64_t violationsBefore = 0;
    int64_t violationsAfter = 0;
    int64_t eventsMoved = 0;
    int64_t maxShiftNs = 0;
    // False when the repair stopped at its pass or size bound before every constraint held
    // (constraints that contradict each other: a cycle no increasing map can meet); the maps
    // then carry the adjustment made so far and violationsAfter counts what is left.
    bool converged = true;
    int passes = 0; // passes over the constraints near violation
};

struct SyncEngineResult
{
    std::vector<WorkerClockResult> workers;
    CausalityReport causality;
    std::vector<std::string> notes; // human-readable remarks (e.g. "rank 3: 2 clock steps")
};

SyncEngineResult runSyncEngine(const SyncEngineInput &input);

const char *methodName(ClockMethod method); // "none", "sync", "collectives"

} // namespace syncline::sync
