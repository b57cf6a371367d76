// TimerConfig — the validated contents of timer_config.json (spec: docs/config.md).
//
// Every key is checked: an unknown key, a wrong type or a value out of range throws ConfigError
// whose message names the file, the key path (e.g. `event_kinds[2].expected_max_ms`) and what
// was expected. A missing file is NOT an error for loadOrDefaults() (documented defaults are
// used and the recorder says so once in the log); load() requires the file.
// Units: *_ms are milliseconds, *_s seconds, *_ns nanoseconds as in the file; expectedMaxNs is
// converted to ns (-1 = no limit).
// Threading: a TimerConfig is a plain value; const access from several threads is safe.
#pragma once

#include "recorder/clock.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncline::rec {

class ConfigError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct EventKind
{
    std::string pattern; // exact name, or a GlobPattern when glob is true
    bool glob = false;
    std::string category;       // "" when not given
    std::string color;          // "#rrggbb", "" when not given
    int64_t expectedMaxNs = -1; // -1: no expected maximum
};

// What a producer does when its per-thread buffer is full. Neither blocks on I/O.
enum class OverflowPolicy
{
    DropNewest, // the new record is dropped and counted (hb/close `dropped`); default
    Grow,       // the buffer grows (a new segment twice the size is chained); lossless
};

struct SyncSettings
{
    bool enabled = true;
    std::optional<std::string> server; // "host:port"; env SYNCLINE_TIME_SERVER overrides
    bool hostServer = false;           // rank 0 runs the time server in a thread
    // The server was derived from torchrun's environment (no server named anywhere): rank 0
    // serves on MASTER_ADDR, UDP port MASTER_PORT; see TimerConfig::applyEnvironment.
    bool fromTorchrun = false;
    int burstSize = 8;
    double intervalS = 1.0;
    int timeoutMs = 100;
    std::string token;
};

struct TestClockSettings
{
    int64_t offsetNs = 0;
    double driftPpm = 0.0;
    // The emulated host's wall-clock error (test_clock.wall_offset_ns,
    // SYNCLINE_TEST_WALL_OFFSET_NS); unset = offsetNs (rec::Clock).
    std::optional<int64_t> wallOffsetNs;
    bool active() const { return offsetNs != 0 || driftPpm != 0.0 || wallOffsetNs.value_or(0) != 0; }
};

class TimerConfig
{
public:
    // Environment lookup, replaceable in tests; returns nullptr when unset.
    using GetEnv = std::function<const char *(const char *)>;

    // Reads and validates `path`; throws ConfigError (also when the file cannot be read).
    static TimerConfig load(const std::string &path);
    // Like load(), but a path that does not exist (or an empty path) gives defaults().
    static TimerConfig loadOrDefaults(const std::string &path);
    // Validates JSON text; `source` names it in error messages.
    static TimerConfig parse(std::string_view json, const std::string &source);
    static TimerConfig defaults();

    // Applies the env overrides SYNCLINE_TIME_SERVER, SYNCLINE_TEST_CLOCK_OFFSET_NS,
    // SYNCLINE_TEST_CLOCK_DRIFT_PPM and SYNCLINE_TEST_WALL_OFFSET_NS; a malformed value throws ConfigError naming the variable.
    // Then, when sync is enabled and still no server is named, and the process was started by
    // torchrun (TORCHELASTIC_RUN_ID, MASTER_ADDR and a MASTER_PORT in 1..65535 are set): the job's
    // own time server — sync.server = MASTER_ADDR:MASTER_PORT (UDP; the TCP port of that number
    // is torch's store, a separate port space), hostServer on (global rank 0, which torchrun
    // places on MASTER_ADDR's host, serves), token "torchrun:<run id>" unless sync.token is set,
    // fromTorchrun true (docs/timeserver.md, "Under torchrun").
    void applyEnvironment(const GetEnv &getEnv);

    // Exact names first, then the first glob (in file order) that matches; nullptr if none.
    const EventKind *matchKind(std::string_view name) const;

    bool loadedFromFile = false;
    std::string sourcePath; // absolute path of the file read, "" for defaults

    ClockSource clock = ClockSource::MonotonicRaw;
    int flushIntervalMs = 50;                 // 1..100
    int heartbeatIntervalMs = 1000;           // 10..600000
    std::string logPath = "timer_events.log"; // template, see LogPath
    int bufferEvents = 65536; // per-thread ring capacity, rounded up to a power of two
    OverflowPolicy overflow = OverflowPolicy::DropNewest;
    TestClockSettings testClock;
    SyncSettings sync;
    double silentAfterS = 10.0;
    // For the viewer and the CLI: the clock a job is shown on when none is asked for
    // ("corrected", "wall" or "raw"; "" = corrected). Validated here, used by the loader.
    std::string viewClock;
    // The training process writes its log's index and event store when the log closes
    // (LogStoreWriter, docs/scale.md "What a worker writes itself"); off by default.
    bool eventStore = false;
    std::vector<EventKind> eventKinds;

    static const char *overflowName(OverflowPolicy policy);

private:
    void buildIndex();
    void applyTorchrunServer(const GetEnv &getEnv);
    std::unordered_map<std::string, size_t> m_exact; // name → index into eventKinds
};

} // namespace syncline::rec
