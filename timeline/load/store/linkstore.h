// LinkStore — the job's links (Timeline::links, the message arrows) as a full load paired them,
// kept beside the correction cache, so a windowed open reads the links with both ends in its
// window instead of pairing the window's message records (whose ids, keys and pairs would cost
// a windowed open of a big job more memory than the links themselves: docs/scale.md).
//
// Keyed like the correction (every log's identity, --align-on, --no-correct): any change to any
// log makes it stale. Holds the workers' logs in the timeline's worker order (a window's
// timeline must have the same order, else the file is not used) and the links in their order
// (MessageLink::lessByPair), in chunks of 1,024: per link six varints (from worker, from track,
// to worker, to track and kind, from local ns as a delta, to − from); per chunk the smallest and
// largest global time of either end in each clock mode, offset, length and hash.
// File: CorrectionCache::fileOf(logs, key, beside, "links-", ".slk"); the chunks, then the
// directory as a CacheFile record (magic SYNCLNK1, version, own hash), then its 8-byte offset.
// Threading: values; any thread.
#pragma once

#include "timeline/load/build/clockcorrector.h"
#include "timeline/model/timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace syncline::load {

class LinkStore
{
public:
    static constexpr uint32_t kVersion = 1;
    static constexpr size_t kChunkLinks = 1024;

    // Writes tl.links (a full load's timeline: workers' sourceFile are the logs).
    static bool write(const Timeline &tl, const std::vector<std::string> &logs,
                      const ClockCorrector::Options &options);
    // True when a link store for this job and options is there (beside the logs or in the
    // user's cache; whether it is valid is readWindow's to find).
    static bool exists(const std::vector<std::string> &logs, const ClockCorrector::Options &options);
    // Sets tl.links to the stored links with both ends in [begin, end] (global ns of `mode`,
    // through tl's maps). False (tl.links untouched) when there is no valid file for this job
    // and worker order, or a chunk is damaged.
    static bool readWindow(Timeline &tl, const std::vector<std::string> &logs,
                           const ClockCorrector::Options &options, ClockMode mode, int64_t begin,
                           int64_t end, int64_t *bytesRead = nullptr, std::string *why = nullptr);
};

} // namespace syncline::load
