// ClockInputs — what one syncline log gives the clock correction, as bytes: a split load
// (syncline.dask; docs/scale.md "Beyond one machine") parses each log where it lies, keeps what
// the correction reads (ClockCorrector::keepClockInputs) and sends these bytes to the one task
// that corrects the whole job (JobLoader::splitClocks).
//
// Holds the log's path and size, its header line (parsed again by LogParser on the other side:
// rank, host, anchors, skew — the worker's identity exactly as a parse gives it), what the
// whole file says about the worker (first/last local time, heartbeat, drops, close, the sync
// samples of its reference clock, the wall-clock pairs: LogIndex's whole-file fields), the
// file's name table, its kept events (the collective candidates, with their args) per track and
// its `msg` records, both in ChunkCodec's chunks (docs/scale.md has the sizes measured).
// Format: one CacheFile record (magic SYNCCLK1, version, trailing hash), the chunks inside it
// as one string. decode() checks the hash, every length, count and index, the samples and wall
// pairs as the parser does (times within ±2^62 ns, t1 ≤ t4, t2 ≤ t3; wall pairs increasing)
// and every chunk as the event store's reader does (sorted, nested, names and args in range), so
// damaged or forged bytes are refused with a reason, never half-read.
// Threading: values; any thread.
#pragma once

#include "timeline/load/parse/parsedfile.h"
#include "timeline/load/store/chunkcodec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncline::load {

struct ClockInputs
{
    static constexpr uint32_t kVersion = 1;

    // `file`: a prepared, clock-only ParsedFile of a syncline log (args still in file.args,
    // referenced by argRefs); `headerLine`: the log's first line when it is a header (with its
    // '\n'), else empty; `fileBytes`: the log's size (the load's order: biggest first).
    static std::string encode(const ParsedFile &file, std::string_view headerLine,
                              int64_t fileBytes);
    // The ParsedFile back (args in its own store), or nullopt and *why. `bytes` are read in
    // place; `scratch`, when given, is reused for the tracks (one for a series of decodes keeps
    // their arrays allocated from one to the next).
    static std::optional<ParsedFile> decode(std::string_view bytes, int64_t *fileBytes,
                                            std::string *why,
                                            ChunkCodec::TrackScratch *scratch = nullptr);
    // Whether the inputs are of a usable log with sync samples (false for bytes that are not
    // clock inputs); the same of a decoded file. A job whose every log is synced never aligns
    // on the collective names recognised by name alone (ClockCorrector::alignsOnRecognisedNames).
    static bool synced(std::string_view bytes);
    static bool synced(const ParsedFile &file);
};

} // namespace syncline::load
