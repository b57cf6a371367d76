// LogRecord — one decoded line of a syncline v1 log (docs/log-format.md), as produced by
// LineScanner. String views point into the line or into the scanner's scratch buffers and are
// valid until the next scan. Unknown keys are skipped; `args` is the raw JSON text of the object.
// Plain value type; no threading rules.
#pragma once

#include <cstdint>
#include <string_view>

namespace syncline::load {

enum class RecordType : uint8_t
{
    Unknown,
    Header,
    Begin,
    End,
    Complete,
    Instant,
    Thread,
    Sync,
    Msg,
    Heartbeat,
    Note,
    Close,
    Counter // `C`, format 1.1
};

struct LogRecord
{
    RecordType type = RecordType::Unknown;
    bool hasType = false;
    bool hasTs = false, hasTid = false, hasDur = false, hasName = false, hasArgs = false;
    bool hasValue = false, valueNull = false; // `value` of a C record (null: not finite)
    double value = 0;
    bool hasT1 = false, hasT2 = false, hasT3 = false, hasT4 = false;
    int64_t ts = 0, tid = 0, dur = 0;
    int64_t t1 = 0, t2 = 0, t3 = 0, t4 = 0, burst = 0, seq = 0;
    int64_t peer = 0, events = 0, dropped = 0, open = 0;
    bool hasWall = false, hasWallSpread = false; // `hb`/`close` wall-clock pair, format 1.2
    int64_t wallNs = 0, wallSpreadNs = 0;
    std::string_view name, args, ref, dir, id, level, msg;
    // Set by LineScanner::scanAt when `name` and `args` are plain ASCII (so valid UTF-8 and
    // need no check); false: check them.
    bool textAscii = false;

    void clear() { *this = LogRecord(); }
};

} // namespace syncline::load
