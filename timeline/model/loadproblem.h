// LoadProblem — one thing wrong found while loading (bad line, misnesting, duplicate rank...).
// Plain value type. `line` is 1-based; 0 when the problem is about the whole file. Problems about
// one record of a thread also say where it is (tid, the record's local ns), so the viewer's
// Problems panel can jump to the event there; localNs < 0 when not known.
// `kind` names what went wrong independently of the wording of `message` (the wording is for
// people and may change; programs, tests and the JSON/Python keys use the kind). Every problem
// the loader reports has one; kindKey() is the stable machine name, kindLabel() the group name
// used in "… and N more: <label>" summaries. The enum's order is persisted (the event store keeps
// its file's problems): append new kinds before Count, never reorder.
// Threading: values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncline {

// X(enumerator, key, label)
#define SYNCLINE_LOAD_PROBLEM_KINDS(X)                                                       \
    X(Other, "other", "other problems")                                                      \
    X(MalformedLine, "malformed_line", "malformed lines")                                    \
    X(TooManyThreads, "too_many_threads", "too many threads")                                \
    X(RecordOutOfOrder, "record_out_of_order", "records out of order")                       \
    X(MisplacedHeader, "misplaced_header", "misplaced headers")                              \
    X(TimeOutOfRange, "time_out_of_range", "times out of range")                             \
    X(RecorderNote, "recorder_note", "recorder notes")                                       \
    X(NegativeDuration, "negative_duration", "negative durations")                           \
    X(InconsistentSyncSample, "inconsistent_sync_sample", "inconsistent sync samples")       \
    X(TooManySyncReferences, "too_many_sync_references", "too many sync references")         \
    X(TooManyCounters, "too_many_counters", "too many counters")                             \
    X(InvalidUtf8, "invalid_utf8", "invalid UTF-8")                                          \
    X(EndWithoutBegin, "end_without_begin", "ends without a begin")                          \
    X(MisnestedEnd, "misnested_end", "misnested ends")                                       \
    X(LostEnd, "lost_end", "lost ends")                                                      \
    X(BadHeader, "bad_header", "header")                                                     \
    X(SyncReferences, "sync_references", "sync references")                                  \
    X(NotALog, "not_a_log", "not a log")                                                     \
    X(EmptyLog, "empty_log", "empty")                                                        \
    X(OpenEvents, "open_events", "open events")                                              \
    X(ReadError, "read_error", "read errors")                                                \
    X(EventWithoutTs, "event_without_ts", "events without a valid ts")                       \
    X(BadDuration, "bad_duration", "bad durations")                                          \
    X(BadCounterValue, "bad_counter_value", "bad counter values")                            \
    X(AsyncWithoutId, "async_without_id", "async events without an id")                     \
    X(AsyncEndWithoutBegin, "async_end_without_begin", "async ends without a begin")         \
    X(BadMetadata, "bad_metadata", "bad metadata")                                           \
    X(UnsupportedPhase, "unsupported_phase", "unsupported phases")                           \
    X(TruncatedGzip, "truncated_gzip", "truncated gzip")                                     \
    X(TruncatedJson, "truncated_json", "truncated JSON")                                     \
    X(UnreadableTrace, "unreadable_trace", "unreadable traces")                              \
    X(BadId, "bad_id", "bad ids")                                                            \
    X(NotRegularFile, "not_regular_file", "not regular files")                               \
    X(NotATrace, "not_a_trace", "not Chrome traces")                                         \
    X(SecondConfig, "second_config", "second configs")                                       \
    X(ConfigMatchesNothing, "config_matches_nothing", "configs matching no log")             \
    X(ConfigUnusable, "config_unusable", "unusable configs")                                 \
    X(CacheDirRefused, "cache_dir_refused", "refused cache directories")                     \
    X(LoadFailed, "load_failed", "failed loads")                                             \
    X(RankAssigned, "rank_assigned", "ranks assigned")                                       \
    X(DuplicateRank, "duplicate_rank", "duplicate ranks")                                    \
    X(MembershipChange, "membership_change", "membership changes")                           \
    X(PartialOverlap, "partial_overlap", "partial overlaps")                                 \
    X(TraceAttached, "trace_attached", "attached traces")                                    \
    X(TraceNotAttached, "trace_not_attached", "traces not attached")                         \
    X(FileReplaced, "file_replaced", "replaced files")                                       \
    X(TracesNotFollowed, "traces_not_followed", "traces not followed live")                  \
    X(NoCloseRecord, "no_close_record", "missing close records")                             \
    X(OutsideRanks, "outside_ranks", "workers outside --ranks")                              \
    X(RankSubset, "rank_subset", "rank subsets")

struct LoadProblem
{
    enum class Kind : uint32_t
    {
#define SYNCLINE_KIND_ENUM(e, key, label) e,
        SYNCLINE_LOAD_PROBLEM_KINDS(SYNCLINE_KIND_ENUM)
#undef SYNCLINE_KIND_ENUM
            Count
    };
    enum class Severity
    {
        Info,
        Warning,
        Error
    };
    Kind kind = Kind::Other;
    Severity severity = Severity::Warning;
    std::string file;
    int64_t line = 0;
    std::string message;
    int64_t tid = 0;
    int64_t localNs = -1;

    std::string toString() const; // "file:line: message" (or "file: message" when line == 0)
    static const char *severityName(Severity s); // "info", "warning", "error"
    static const char *kindKey(Kind k);          // "misnested_end", ... ("" for Count)
    static const char *kindLabel(Kind k);        // "misnested ends", ...
    static std::optional<Kind> kindFromKey(std::string_view key);
};

} // namespace syncline
